package sqlite

import (
	"fmt"
	"sort"
	"strings"

	"pmx/internal/amount"
	"pmx/internal/data/ledger"
	"pmx/internal/data/store"
)

func seqOf(e *ledger.Event) int64 { return store.SequenceID(e.BlockNumber, e.LogIndex, 0) }

func dupErr(err error, e *ledger.Event) error {
	if err != nil && strings.Contains(err.Error(), "UNIQUE") {
		return fmt.Errorf("%w: block %d log %d", store.ErrDuplicate, e.BlockNumber, e.LogIndex)
	}
	return err
}

// advanceDay closes the current observation day when an event of a later UTC
// day arrives. Events are expected in timestamp order; an earlier event is
// accounted in the current day's observation.
func (a *applier) advanceDay(ts int64) error {
	d := store.DayFloor(ts)
	if d <= a.day {
		return nil
	}
	if a.day != 0 {
		if err := a.flushDay(); err != nil {
			return err
		}
	}
	a.day = d
	return nil
}

// flushDay writes one cumulative observation per wallet touched in the
// current day, with unrealized PnL marked at the marks of that moment.
func (a *applier) flushDay() error {
	for w := range a.touched {
		var unreal amount.Micro
		for _, p := range w.list {
			if p.size > 0 {
				unreal += amount.Mul(p.size, a.cat.mark(a.cat.byTid[p.tid])) - p.cost
			}
		}
		c := &w.c
		a.obsRows = append(a.obsRows, [18]int64{w.wid, a.day, w.obsTs, w.lastBlock, int64(c.realizedMarket),
			int64(c.realizedCombo), int64(unreal), int64(c.makerRebate), int64(c.takerRebate), int64(c.reward),
			int64(c.yield), int64(c.referral), int64(c.deposits), int64(c.withdrawals), int64(c.fees),
			int64(c.volume), int64(c.volumeUSDC), c.tradeCount})
	}
	clear(a.touched)
	return nil
}

// writeObs writes the buffered observations in primary-key order, so the
// B-tree grows by appends rather than random inserts.
func (a *applier) writeObs() error {
	sort.Slice(a.obsRows, func(i, j int) bool {
		x, y := &a.obsRows[i], &a.obsRows[j]
		return x[0] < y[0] || (x[0] == y[0] && x[1] < y[1])
	})
	vals := make([]any, 18)
	for i := range a.obsRows {
		for j, v := range a.obsRows[i] {
			vals[j] = v
		}
		if err := a.obs.add(vals...); err != nil {
			return err
		}
	}
	a.obsRows = nil
	return a.obs.flush()
}

// dropIndexesForBulk drops the activity and positions secondary indexes when the
// batch is large next to the table (e.g. the demo world into an empty
// store): building an index once, sorted, beats n random inserts. It returns
// the statements that recreate them before commit.
func (a *applier) dropIndexesForBulk(events int) ([]string, error) {
	if events < 20_000 {
		return nil, nil
	}
	var rows int
	if err := a.tx.QueryRowContext(a.ctx, `SELECT count(*) FROM activity`).Scan(&rows); err != nil {
		return nil, err
	}
	if events < 2*rows {
		return nil, nil
	}
	list := `SELECT name, sql FROM sqlite_master
		WHERE type = 'index' AND tbl_name IN ('activity', 'positions') AND sql IS NOT NULL`
	if a.dia.IndexesSQL != "" {
		list = a.dia.IndexesSQL
	}
	q, err := a.tx.QueryContext(a.ctx, list)
	if err != nil {
		return nil, err
	}
	var names, create []string
	for q.Next() {
		var name, sql string
		if err := q.Scan(&name, &sql); err != nil {
			q.Close()
			return nil, err
		}
		names, create = append(names, name), append(create, sql)
	}
	q.Close()
	if err := q.Err(); err != nil {
		return nil, err
	}
	for _, n := range names {
		if _, err := a.tx.ExecContext(a.ctx, `DROP INDEX `+n); err != nil {
			return nil, err
		}
	}
	return create, nil
}

// writeBack stores every dirty wallet, position, market, token and builder.
func (a *applier) writeBack() error {
	insW := a.newBulk(`INSERT OR REPLACE INTO wallets (`+walletCols+`) VALUES `, 26)
	defer insW.close()
	insP := a.newBulk(`INSERT OR REPLACE INTO positions (wid, tid, mid, size, cost, fees, avg, bought,
		realized, first_at, last_at, traded) VALUES `, 12)
	defer insP.close()
	insC := a.newBulk(`INSERT OR REPLACE INTO combo_positions (wid, tid, mid, size, cost, fees, avg,
		payout, realized, first_at, updated_at) VALUES `, 11)
	defer insC.close()
	for _, b := range []*bulk{insW, insP, insC} {
		a.copyMode(b)
	}
	// Key order, so new rows append to the B-trees.
	ws := make([]*wallet, 0, len(a.wallets))
	for _, w := range a.wallets {
		ws = append(ws, w)
	}
	sort.Slice(ws, func(i, j int) bool { return ws[i].wid < ws[j].wid })
	for _, w := range ws {
		if w.dirty {
			if err := insW.add(w.values()...); err != nil {
				return err
			}
		}
		for _, p := range sortedPositions(w.list) {
			if !p.dirty {
				continue
			}
			if err := insP.add(w.wid, p.tid, p.mid, int64(p.size), int64(p.cost), int64(p.fees), int64(p.avg),
				int64(p.bought), int64(p.realized), p.firstAt, p.lastAt, p.traded); err != nil {
				return err
			}
		}
		for _, p := range w.combos {
			if p.dirty {
				if err := insC.add(w.wid, p.tid, p.mid, int64(p.size), int64(p.cost), int64(p.fees), int64(p.avg),
					int64(p.payout), int64(p.realized), p.firstAt, p.lastAt); err != nil {
					return err
				}
			}
		}
	}
	for _, b := range []*bulk{insW, insP, insC} {
		if err := b.flush(); err != nil {
			return err
		}
	}
	markets, tokens := a.cat.changeable()
	for _, m := range markets {
		if !m.dirty {
			continue
		}
		payouts := ""
		if m.resolved {
			payouts = mustJSON(m.payouts)
		}
		legs := ""
		if m.isCombo {
			legs = mustJSON(m.legs)
		}
		if _, err := a.exec(`INSERT OR REPLACE INTO markets (mid, condition_id, market_id, question, slug,
			event_id, event_slug, event_title, category, neg_risk, end_date, icon, active, closed, archived, outcomes,
			is_combo, legs, resolved, payouts, resolved_at, volume, volume_usdc, last_trade_at)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
			m.mid, m.conditionID, m.marketID, m.question, m.slug, m.eventID, m.eventSlug, m.eventTitle, m.category,
			m.negRisk, m.endDate, m.icon, m.active, m.closed, m.archived, mustJSON(m.outcomes), m.isCombo, legs,
			m.resolved, payouts, m.resolvedAt, m.volume, m.volumeUSDC, m.lastTradeAt); err != nil {
			return err
		}
		m.dirty = false
	}
	for _, t := range tokens {
		if !t.dirty {
			continue
		}
		if _, err := a.exec(`INSERT OR REPLACE INTO tokens (tid, token_id, mid, idx, outcome, price, priced)
			VALUES (?, ?, ?, ?, ?, ?, ?)`, t.tid, t.tokenID, t.mid, t.idx, t.outcome, t.price, t.priced); err != nil {
			return err
		}
		t.dirty = false
		a.cat.bump(t.mid, true) // its mark moved (or it is new): positions and holders of the market
	}
	for code, b := range a.builders {
		if _, err := a.exec(`INSERT OR REPLACE INTO builders (code, name, profile_image, verified)
			VALUES (?, ?, ?, ?)`, code, b.Name, b.ProfileImage, b.Verified); err != nil {
			return err
		}
	}
	return nil
}

func sortedPositions(list []*position) []*position {
	out := append([]*position(nil), list...)
	sort.Slice(out, func(i, j int) bool { return out[i].tid < out[j].tid })
	return out
}
