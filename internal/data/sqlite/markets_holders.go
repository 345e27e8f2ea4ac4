package sqlite

import (
	"context"
	"sort"

	"pmx/internal/amount"
	"pmx/internal/data/store"
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
// with a balance) and ranked once per catalog generation (genCache); a page
// is then a min_balance prefix cut and an offset window of each token's list.
func (db *DB) Holders(ctx context.Context, p store.HoldersParams) ([]store.HolderGroup, bool, error) {
	cat := db.cat.Load()
	var groups []store.HolderGroup
	more := false
	for _, cond := range p.Conditions {
		m := cat.byCond[cond]
		if m == nil || m.isCombo {
			continue
		}
		e, err := db.rankedHolders(ctx, cat, m)
		if err != nil {
			return nil, false, err
		}
		ranked := e.net
		if p.Gross {
			ranked = e.gross
		}
		for _, t := range m.tokens {
			if t == nil {
				continue
			}
			list := ranked[t.tid]
			// Ranked by amount descending: the min_balance cut is a prefix.
			list = list[:sort.Search(len(list), func(i int) bool { return list[i].amount < p.MinBalance })]
			if len(list) > p.Offset+p.Limit {
				more = true
			}
			if len(list) <= p.Offset {
				continue // exhausted: the group leaves the page
			}
			list = list[p.Offset:min(len(list), p.Offset+p.Limit)]
			g := store.HolderGroup{TokenID: t.tokenID, Holders: make([]store.Holder, len(list))}
			mark := cat.mark(t)
			for i := range list {
				g.Holders[i] = holderRow(&list[i], t, mark, p.Gross)
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

// rankedHolders returns market m's holders ranked per token, through the
// generation cache.
func (db *DB) rankedHolders(ctx context.Context, cat *catalog, m *market) (*holdersEntry, error) {
	e := genEntry(&cat.cache, &cat.cache.holders, m.mid)
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.ready {
		return e, nil
	}
	hs, err := db.holdings(ctx, m.mid)
	if err != nil {
		return nil, err // not cached: the next request retries
	}
	rank := func() map[int64][]holding {
		out := map[int64][]holding{}
		for _, h := range hs {
			out[h.tid] = append(out[h.tid], *h)
		}
		for _, list := range out {
			sort.Slice(list, func(i, j int) bool {
				if list[i].amount != list[j].amount {
					return list[i].amount > list[j].amount
				}
				return list[i].addr < list[j].addr
			})
		}
		return out
	}
	e.gross = rank()
	netHoldings(hs, len(m.tokens))
	e.net = rank()
	e.ready = true
	return e, nil
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
	supply, err := db.supply(ctx, cat)
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

// supply sums positive balances per token (one scan of positions_holders
// per catalog generation).
func (db *DB) supply(ctx context.Context, cat *catalog) (map[int64]amount.Micro, error) {
	e := &cat.cache.supply
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.ready {
		return e.byTid, nil
	}
	rows, err := db.r.QueryContext(ctx, `SELECT tid, SUM(size) FROM positions WHERE size > 0 GROUP BY mid, tid`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := map[int64]amount.Micro{}
	for rows.Next() {
		var tid int64
		var s amount.Micro
		if err := rows.Scan(&tid, &s); err != nil {
			return nil, err
		}
		out[tid] = s
	}
	if err := rows.Err(); err != nil {
		return nil, err // not cached: the next request retries
	}
	e.byTid, e.ready = out, true
	return out, nil
}
