package book_test

import (
	"fmt"

	"pmx/internal/exchange/book"
)

// auditor rebuilds every order's life from the event log alone and checks
// it against the book after each command: the invariants of anchors §3.5.
type auditor struct {
	orders  map[uint64]*tracked
	stamp   uint64 // queue-arrival counter for FIFO checks
	bought  int64  // sum of fills on the book's buy side
	sold    int64
	cmdTime int64
}

type tracked struct {
	orig, filled int64
	price        int64 // book terms; 0 for market
	side         book.Side
	market       bool
	tif          book.TIF
	stamp        uint64
	rested       bool
}

func newAuditor() *auditor { return &auditor{orders: map[uint64]*tracked{}} }

func (a *auditor) fill(side book.Side, q int64) {
	if side == book.Buy {
		a.bought += q
	} else {
		a.sold += q
	}
}

// apply checks one command's events and updates the model.
func (a *auditor) apply(c *book.Command, evs []book.Event) error {
	var taker *tracked
	for i, e := range evs {
		if e.Kind != book.EvRejected && (e.Qty < 0 || e.Price < 0) {
			return fmt.Errorf("event %d %v: negative field %+v", i, e.Kind, e)
		}
		o := a.orders[e.OID]
		switch e.Kind {
		case book.EvAccepted:
			if c.Op != book.OpAdd || e.OID != c.OID || i != 0 {
				return fmt.Errorf("accepted out of place: %+v", e)
			}
			if o != nil {
				return fmt.Errorf("accepted a live OID %d", e.OID)
			}
			if e.Qty <= 0 || e.Qty > c.Qty {
				return fmt.Errorf("accepted qty %d for command qty %d", e.Qty, c.Qty)
			}
			taker = &tracked{orig: e.Qty, price: e.Price, side: e.Side, market: c.Flags&book.Market != 0, tif: c.TIF}
			a.orders[e.OID] = taker
		case book.EvRejected:
			if len(evs) != 1 {
				return fmt.Errorf("rejection with other events: %+v", evs)
			}
		case book.EvTrade:
			m := a.orders[e.Maker]
			if o == nil || o != taker || m == nil || !m.rested {
				return fmt.Errorf("trade with a dead or unknown order: %+v", e)
			}
			if e.Qty <= 0 || e.Qty > o.orig-o.filled || e.Qty > m.orig-m.filled {
				return fmt.Errorf("trade qty %d exceeds remaining (taker %d, maker %d)", e.Qty, o.orig-o.filled, m.orig-m.filled)
			}
			if e.Price != m.price || m.side == o.side {
				return fmt.Errorf("trade %+v not at maker price %d / opposite sides", e, m.price)
			}
			if !o.market && !crossesP(o.side, o.price, e.Price) {
				return fmt.Errorf("trade %+v beyond taker limit %d", e, o.price)
			}
			o.filled += e.Qty
			m.filled += e.Qty
			a.fill(o.side, e.Qty)
			a.fill(m.side, e.Qty)
			if m.filled == m.orig {
				delete(a.orders, e.Maker)
			}
		case book.EvCancelled:
			if o == nil || !o.rested || e.Qty != o.orig-o.filled {
				return fmt.Errorf("cancelled %+v does not match model %+v", e, o)
			}
			delete(a.orders, e.OID)
		case book.EvExpired:
			if o == nil || o != taker || e.Qty != o.orig-o.filled || e.Qty == 0 {
				return fmt.Errorf("expired %+v does not match model %+v", e, o)
			}
			delete(a.orders, e.OID)
			taker = nil
		case book.EvModified:
			if o == nil || !o.rested || e.Qty <= o.filled {
				return fmt.Errorf("modified %+v does not match model %+v", e, o)
			}
			if e.Price != o.price || e.Qty > o.orig {
				a.stamp++
				o.stamp = a.stamp // loses priority
			}
			o.price, o.orig = e.Price, e.Qty
		case book.EvLevel:
		default:
			return fmt.Errorf("unknown event %+v", e)
		}
	}
	if taker != nil && a.orders[c.OID] == taker {
		switch {
		case taker.filled == taker.orig:
			delete(a.orders, c.OID)
		case taker.tif != book.GTC || taker.market:
			return fmt.Errorf("%v order %d left with %d unfilled and no expiry", taker.tif, c.OID, taker.orig-taker.filled)
		default:
			a.stamp++
			taker.rested, taker.stamp = true, a.stamp
		}
	}
	return nil
}

func crossesP(side book.Side, limit, p int64) bool {
	if side == book.Buy {
		return p <= limit
	}
	return p >= limit
}

// check compares the model with the book's state.
func (a *auditor) check(ob book.OrderBook) error {
	if a.bought != a.sold {
		return fmt.Errorf("bought %d != sold %d", a.bought, a.sold)
	}
	if bp, _, ok := ob.BestBid(); ok {
		if ap, _, ok := ob.BestAsk(); ok && bp >= ap {
			return fmt.Errorf("crossed book: bid %d ask %d", bp, ap)
		}
	}
	if ob.Len() != len(a.orders) {
		return fmt.Errorf("book has %d orders, model %d", ob.Len(), len(a.orders))
	}
	var err error
	var prev book.OrderInfo
	var prevStamp uint64
	first := true
	ob.Orders(func(o book.OrderInfo) bool {
		t := a.orders[o.OID]
		switch {
		case t == nil:
			err = fmt.Errorf("book holds order %d the log says is dead", o.OID)
		case o.Orig != t.orig || o.Filled != t.filled || o.Price != t.price || o.Side != t.side:
			err = fmt.Errorf("order %d: book %+v model %+v", o.OID, o, *t)
		case o.Filled < 0 || o.Remaining() <= 0:
			err = fmt.Errorf("order %d: filled %d remaining %d", o.OID, o.Filled, o.Remaining())
		case !first && prev.Side == o.Side && prev.Price == o.Price && prevStamp >= t.stamp:
			err = fmt.Errorf("FIFO broken at price %d: %d before %d", o.Price, prev.OID, o.OID)
		case !first && prev.Side == o.Side && (o.Side == book.Buy && o.Price > prev.Price || o.Side == book.Sell && o.Price < prev.Price):
			err = fmt.Errorf("price priority broken: %d then %d", prev.Price, o.Price)
		}
		if err != nil {
			return false
		}
		prev, prevStamp, first = o, t.stamp, false
		return true
	})
	return err
}
