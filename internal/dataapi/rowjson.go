package dataapi

import (
	"bytes"
	"net/http"
	"strconv"
	"unicode/utf8"
	"unsafe"

	"pmx/internal/amount"
	"pmx/internal/store"
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

const hexDigits = "0123456789abcdef"

// appendJSONString appends s as a JSON string, escaping as encoding/json
// does without HTML escaping: quote, backslash and control bytes; invalid
// UTF-8 becomes \ufffd; U+2028 and U+2029 are escaped.
func appendJSONString(b []byte, s string) []byte {
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		for i+8 <= len(s) && plain8(s[i:i+8]) { // most bytes need no escaping
			i += 8
		}
		if i == len(s) {
			break
		}
		c := s[i]
		if c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' {
				i++
				continue
			}
			b = append(b, s[start:i]...)
			switch c {
			case '\\', '"':
				b = append(b, '\\', c)
			case '\b':
				b = append(b, '\\', 'b')
			case '\f':
				b = append(b, '\\', 'f')
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			default:
				b = append(b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xF])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			b = append(b, s[start:i]...)
			b = append(b, `\ufffd`...)
			i += size
			start = i
			continue
		}
		if r == '\u2028' || r == '\u2029' {
			b = append(b, s[start:i]...)
			b = append(b, '\\', 'u', '2', '0', '2', hexDigits[r&0xF])
			i += size
			start = i
			continue
		}
		i += size
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}

// plain8 reports whether the 8 bytes of s are all printable ASCII other
// than quote and backslash (copied verbatim by appendJSONString). Per byte,
// (v - 0x01) & ^v has its high bit set exactly when v is 0 (for the
// comparisons with '"' and '\\') and (x - 0x20) & ^x when x < 0x20; any
// set high bit in x itself is a non-ASCII byte.
func plain8(s string) bool {
	_ = s[7]
	x := uint64(s[0]) | uint64(s[1])<<8 | uint64(s[2])<<16 | uint64(s[3])<<24 |
		uint64(s[4])<<32 | uint64(s[5])<<40 | uint64(s[6])<<48 | uint64(s[7])<<56
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	q, bs := x^('"'*ones), x^('\\'*ones)
	return ((x-0x20*ones)&^x|(q-ones)&^q|(bs-ones)&^bs|x)&highs == 0
}

// objWriter appends the members of one JSON object.
type objWriter struct {
	b     []byte
	first bool
	memo  *strMemo // nil = no memo
}

// strMemo remembers where in the page buffer a string was last written
// escaped, so a value repeated across a page's rows (the wallet's profile,
// a market's title, slug, icon, ids) is copied instead of escaped again. It
// is direct-mapped on the string's data address (hashing the contents would
// read bytes scattered over the heap: cache misses cost more than the
// escaping), so repeats of one allocation hit; a slot holds the last string
// that hashed to it.
// Invariant: offsets index the one buffer of one page, which only grows.
type strMemo [128]struct {
	s        string
	off, end int
}

func (w *objWriter) str(k, v string) {
	w.key(k)
	if w.memo == nil || len(v) < 16 {
		w.b = appendJSONString(w.b, v)
		return
	}
	a := uintptr(unsafe.Pointer(unsafe.StringData(v)))
	e := &w.memo[(a>>4^a>>11)&127]
	if e.s == v { // equal pointers compare without reading the bytes
		w.b = append(w.b, w.b[e.off:e.end]...)
		return
	}
	off := len(w.b)
	w.b = appendJSONString(w.b, v)
	e.s, e.off, e.end = v, off, len(w.b)
}

func (w *objWriter) key(k string) {
	if !w.first {
		w.b = append(w.b, ',')
	}
	w.first = false
	w.b = append(w.b, '"')
	w.b = append(w.b, k...) // keys are fixed ASCII names
	w.b = append(w.b, '"', ':')
}

// strOnce is str for a value that rarely repeats within a page (a
// transaction hash): it bypasses the memo rather than evict a useful slot.
func (w *objWriter) strOnce(k, v string) { w.key(k); w.b = appendJSONString(w.b, v) }

func (w *objWriter) micro(k string, v amount.Micro) { w.key(k); w.b = v.Append(w.b) }
func (w *objWriter) int(k string, v int64)          { w.key(k); w.b = strconv.AppendInt(w.b, v, 10) }
func (w *objWriter) boolean(k string, v bool)       { w.key(k); w.b = strconv.AppendBool(w.b, v) }

func appendTrade(b []byte, t *store.Trade, memo *strMemo) []byte {
	w := objWriter{b: append(b, '{'), first: true, memo: memo}
	w.str("proxy_wallet", t.ProxyWallet)
	w.str("side", t.Side)
	w.str("token_id", t.TokenID)
	w.str("condition_id", t.ConditionID)
	w.micro("size", t.Size)
	w.micro("price", t.Price)
	w.int("timestamp", t.Timestamp)
	w.str("title", t.Title)
	w.str("slug", t.Slug)
	w.str("icon", t.Icon)
	w.str("event_slug", t.EventSlug)
	w.str("outcome", t.Outcome)
	w.int("outcome_index", int64(t.OutcomeIndex))
	w.str("name", t.Name)
	w.str("pseudonym", t.Pseudonym)
	w.str("bio", t.Bio)
	w.str("profile_image", t.ProfileImage)
	w.str("profile_image_optimized", t.ProfileImageOptimized)
	w.strOnce("transaction_hash", t.TransactionHash)
	return append(w.b, '}')
}

func appendActivity(b []byte, a *store.Activity, memo *strMemo) []byte {
	w := objWriter{b: append(b, '{'), first: true, memo: memo}
	w.str("proxy_wallet", a.ProxyWallet)
	w.int("timestamp", a.Timestamp)
	w.str("condition_id", a.ConditionID)
	w.str("type", a.Type)
	w.micro("size", a.Size)
	w.micro("usdc_size", a.USDCSize)
	w.strOnce("transaction_hash", a.TransactionHash)
	w.micro("price", a.Price)
	w.str("token_id", a.TokenID)
	w.str("side", a.Side)
	w.int("outcome_index", int64(a.OutcomeIndex))
	w.str("title", a.Title)
	w.str("slug", a.Slug)
	w.str("icon", a.Icon)
	w.str("event_slug", a.EventSlug)
	w.str("outcome", a.Outcome)
	w.str("name", a.Name)
	w.str("pseudonym", a.Pseudonym)
	w.str("bio", a.Bio)
	w.str("profile_image", a.ProfileImage)
	w.str("profile_image_optimized", a.ProfileImageOptimized)
	if a.IsCombo {
		w.boolean("is_combo", true)
	}
	return append(w.b, '}')
}

func appendPosition(b []byte, p *store.Position, memo *strMemo) []byte {
	w := objWriter{b: append(b, '{'), first: true, memo: memo}
	w.str("proxy_wallet", p.ProxyWallet)
	w.str("token_id", p.TokenID)
	w.str("condition_id", p.ConditionID)
	w.micro("current_size", p.CurrentSize)
	w.micro("avg_price", p.AvgPrice)
	w.micro("entry_cost_usdc", p.EntryCostUSDC)
	w.micro("entry_fees_usdc", p.EntryFeesUSDC)
	w.micro("total_cost_usdc", p.TotalCostUSDC)
	w.micro("current_price", p.CurrentPrice)
	w.micro("current_value", p.CurrentValue)
	w.micro("total_size", p.TotalSize)
	w.micro("realized_pnl", p.RealizedPnL)
	w.micro("unrealized_pnl", p.UnrealizedPnL)
	w.micro("total_pnl", p.TotalPnL)
	w.micro("percent_pnl", p.PercentPnL)
	w.micro("percent_realized_pnl", p.PercentRealizedPnL)
	w.str("status", p.Status)
	w.boolean("redeemable", p.Redeemable)
	w.boolean("mergeable", p.Mergeable)
	w.boolean("negative_risk", p.NegativeRisk)
	w.boolean("archived", p.Archived)
	w.str("title", p.Title)
	w.str("slug", p.Slug)
	w.str("icon", p.Icon)
	w.str("event_id", p.EventID)
	w.str("event_slug", p.EventSlug)
	w.str("outcome", p.Outcome)
	w.int("outcome_index", int64(p.OutcomeIndex))
	w.str("opposite_outcome", p.OppositeOutcome)
	w.str("opposite_token_id", p.OppositeTokenID)
	w.str("end_date", p.EndDate)
	w.int("last_event_at", p.LastEventAt)
	w.int("first_entry_at", p.FirstEntryAt)
	w.str("name", p.Name)
	w.str("profile_image", p.ProfileImage)
	w.boolean("verified", p.Verified)
	return append(w.b, '}')
}

// appendFeedPage appends the whole page body, as writeJSON would encode
// page{rows, p} (including encoding/json's trailing newline). ok is false
// for a row type without a hand encoder.
func appendFeedPage(b []byte, rows any, p Pagination) (_ []byte, ok bool) {
	b = append(b, `{"data":[`...)
	memo := new(strMemo)
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
	buf := bufPool.Get().(*bytes.Buffer)
	defer func() {
		if buf.Cap() <= 1<<20 {
			buf.Reset()
			bufPool.Put(buf)
		}
	}()
	b, ok := appendFeedPage(buf.AvailableBuffer(), rows, p)
	if !ok {
		WritePage(w, r, rows, p)
		return
	}
	buf.Write(b)
	h := w.Header()
	h.Set("Content-Type", "application/json")
	h.Set("Content-Length", strconv.Itoa(buf.Len()))
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write(buf.Bytes())
}
