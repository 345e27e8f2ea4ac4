package sqlite

import (
	"context"
	"sort"
	"strconv"
	"strings"

	"pmx/internal/amount"
	"pmx/internal/data/store"
)

// winner is a winning position with what filtering needs.
type winner struct {
	row      store.BiggestWinner
	category string // the market's category ("" on combos)
	wid      int64
}

// BiggestWinners implements store.Boards. The winning positions of every
// window are derived once per data generation; each (window, category) list
// is its own top-500 of them.
func (db *DB) BiggestWinners(ctx context.Context, p store.BiggestWinnersParams) (store.OffsetPage[store.BiggestWinner], error) {
	start := store.WindowStart(p.Period, p.Now)
	cat := strings.ToLower(p.Category)
	if cat == "" {
		cat = store.CategoryOverall
	}
	list, err := cached(ctx, db, "bw|"+strconv.FormatInt(start, 10)+"|"+cat, func(c *catalog) ([]store.BiggestWinner, error) {
		all, err := cached(ctx, db, "bw", func(c *catalog) ([]winner, error) { return db.winners(ctx, c) })
		if err != nil {
			return nil, err
		}
		var out []store.BiggestWinner
		for _, w := range all { // already in board order
			if w.row.ResolvedAt < start {
				continue
			}
			switch {
			case cat == store.CategoryOverall:
			case cat == store.CategoryCombos:
				if w.row.Kind != "combo" {
					continue
				}
			case w.row.Kind == "combo" || !strings.EqualFold(w.category, cat):
				continue
			}
			r := w.row
			r.WinRank = int32(len(out) + 1)
			out = append(out, r)
			if len(out) == store.MaxBiggestWinners {
				break
			}
		}
		return out, nil
	})
	if err != nil {
		return store.OffsetPage[store.BiggestWinner]{}, err
	}
	return page(list, p.Offset, p.Limit), nil
}

// winners lists every winning position, best first: a position in a
// resolved market (or settled combo) whose outcome pays, that was held at
// resolution (still held, or its last event — the redemption — is at or
// after the resolution), with total PnL > 0.
//
//	pnl           = realized + size × payout − entry cost of the holding
//	initial_value = market: lifetime acquired shares × average entry price
//	                combo: final_value − pnl
//	final_value   = market: initial_value + pnl
//	                combo: redemption payouts + size × payout
//
// so pnl = final_value − initial_value on every row by construction. For a
// position bought and held to redemption, initial is what was paid and final
// what resolution paid, on both kinds.
func (db *DB) winners(ctx context.Context, cat *catalog) ([]winner, error) {
	var out []winner
	var mids []int64
	for _, m := range cat.byMid {
		if !m.isCombo && m.resolved {
			mids = append(mids, m.mid)
		}
	}
	if len(mids) > 0 {
		var w where
		w.in("mid", mids)
		q, err := db.r.QueryContext(ctx, `SELECT wid, tid, size, cost, avg, bought, realized, last_at FROM positions WHERE `+w.sql())
		if err != nil {
			return nil, err
		}
		for q.Next() {
			var wid, tid, lastAt int64
			var size, cost, avg, bought, realized amount.Micro
			if err := q.Scan(&wid, &tid, &size, &cost, &avg, &bought, &realized, &lastAt); err != nil {
				q.Close()
				return nil, err
			}
			t := cat.byTid[tid]
			if t == nil {
				continue
			}
			m := cat.byMid[t.mid]
			if m == nil || t.idx >= len(m.payouts) || m.payouts[t.idx] <= 0 || (size <= 0 && lastAt < m.resolvedAt) {
				continue
			}
			pnl := realized + amount.Mul(size, m.payouts[t.idx]) - cost
			if pnl <= 0 {
				continue
			}
			initial := amount.Mul(bought, avg)
			out = append(out, winner{wid: wid, category: m.category, row: store.BiggestWinner{Kind: "market",
				PnL: pnl, InitialValue: initial, FinalValue: initial + pnl, ResolvedAt: m.resolvedAt,
				ConditionID: m.conditionID, PositionID: t.tokenID, EventID: m.eventID, EventSlug: m.eventSlug,
				EventTitle: m.eventTitle, Title: m.eventTitle}})
		}
		q.Close()
		if err := q.Err(); err != nil {
			return nil, err
		}
	}
	q, err := db.r.QueryContext(ctx, `SELECT wid, tid, size, cost, payout, realized FROM combo_positions`)
	if err != nil {
		return nil, err
	}
	for q.Next() {
		var wid, tid int64
		var size, cost, payout, realized amount.Micro
		if err := q.Scan(&wid, &tid, &size, &cost, &payout, &realized); err != nil {
			q.Close()
			return nil, err
		}
		t := cat.byTid[tid]
		if t == nil || cat.byMid[t.mid] == nil {
			continue
		}
		m := cat.byMid[t.mid]
		st := cat.comboState(m)
		pays := st.payoff(t.idx)
		if !st.resolved || pays <= 0 || (size <= 0 && payout <= 0) {
			continue
		}
		pnl := realized + amount.Mul(size, pays) - cost
		if pnl <= 0 {
			continue
		}
		final := payout + amount.Mul(size, pays)
		out = append(out, winner{wid: wid, row: store.BiggestWinner{Kind: "combo", PnL: pnl,
			InitialValue: final - pnl, FinalValue: final, ResolvedAt: st.resolvedAt, ConditionID: m.conditionID,
			PositionID: t.tokenID}})
		out[len(out)-1].row.EventTitle = comboTitle(cat, m)
		out[len(out)-1].row.Title = out[len(out)-1].row.EventTitle
	}
	q.Close()
	if err := q.Err(); err != nil {
		return nil, err
	}
	if err := db.winnerProfiles(ctx, out); err != nil {
		return nil, err
	}
	// Best first; ties by later resolution, then wallet, then position, so
	// win_rank (a row number) is deterministic.
	sort.Slice(out, func(i, j int) bool {
		a, b := &out[i].row, &out[j].row
		switch {
		case a.PnL != b.PnL:
			return a.PnL > b.PnL
		case a.ResolvedAt != b.ResolvedAt:
			return a.ResolvedAt > b.ResolvedAt
		case a.UserID != b.UserID:
			return a.UserID < b.UserID
		}
		return a.PositionID < b.PositionID
	})
	return out, nil
}

// comboTitle is the legs' market questions joined with " / " (the combo's
// stored title when a leg market is unknown).
func comboTitle(cat *catalog, m *market) string {
	titles := make([]string, 0, len(m.legs))
	for _, l := range m.legs {
		lm := cat.byCond[l.ConditionID]
		if lm == nil {
			return m.question
		}
		titles = append(titles, lm.question)
	}
	return strings.Join(titles, " / ")
}

func (db *DB) winnerProfiles(ctx context.Context, ws []winner) error {
	need := map[int64][]int{}
	for i := range ws {
		need[ws[i].wid] = append(need[ws[i].wid], i)
	}
	if len(need) == 0 {
		return nil
	}
	q, err := db.r.QueryContext(ctx, `SELECT wid, address, name, pseudonym, profile_image FROM wallets`)
	if err != nil {
		return err
	}
	defer q.Close()
	for q.Next() {
		var wid int64
		var addr, name, pseudo, image string
		if err := q.Scan(&wid, &addr, &name, &pseudo, &image); err != nil {
			return err
		}
		for _, i := range need[wid] {
			ws[i].row.UserID, ws[i].row.UserName, ws[i].row.ProfileImage = addr, displayName(name, pseudo), image
		}
	}
	return q.Err()
}
