package perps

import "pmx/internal/exchange/book"

// A modify is resolved and parsed in its command's step; the rest of its
// rules apply when it applies: in the same step, or, with Flight.ModifyMs >
// 0, when its pending window ends (pendmod.go). In-flight orders
// (inflight.go) refuse modifies with order_in_flight; an order with a
// pending modify refuses another with modify_already_pending.

func (m *Machine) modify(c *Command, ts int64, ev *Event) {
	a := m.accts[c.Account]
	if a == nil {
		ev.Err = "account not found for proxy"
		return
	}
	seen := map[uint64]bool{}
	ev.Items = make([]ItemResult, 0, len(c.Modifies))
	for _, r := range c.Modifies {
		ev.Items = append(ev.Items, m.modifyOne(a, &r, c.Kind == KModifyCOID, seen, ts, ev))
	}
}

func (m *Machine) modifyOne(a *Account, r *ModifyReq, byCOID bool, seen map[uint64]bool, ts int64, ev *Event) ItemResult {
	bad := func(e string) ItemResult { return ItemResult{Status: "err", OID: r.OID, COID: r.COID, Error: e} }
	var o *Order
	if byCOID {
		oid, ok := a.COIDs[r.COID]
		if !ok {
			return bad("order_unknown")
		}
		o = m.orders[oid]
	} else {
		o = m.orders[r.OID]
		if o == nil || o.Account != a.Addr || o.Terminal {
			return bad("order_not_in_orderbook")
		}
	}
	if e := modifyTPSL(o); e != "" { // tpsl.go
		return bad(e)
	}
	if o.Due > 0 {
		return bad("order_in_flight")
	}
	if seen[o.OID] {
		return bad("duplicate_order_in_batch")
	}
	seen[o.OID] = true
	if o.ModPend != 0 {
		return bad("modify_already_pending")
	}
	in := m.inst[o.IID]
	g := in.grid()
	p, err := g.ParsePrice(r.P)
	if err != nil || int64(p) >= in.Ticks {
		return bad("invalid_command")
	}
	q, err := g.ParseQty(r.Qty)
	if err != nil || int64(q) > book.MaxQty {
		return bad("invalid_command")
	}
	if m.fl.ModifyMs > 0 {
		return m.pendModify(o, r, int64(p), int64(q), ts)
	}
	return m.applyModify(o, r, int64(p), int64(q), ts, ev)
}

// applyModify applies the remaining modify rules to o, which the request r
// resolved to, and modifies it.
func (m *Machine) applyModify(o *Order, r *ModifyReq, ticks, lots int64, ts int64, ev *Event) ItemResult {
	bad := func(e string) ItemResult { return ItemResult{Status: "err", OID: r.OID, COID: r.COID, Error: e} }
	if o.Terminal || o.Due > 0 { // only a pending modify can find it so: it ended meanwhile
		return bad("order_not_in_orderbook")
	}
	if m.mode == ModeCancelOnly {
		return bad(ErrCancelOnlyMode)
	}
	in := m.inst[o.IID]
	if o.TIF != "gtc" || o.Ticks == 0 {
		return bad("order_not_modifiable")
	}
	if o.Modifies >= m.cfg.MaxModifies {
		return bad("modify_limit_reached")
	}
	if ticks == o.Ticks && lots == o.Lots {
		return bad("modify_no_op")
	}
	if lots <= o.Filled {
		return bad("modify_quantity_not_above_filled")
	}
	if lots > o.Lots { // more exposure: the checked-money bound (exposure.go)
		if w, ok := worst(in, lots-o.Lots); !ok || !m.fits(m.accts[o.Account], w, 0) {
			return bad(ErrValueRange)
		}
	}
	if o.Buy {
		if ask, _, ok := in.book.BestAsk(); ok && ticks >= ask {
			return bad("modify_would_cross")
		}
	} else if bid, _, ok := in.book.BestBid(); ok && ticks <= bid {
		return bad("modify_would_cross")
	}
	if e := m.modifyMargin(o, ticks, lots); e != "" {
		return bad(e)
	}
	bc := book.Command{Op: book.OpModify, Time: ts * 1e6, Book: in.ID, OID: o.OID, Price: ticks, Qty: lots}
	m.cur = in.ID
	m.bev = in.book.Apply(&bc, m.bev[:0])
	m.levelsChanged(in, ts, ev)
	for _, e := range m.bev {
		switch e.Kind {
		case book.EvRejected:
			return bad("invalid_command")
		case book.EvLevel:
			in.Sequence++
		}
	}
	o.Ticks, o.Lots, o.Updated = ticks, lots, ts
	o.Modifies++
	w := m.orderWire(o)
	ev.Orders = append(ev.Orders, w)
	return ItemResult{Status: "ok", Order: &w}
}

func (m *Machine) cancel(c *Command, ts int64, ev *Event) {
	a := m.accts[c.Account]
	if a == nil {
		ev.Err = "account not found for proxy"
		return
	}
	if c.Kind == KCancelCOID {
		ev.Items = make([]ItemResult, 0, len(c.COIDs))
		for _, coid := range c.COIDs {
			oid, ok := a.COIDs[coid]
			if !ok {
				oid, ok = m.legByCOID(a, coid) // a TP/SL leg (tpslattach.go)
			}
			if !ok && m.fl.COIDWaitMs > 0 { // its create may be racing this cancel (coidwait.go)
				ev.Items = append(ev.Items, m.waitCOID(a, coid, ts))
				continue
			}
			if !ok {
				ev.Items = append(ev.Items, ItemResult{Status: "err", COID: coid, Error: "order_unknown"})
				continue
			}
			ev.Items = append(ev.Items, m.cancelOne(a, oid, ts, ev))
		}
		return
	}
	ev.Items = make([]ItemResult, 0, len(c.OIDs))
	for _, oid := range c.OIDs {
		ev.Items = append(ev.Items, m.cancelOne(a, oid, ts, ev))
	}
}

func (m *Machine) cancelOne(a *Account, oid uint64, ts int64, ev *Event) ItemResult {
	o := m.orders[oid]
	if o == nil || o.Account != a.Addr {
		return ItemResult{Status: "err", OID: oid, Error: "order_not_found"}
	}
	if o.Terminal {
		return ItemResult{Status: "err", OID: oid, COID: o.COID, Error: "order_already_terminal"}
	}
	if o.TPSL != nil { // a TP/SL leg rests in no book (tpsl.go)
		m.endLeg(o, StCancelled, ts)
		m.flush(ev)
		return ItemResult{Status: "ok", OID: oid, COID: o.COID}
	}
	if o.Due > 0 {
		return m.cancelInFlight(o, ts, ev)
	}
	coid := o.COID
	in := m.inst[o.IID]
	m.runBook(in, &book.Command{Op: book.OpCancel, Time: ts * 1e6, Book: in.ID, OID: oid}, ts, ev)
	if !o.Terminal { // the book did not hold it: cannot happen while Open and the book agree
		return ItemResult{Status: "err", OID: oid, COID: coid, Error: "order_not_in_orderbook"}
	}
	return ItemResult{Status: "ok", OID: oid, COID: coid}
}

func (m *Machine) cancelAll(c *Command, ts int64, ev *Event) {
	a := m.accts[c.Account]
	if a == nil {
		ev.Err = "account not found for proxy"
		return
	}
	for _, oid := range m.sortedOpen(a) {
		if o := m.orders[oid]; c.IID == 0 || o.IID == c.IID {
			m.cancelOne(a, oid, ts, ev)
		}
	}
	m.cancelLegs(a, c.IID, ts, ev)
}
