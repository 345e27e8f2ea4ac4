package sqlite

import (
	"context"
	"sort"
	"strconv"
	"strings"

	"pmx/internal/amount"
	"pmx/internal/store"
)

// holding is one wallet's balance of one token with its profile and basis.
type holding struct {
	wid, tid           int64
	size, cost, avg    amount.Micro
	realized           amount.Micro
	addr, name, pseudo string
	bio, image         string
	verified           bool
	amount             amount.Micro // served amount (netted or gross)
}

// Holders implements store.Markets. Each market is read whole (its positions
// with a balance, through positions_holders) and ranked here in fixed point:
// holder counts per market are small next to a page of any feed.
func (db *DB) Holders(ctx context.Context, p store.HoldersParams) ([]store.HolderGroup, bool, error) {
	cat := db.cat.Load()
	var groups []store.HolderGroup
	more := false
	for _, cond := range p.Conditions {
		m := cat.byCond[cond]
		if m == nil || m.isCombo {
			continue
		}
		hs, err := db.holdings(ctx, m.mid)
		if err != nil {
			return nil, false, err
		}
		if !p.Gross {
			netHoldings(hs, len(m.tokens))
		}
		byTid := map[int64][]*holding{}
		for _, h := range hs {
			if h.amount >= p.MinBalance {
				byTid[h.tid] = append(byTid[h.tid], h)
			}
		}
		for _, t := range m.tokens {
			if t == nil {
				continue
			}
			list := byTid[t.tid]
			sort.Slice(list, func(i, j int) bool {
				if list[i].amount != list[j].amount {
					return list[i].amount > list[j].amount
				}
				return list[i].addr < list[j].addr
			})
			if len(list) > p.Offset+p.Limit {
				more = true
			}
			if len(list) <= p.Offset {
				continue // exhausted: the group leaves the page
			}
			list = list[p.Offset:min(len(list), p.Offset+p.Limit)]
			g := store.HolderGroup{TokenID: t.tokenID, Holders: make([]store.Holder, len(list))}
			mark := cat.mark(t)
			for i, h := range list {
				g.Holders[i] = holderRow(h, t, mark, p.Gross)
			}
			groups = append(groups, g)
		}
	}
	return groups, more, nil
}

func holderRow(h *holding, t *token, mark amount.Micro, gross bool) store.Holder {
	r := store.Holder{ProxyWallet: h.addr, Bio: h.bio, TokenID: t.tokenID, Pseudonym: h.pseudo, Amount: h.amount,
		DisplayUsernamePublic: h.name != "", OutcomeIndex: outcomeIndex(t), Name: h.name, ProfileImage: h.image,
		Verified: h.verified}
	if gross {
		value := amount.Mul(h.size, mark)
		r.HolderEconomics = &store.HolderEconomics{AvgPrice: h.avg, EntryCostUSDC: h.cost, CurrentPrice: mark,
			CurrentValue: value, RealizedPnL: h.realized, UnrealizedPnL: value - h.cost,
			TotalPnL: h.realized + value - h.cost}
	}
	return r
}

// netHoldings sets each holding's amount to its size less the complete sets
// the wallet holds in the market (the minimum over every outcome, a missing
// outcome counting 0), so a fully hedged wallet nets to 0 on every side.
func netHoldings(hs []*holding, outcomes int) {
	type agg struct {
		n   int
		min amount.Micro
	}
	per := map[int64]*agg{}
	for _, h := range hs {
		a := per[h.wid]
		if a == nil {
			a = &agg{min: h.size}
			per[h.wid] = a
		}
		a.n++
		a.min = min(a.min, h.size)
	}
	for _, h := range hs {
		sets := per[h.wid].min
		if per[h.wid].n < outcomes {
			sets = 0
		}
		h.amount = h.size - sets
	}
}

// holdings reads every positive balance of market mid with the wallet's
// profile.
func (db *DB) holdings(ctx context.Context, mid int64) ([]*holding, error) {
	rows, err := db.r.QueryContext(ctx, `SELECT p.wid, p.tid, p.size, p.cost, p.avg, p.realized, w.address, w.name,
		w.pseudonym, w.bio, w.profile_image, w.verified
		FROM positions p JOIN wallets w ON w.wid = p.wid WHERE p.mid = ? AND p.size > 0`, mid)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []*holding
	for rows.Next() {
		h := &holding{}
		if err := rows.Scan(&h.wid, &h.tid, &h.size, &h.cost, &h.avg, &h.realized, &h.addr, &h.name, &h.pseudo,
			&h.bio, &h.image, &h.verified); err != nil {
			return nil, err
		}
		h.amount = h.size
		out = append(out, h)
	}
	return out, rows.Err()
}

// servable reports whether a market has an open-interest row.
func servable(m *market) bool { return m != nil && !m.isCombo && m.active && !m.archived }

// OpenInterest implements store.Markets: Σ over a market's outcomes of the
// outstanding shares (the sum of positive balances) times the outcome's mark
// (its payout once resolved). No netting: a complete set counts at Σ marks.
func (db *DB) OpenInterest(ctx context.Context, conditions []string) ([]store.OpenInterest, error) {
	cat := db.cat.Load()
	var ms []*market
	if conditions == nil {
		for _, m := range cat.byMid {
			if servable(m) {
				ms = append(ms, m)
			}
		}
	} else {
		for _, c := range conditions {
			if m := cat.byCond[c]; servable(m) {
				ms = append(ms, m)
			}
		}
	}
	supply, err := db.supply(ctx, ms, conditions == nil)
	if err != nil {
		return nil, err
	}
	value := func(m *market) amount.Micro {
		var v amount.Micro
		for _, t := range m.tokens {
			if t != nil {
				v += amount.Mul(supply[t.tid], cat.mark(t))
			}
		}
		return v
	}
	if conditions == nil {
		var total amount.Micro
		for _, m := range ms {
			total += value(m)
		}
		return []store.OpenInterest{{ConditionID: "GLOBAL", Value: total}}, nil
	}
	out := make([]store.OpenInterest, 0, len(ms))
	for _, m := range ms {
		out = append(out, store.OpenInterest{ConditionID: m.conditionID, Value: value(m)})
	}
	return out, nil
}

// supply sums positive balances per token of the given markets (all markets
// when all is set), reading positions_holders only.
func (db *DB) supply(ctx context.Context, ms []*market, all bool) (map[int64]amount.Micro, error) {
	out := map[int64]amount.Micro{}
	if len(ms) == 0 {
		return out, nil
	}
	q := `SELECT tid, SUM(size) FROM positions WHERE size > 0 GROUP BY mid, tid`
	if !all {
		ids := make([]string, len(ms))
		for i, m := range ms {
			ids[i] = strconv.FormatInt(m.mid, 10) // integers only: safe to inline
		}
		q = `SELECT tid, SUM(size) FROM positions WHERE mid IN (` + strings.Join(ids, ",") + `) AND size > 0 GROUP BY mid, tid`
	}
	rows, err := db.r.QueryContext(ctx, q)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	for rows.Next() {
		var tid int64
		var s amount.Micro
		if err := rows.Scan(&tid, &s); err != nil {
			return nil, err
		}
		out[tid] = s
	}
	return out, rows.Err()
}
