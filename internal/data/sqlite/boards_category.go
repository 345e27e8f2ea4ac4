package sqlite

import (
	"context"
	"strings"

	"pmx/internal/amount"
	"pmx/internal/data/store"
)

// categoryStandings: a market category's board counts the wallet's fills in
// that category's markets within the window (volume) and the PnL of its
// positions there: lifetime realized for all; for a finite window, realized
// plus unrealized at current marks of the positions with an event in the
// window (the store keeps no per-position history, so a category board
// attributes a position's whole PnL to the window of its last event).
// combos: combo positions likewise (no volume: combo fills are not board
// volume).
func (db *DB) categoryStandings(ctx context.Context, cat *catalog, start int64, all bool, category string) (map[int64]*lbRow, error) {
	rows := map[int64]*lbRow{}
	row := func(wid int64) *lbRow {
		r := rows[wid]
		if r == nil {
			r = &lbRow{wid: wid}
			rows[wid] = r
		}
		return r
	}
	addPos := func(wid int64, t *token, size, cost, realized amount.Micro, lastAt int64, mark amount.Micro) {
		switch {
		case all:
			row(wid).pnl += realized
		case lastAt >= start:
			row(wid).pnl += realized + amount.Mul(size, mark) - cost
		}
	}
	if category == store.CategoryCombos {
		q, err := db.r.QueryContext(ctx, `SELECT wid, tid, size, cost, realized, updated_at FROM combo_positions`)
		if err != nil {
			return nil, err
		}
		defer q.Close()
		for q.Next() {
			var wid, tid, lastAt int64
			var size, cost, realized amount.Micro
			if err := q.Scan(&wid, &tid, &size, &cost, &realized, &lastAt); err != nil {
				return nil, err
			}
			t := cat.byTid[tid]
			if t == nil || cat.byMid[t.mid] == nil {
				continue
			}
			mark := amount.Micro(0)
			if size > 0 {
				mark = amount.Div(cost, size) // unresolved: at cost (no combo price feed)
			}
			if st := cat.comboState(cat.byMid[t.mid]); st.resolved {
				mark = st.payoff(t.idx)
			}
			addPos(wid, t, size, cost, realized, lastAt, mark)
		}
		return rows, q.Err()
	}
	var mids []int64
	for _, m := range cat.byMid {
		if !m.isCombo && strings.EqualFold(m.category, category) {
			mids = append(mids, m.mid)
		}
	}
	if len(mids) == 0 {
		return rows, nil
	}
	var w where
	w.in("mid", mids)
	q, err := db.r.QueryContext(ctx, `SELECT wid, tid, size, cost, realized, last_at FROM positions WHERE `+w.sql())
	if err != nil {
		return nil, err
	}
	for q.Next() {
		var wid, tid, lastAt int64
		var size, cost, realized amount.Micro
		if err := q.Scan(&wid, &tid, &size, &cost, &realized, &lastAt); err != nil {
			q.Close()
			return nil, err
		}
		if t := cat.byTid[tid]; t != nil {
			addPos(wid, t, size, cost, realized, lastAt, cat.mark(t))
		}
	}
	q.Close()
	if err := q.Err(); err != nil {
		return nil, err
	}
	var tw where
	tw.in("t.mid", mids)
	q, err = db.r.QueryContext(ctx, `SELECT t.wid, m.wid, t.size FROM activity t
		JOIN activity m ON m.seq = t.seq + 1
		WHERE `+tw.sql()+` AND t.type = 0 AND t.taker = 1 AND t.ts >= ?`, start)
	if err != nil {
		return nil, err
	}
	defer q.Close()
	for q.Next() {
		var taker, maker int64
		var size amount.Micro
		if err := q.Scan(&taker, &maker, &size); err != nil {
			return nil, err
		}
		row(taker).volume += size
		row(maker).volume += size
	}
	return rows, q.Err()
}
