package sqlite

import (
	"context"
	"slices"
	"sort"
	"unsafe"

	"pmx/internal/amount"
	"pmx/internal/data/store"
)

// Trades implements store.Store: the wallet shape from the hot read model
// (hot.go), the market and global shapes through SQL (tradesSQL).
func (db *DB) Trades(ctx context.Context, p store.TradesParams) (store.Page[store.Trade, store.FeedKey], error) {
	if p.User == "" || db.dia.Follower {
		return db.tradesSQL(ctx, p)
	}
	var none store.Page[store.Trade, store.FeedKey]
	h := &db.hot
	h.mu.RLock()
	cat := db.cat.Load()
	f := hotFilter{typeMask: 1 << actTrade, eids: p.EventIDs, side: sideCode(p.Side), hasSide: p.Side != "", cash: p.FilterType == store.FilterCash,
		min: p.FilterAmount, takers: 1 << rowTaker}
	if f.min <= 0 {
		f.min = store.DefaultTradeFilter
	}
	if p.IncludeMaker {
		f.takers |= 1 << rowMaker
	}
	if len(p.Conditions) > 0 {
		if f.mids = cat.mids(p.Conditions); len(f.mids) == 0 {
			h.mu.RUnlock()
			return none, nil
		}
	}
	w := h.byAddr[p.User]
	if w == nil {
		h.mu.RUnlock()
		return none, nil
	}
	rows := w.page(h.oddTx, &f, p.Window, false, p.After, p.Limit+1)
	enr := h.enr // immutable, built for cat
	h.mu.RUnlock()
	return pageOf(tradeRows(enr, rows), feedKeys(rows), p.Limit), nil
}

// Activity implements store.Store from the hot read model (every shape is a
// wallet's; activitySQL is the same query through SQL).
func (db *DB) Activity(ctx context.Context, p store.ActivityParams) (store.Page[store.Activity, store.FeedKey], error) {
	if db.dia.Follower {
		return db.activitySQL(ctx, p)
	}
	var none store.Page[store.Activity, store.FeedKey]
	h := &db.hot
	h.mu.RLock()
	cat := db.cat.Load()
	w := h.byAddr[p.User]
	if w == nil {
		h.mu.RUnlock()
		return none, nil
	}
	f := hotFilter{eids: p.EventIDs, side: sideCode(p.Side), hasSide: p.Side != "", takers: ^uint8(0)}
	for _, t := range activityTypeCodes(p.Types, p.IncludeDepositsWithdrawals) {
		f.typeMask |= 1 << t
	}
	if f.typeMask == 0 {
		h.mu.RUnlock()
		return none, nil
	}
	if len(p.Conditions) > 0 {
		if f.mids = cat.mids(p.Conditions); len(f.mids) == 0 {
			h.mu.RUnlock()
			return none, nil
		}
	}
	rows := w.page(h.oddTx, &f, p.Window, p.Ascending, p.After, p.Limit+1)
	enr := h.enr // immutable, built for cat
	h.mu.RUnlock()
	return pageOf(activityRows(enr, rows), feedKeys(rows), p.Limit), nil
}

// hotFilter is the WHERE clause of the SQL wallet feeds.
type hotFilter struct {
	typeMask uint32 // bit t: activity type t wanted
	takers   uint8  // bit k: activity.taker value k wanted (trades: taker, maker)
	mids     []int64
	eids     []int64
	side     int // wanted side code, if hasSide
	hasSide  bool
	cash     bool
	min      amount.Micro // trades only: size (or usdc when cash) at least this; 0 = no floor
}

func (f *hotFilter) keep(r *hotRow) bool {
	if f.typeMask&(1<<r.typ) == 0 || f.takers&(1<<r.taker) == 0 {
		return false
	}
	if f.hasSide && int(r.side) != f.side {
		return false
	}
	if f.min > 0 {
		v := r.size
		if f.cash {
			v = r.usdc
		}
		if v < f.min {
			return false
		}
	}
	return (len(f.mids) == 0 || slices.Contains(f.mids, int64(r.mid))) && (len(f.eids) == 0 || slices.Contains(f.eids, r.eid))
}

// page returns at most n rows of w that pass f, inside the inclusive window
// (0 = unbounded) and strictly after the seek key in the walk direction,
// with the wallet's profile: the SQL feed's answer (feeds.go, feed).
func (w *hotWallet) page(oddTx []string, f *hotFilter, win store.Window, asc bool, after *store.FeedKey, n int) []feedRow {
	lo, hi := win.Start, win.End
	if hi == 0 {
		hi = 1<<63 - 1
	}
	rs := w.rows
	// [from, to) is the window; the key narrows it further.
	from := sort.Search(len(rs), func(i int) bool { return rs[i].ts >= lo })
	to := sort.Search(len(rs), func(i int) bool { return rs[i].ts > hi })
	if after != nil {
		k := sort.Search(len(rs), func(i int) bool { return !rs[i].before(after.Timestamp, after.Seq) })
		if asc {
			if k < len(rs) && rs[k].ts == after.Timestamp && rs[k].seq == after.Seq {
				k++
			}
			from = max(from, k)
		} else {
			to = min(to, k)
		}
	}
	out := make([]feedRow, 0, max(0, min(n, to-from)))
	// The page's tx hashes as text, in one allocation: each row's string
	// points into it. Invariant: txt never grows past its capacity (a
	// canonical hash is 66 bytes; an odd one gets its own string), so the
	// strings already handed out stay valid.
	txt := make([]byte, 0, 66*cap(out))
	emit := func(r *hotRow) {
		var tx string
		if r.txOdd != 0 {
			tx = oddTx[r.txOdd-1]
		} else {
			k := len(txt)
			txt = r.appendTx(txt, nil)
			tx = unsafe.String(&txt[k], 66)
		}
		out = append(out, feedRow{seq: r.seq, ts: r.ts, mid: int64(r.mid), tid: int64(r.tid), typ: int(r.typ),
			side: int(r.side), size: r.size, usdc: r.usdc, price: r.price, tx: tx, addr: w.prof.addr,
			name: w.prof.name, pseudo: w.prof.pseudo, bio: w.prof.bio, image: w.prof.image})
	}
	if asc {
		for i := from; i < to && len(out) < n; i++ {
			if f.keep(&rs[i]) {
				emit(&rs[i])
			}
		}
	} else {
		for i := to - 1; i >= from && len(out) < n; i-- {
			if f.keep(&rs[i]) {
				emit(&rs[i])
			}
		}
	}
	return out
}
