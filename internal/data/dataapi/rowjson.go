package dataapi

import (
	"net/http"
	"strconv"
	"unsafe"

	"pmx/internal/amount"
	"pmx/internal/data/store"
	"pmx/internal/jsonstr"
)

// Hand-written encoders for the feed and position rows, the busiest payloads of the data
// service. They produce exactly the bytes encoding/json produces for the same
// rows (with SetEscapeHTML(false), as writeJSON uses): rowjson_test.go and
// FuzzAppendJSONString hold them to that. encoding/json spends most of its
// time on the rows' amount.Micro fields (each MarshalJSON result is
// re-validated and compacted), which these skip.
//
// Invariant: each encoder writes every field of its store row, in struct
// order. A field added to store.Trade, store.Activity or store.Position must
// be added here too; TestAppendFeedPageMatchesEncodingJSON fails until it is
// (encoding/json writes the new field, the hand encoder does not).

// pageMemo remembers where in the page buffer values were last written,
// so what repeats across a page's rows is copied instead of encoded again:
// single strings (a market's ids) and whole runs of members (a wallet's
// profile, a market's title, slug, icon and outcome). Both are
// direct-mapped on a string's data address (hashing the contents would read
// bytes scattered over the heap: cache misses cost more than the escaping),
// and a slot holds the last value that mapped to it. A hit compares the
// values themselves (strings with equal data pointers compare without
// reading their bytes), so a collision only costs a miss.
// Invariant: offsets index the one buffer of one page, which only grows.
type pageMemo struct {
	strs [128]struct {
		s        string
		off, end int
	}
	runs [64]struct {
		k        runKey
		off, end int
	}
}

// runKey is which run (id: its members, one id per call site) and the
// values of its members (unused entries empty; n is a run's integer
// member, if it has one).
type runKey struct {
	id uint8
	s  [10]string
	n  int64
}

// Run ids: two runs whose values are equal still render different members.
const (
	runProfile = iota + 1
	runTradeMarket
	runActivityMarket
	runPositionProfile
	runPositionMarket
)

func slot(s string, mask uintptr) uintptr {
	a := uintptr(unsafe.Pointer(unsafe.StringData(s)))
	return (a>>4 ^ a>>11) & mask
}

// str appends the member prefix k (`,"name":`) and v as a JSON string.
func (m *pageMemo) str(b []byte, k, v string) []byte {
	b = append(b, k...)
	if len(v) < 16 {
		return jsonstr.Append(b, v)
	}
	e := &m.strs[slot(v, 127)]
	if e.s == v {
		return append(b, b[e.off:e.end]...)
	}
	off := len(b)
	b = jsonstr.Append(b, v)
	e.s, e.off, e.end = v, off, len(b)
	return b
}

// run appends a run of members rendered by enc, or copies the last
// rendering of the same values (k) in this page.
func (m *pageMemo) run(b []byte, k *runKey, enc func([]byte) []byte) []byte {
	e := &m.runs[(slot(k.s[0], 63)+uintptr(k.id))&63]
	if e.k == *k {
		return append(b, b[e.off:e.end]...)
	}
	off := len(b)
	b = enc(b)
	e.k, e.off, e.end = *k, off, len(b)
	return b
}

// once appends k and v, a value that rarely repeats within a page (a
// transaction hash): it bypasses the memo rather than evict a useful slot.
func once(b []byte, k, v string) []byte { return jsonstr.Append(append(b, k...), v) }

func micro(b []byte, k string, v amount.Micro) []byte { return v.Append(append(b, k...)) }
func integer(b []byte, k string, v int64) []byte      { return strconv.AppendInt(append(b, k...), v, 10) }
func boolean(b []byte, k string, v bool) []byte       { return strconv.AppendBool(append(b, k...), v) }

// profileRun is the wallet profile members every feed row ends with.
func (m *pageMemo) profileRun(b []byte, name, pseudonym, bio, image, imageOpt string) []byte {
	k := runKey{id: runProfile, s: [10]string{name, pseudonym, bio, image, imageOpt}}
	return m.run(b, &k, func(b []byte) []byte {
		b = m.str(b, `,"name":`, name)
		b = m.str(b, `,"pseudonym":`, pseudonym)
		b = m.str(b, `,"bio":`, bio)
		b = m.str(b, `,"profile_image":`, image)
		return m.str(b, `,"profile_image_optimized":`, imageOpt)
	})
}

func appendTrade(b []byte, t *store.Trade, m *pageMemo) []byte {
	b = m.str(append(b, '{'), `"proxy_wallet":`, t.ProxyWallet)
	b = m.str(b, `,"side":`, t.Side)
	b = m.str(b, `,"token_id":`, t.TokenID)
	b = m.str(b, `,"condition_id":`, t.ConditionID)
	b = micro(b, `,"size":`, t.Size)
	b = micro(b, `,"price":`, t.Price)
	b = integer(b, `,"timestamp":`, t.Timestamp)
	k := runKey{id: runTradeMarket, s: [10]string{t.TokenID, t.Title, t.Slug, t.Icon, t.EventSlug, t.Outcome},
		n: int64(t.OutcomeIndex)}
	b = m.shared(b, &k, func(b []byte) []byte {
		b = m.str(b, `,"title":`, t.Title)
		b = m.str(b, `,"slug":`, t.Slug)
		b = m.str(b, `,"icon":`, t.Icon)
		b = m.str(b, `,"event_slug":`, t.EventSlug)
		b = m.str(b, `,"outcome":`, t.Outcome)
		return integer(b, `,"outcome_index":`, int64(t.OutcomeIndex))
	})
	b = m.profileRun(b, t.Name, t.Pseudonym, t.Bio, t.ProfileImage, t.ProfileImageOptimized)
	b = once(b, `,"transaction_hash":`, t.TransactionHash)
	return append(b, '}')
}

func appendActivity(b []byte, a *store.Activity, m *pageMemo) []byte {
	b = m.str(append(b, '{'), `"proxy_wallet":`, a.ProxyWallet)
	b = integer(b, `,"timestamp":`, a.Timestamp)
	b = m.str(b, `,"condition_id":`, a.ConditionID)
	b = m.str(b, `,"type":`, a.Type)
	b = micro(b, `,"size":`, a.Size)
	b = micro(b, `,"usdc_size":`, a.USDCSize)
	b = once(b, `,"transaction_hash":`, a.TransactionHash)
	b = micro(b, `,"price":`, a.Price)
	b = m.str(b, `,"token_id":`, a.TokenID)
	b = m.str(b, `,"side":`, a.Side)
	b = integer(b, `,"outcome_index":`, int64(a.OutcomeIndex))
	k := runKey{id: runActivityMarket, s: [10]string{a.TokenID, a.Title, a.Slug, a.Icon, a.EventSlug, a.Outcome}}
	b = m.shared(b, &k, func(b []byte) []byte {
		b = m.str(b, `,"title":`, a.Title)
		b = m.str(b, `,"slug":`, a.Slug)
		b = m.str(b, `,"icon":`, a.Icon)
		b = m.str(b, `,"event_slug":`, a.EventSlug)
		return m.str(b, `,"outcome":`, a.Outcome)
	})
	b = m.profileRun(b, a.Name, a.Pseudonym, a.Bio, a.ProfileImage, a.ProfileImageOptimized)
	b = integer(b, `,"block_timestamp":`, a.BlockTimestamp)
	b = integer(b, `,"sequence_id":`, a.SequenceID)
	if a.IsCombo {
		b = boolean(b, `,"is_combo":`, true)
	}
	return append(b, '}')
}

func appendPosition(b []byte, p *store.Position, m *pageMemo) []byte {
	b = m.str(append(b, '{'), `"proxy_wallet":`, p.ProxyWallet)
	b = m.str(b, `,"token_id":`, p.TokenID)
	b = m.str(b, `,"condition_id":`, p.ConditionID)
	b = micro(b, `,"current_size":`, p.CurrentSize)
	b = micro(b, `,"avg_price":`, p.AvgPrice)
	b = micro(b, `,"entry_cost_usdc":`, p.EntryCostUSDC)
	b = micro(b, `,"entry_fees_usdc":`, p.EntryFeesUSDC)
	b = micro(b, `,"total_cost_usdc":`, p.TotalCostUSDC)
	b = micro(b, `,"current_price":`, p.CurrentPrice)
	b = micro(b, `,"current_value":`, p.CurrentValue)
	b = micro(b, `,"total_size":`, p.TotalSize)
	b = micro(b, `,"realized_pnl":`, p.RealizedPnL)
	b = micro(b, `,"unrealized_pnl":`, p.UnrealizedPnL)
	b = micro(b, `,"total_pnl":`, p.TotalPnL)
	b = micro(b, `,"percent_pnl":`, p.PercentPnL)
	b = micro(b, `,"percent_realized_pnl":`, p.PercentRealizedPnL)
	b = m.str(b, `,"status":`, p.Status)
	b = boolean(b, `,"redeemable":`, p.Redeemable)
	b = boolean(b, `,"mergeable":`, p.Mergeable)
	b = boolean(b, `,"negative_risk":`, p.NegativeRisk)
	b = boolean(b, `,"archived":`, p.Archived)
	mk := runKey{id: runPositionMarket, s: [10]string{p.TokenID, p.Title, p.Slug, p.Icon, p.EventID, p.EventSlug, p.Outcome,
		p.OppositeOutcome, p.OppositeTokenID, p.EndDate}, n: int64(p.OutcomeIndex)}
	b = m.shared(b, &mk, func(b []byte) []byte {
		b = m.str(b, `,"title":`, p.Title)
		b = m.str(b, `,"slug":`, p.Slug)
		b = m.str(b, `,"icon":`, p.Icon)
		b = m.str(b, `,"event_id":`, p.EventID)
		b = m.str(b, `,"event_slug":`, p.EventSlug)
		b = m.str(b, `,"outcome":`, p.Outcome)
		b = integer(b, `,"outcome_index":`, int64(p.OutcomeIndex))
		b = m.str(b, `,"opposite_outcome":`, p.OppositeOutcome)
		b = m.str(b, `,"opposite_token_id":`, p.OppositeTokenID)
		return m.str(b, `,"end_date":`, p.EndDate)
	})
	b = integer(b, `,"last_event_at":`, p.LastEventAt)
	b = integer(b, `,"first_entry_at":`, p.FirstEntryAt)
	k := runKey{id: runPositionProfile, s: [10]string{p.Name, p.ProfileImage}}
	b = m.run(b, &k, func(b []byte) []byte {
		b = m.str(b, `,"name":`, p.Name)
		return m.str(b, `,"profile_image":`, p.ProfileImage)
	})
	b = boolean(b, `,"verified":`, p.Verified)
	return append(b, '}')
}

// appendFeedPage appends the whole page body, as writeJSON would encode
// page{rows, p} (including encoding/json's trailing newline). ok is false
// for a row type without a hand encoder.
func appendFeedPage(b []byte, rows any, p Pagination) (_ []byte, ok bool) {
	b = append(b, `{"data":[`...)
	memo := new(pageMemo)
	switch rs := rows.(type) {
	case []store.Trade:
		for i := range rs {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendTrade(b, &rs[i], memo)
		}
	case []store.Activity:
		for i := range rs {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendActivity(b, &rs[i], memo)
		}
	case []store.Position:
		for i := range rs {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendPosition(b, &rs[i], memo)
		}
	default:
		return b, false
	}
	b = append(b, `],"pagination":`...)
	pj, err := p.MarshalJSON()
	if err != nil {
		return b, false
	}
	b = append(b, pj...)
	return append(b, '}', '\n'), true
}

// writeFeedPage answers a trades, activity or positions page through the hand encoders, falling back
// to WritePage for other row types.
func writeFeedPage[T any](w http.ResponseWriter, r *http.Request, rows []T, p Pagination) {
	buf := getBuf()
	defer putBuf(buf)
	b, ok := appendFeedPage(buf.AvailableBuffer(), rows, p)
	if !ok {
		WritePage(w, r, rows, p)
		return
	}
	buf.Write(b) // keeps a grown page's capacity for the pool
	writeBody(w, http.StatusOK, buf.Bytes())
}
