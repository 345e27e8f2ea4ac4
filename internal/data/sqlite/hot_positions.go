package sqlite

import (
	"context"
	"slices"
	"sort"
	"sync"

	"pmx/internal/amount"
)

// hotPos is one row of the positions table (without wid) in the hot model;
// a hotWallet keeps them sorted by tid, as the table's primary key.
type hotPos struct {
	tid, mid         int64
	size, cost, fees amount.Micro
	avg, bought      amount.Micro
	realized         amount.Micro
	firstAt, lastAt  int64
}

// posRowBuf is the scratch rows of one Positions call: a busy wallet has
// hundreds of positions, and allocating (and zeroing) their rows on every
// request was a large share of the route's garbage. Pooled; nothing keeps
// a pointer into it after the call (the page copies into store.Position).
type posRowBuf struct {
	rows []posRow
	ptrs []*posRow
}

var posRowPool = sync.Pool{New: func() any { return new(posRowBuf) }}

// hotPositionRows returns the user's positions as Positions' SQL scan would
// (unfiltered; the caller applies the market filters), in buf, and the
// catalog published with them; ok is false for an unknown wallet.
func (db *DB) hotPositionRows(user string, buf *posRowBuf) (*catalog, []*posRow, bool) {
	h := &db.hot
	h.mu.RLock()
	defer h.mu.RUnlock()
	cat := db.cat.Load()
	w := h.byAddr[user]
	if w == nil {
		return cat, nil, false
	}
	n := len(w.pos)
	if cap(buf.rows) < n {
		buf.rows, buf.ptrs = make([]posRow, n), make([]*posRow, n)
	}
	rows, out := buf.rows[:n], buf.ptrs[:n]
	for i := range w.pos {
		hp := &w.pos[i]
		rows[i] = posRow{wid: w.prof.wid, tid: hp.tid, mid: hp.mid, size: hp.size, cost: hp.cost, fees: hp.fees,
			avg: hp.avg, bought: hp.bought, realized: hp.realized, firstAt: hp.firstAt, lastAt: hp.lastAt,
			addr: w.prof.addr, name: w.prof.name, image: w.prof.image, verified: w.verified}
		out[i] = &rows[i]
	}
	return cat, out, true
}

// inAll reports whether mid is in every list.
func inAll(sets [][]int64, mid int64) bool {
	for _, s := range sets {
		if !slices.Contains(s, mid) {
			return false
		}
	}
	return true
}

// loadHotPositions reads the positions table (Open, after loadHot).
func (db *DB) loadHotPositions(ctx context.Context) error {
	rows, err := db.r.QueryContext(ctx, `SELECT wid, tid, mid, size, cost, fees, avg, bought, realized, first_at, last_at
		FROM positions ORDER BY wid, tid`)
	if err != nil {
		return err
	}
	defer rows.Close()
	var last *hotWallet
	for rows.Next() {
		var wid, size, cost, fees, avg, bought, realized int64
		var p hotPos
		if err := rows.Scan(&wid, &p.tid, &p.mid, &size, &cost, &fees, &avg, &bought, &realized, &p.firstAt,
			&p.lastAt); err != nil {
			return err
		}
		p.size, p.cost, p.fees, p.avg = amount.Micro(size), amount.Micro(cost), amount.Micro(fees), amount.Micro(avg)
		p.bought, p.realized = amount.Micro(bought), amount.Micro(realized)
		if last == nil || last.prof.wid != wid {
			if last = db.hot.byWid[wid]; last == nil {
				last = &hotWallet{prof: walletProf{wid: wid}}
				db.hot.byWid[wid] = last
			}
		}
		last.pos = append(last.pos, p)
	}
	return rows.Err()
}

// publishPositions copies the positions Apply wrote (the dirty ones: new or
// changed rows, INSERT OR REPLACE in writeBack) into hw, keeping tid order.
// Called by publish under the write lock.
func publishPositions(hw *hotWallet, w *wallet) {
	for _, p := range w.list {
		if !p.dirty {
			continue
		}
		hp := hotPos{tid: p.tid, mid: p.mid, size: p.size, cost: p.cost, fees: p.fees, avg: p.avg, bought: p.bought,
			realized: p.realized, firstAt: p.firstAt, lastAt: p.lastAt}
		i := sort.Search(len(hw.pos), func(i int) bool { return hw.pos[i].tid >= p.tid })
		if i < len(hw.pos) && hw.pos[i].tid == p.tid {
			hw.pos[i] = hp
			continue
		}
		hw.pos = append(hw.pos, hotPos{})
		copy(hw.pos[i+1:], hw.pos[i:])
		hw.pos[i] = hp
	}
}
