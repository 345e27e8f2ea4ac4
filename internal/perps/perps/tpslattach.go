package perps

// TP/SL details of perps.md §9.3 beyond the bracket and position groups
// (docs/perps-margin.md "TP/SL"): legs attached to a resting order by
// parent_oid, the market exit's slippage limit, legs that expire, and legs
// found by client order id.

// MaxSlipBps bounds tr.slip_bps (perps.md §9.3: 0–10000).
const MaxSlipBps = 10_000

// attachTPSL places grp "order" without an entry: one TP and/or one SL,
// each naming the same resting order of the account in tr.parent_oid.
// They join it as if sent with it (untriggered, sized to its quantity,
// armed when it fills in full, parent_cancelled when it ends otherwise).
// A refusal answers every item with the same identifier.
func (m *Machine) attachTPSL(a *Account, rs []OrderReq, ts int64, ev *Event) {
	all := func(e string) {
		for i := range rs {
			ev.Acks = append(ev.Acks, Ack{Status: "err", Error: e, COID: rs[i].C})
		}
	}
	if len(rs) > 2 {
		all("invalid_command")
		return
	}
	kinds := map[string]bool{}
	var legs []legSpec
	for i := range rs {
		l := m.parseLeg(&rs[i], "attach")
		if l.errStr == "" && (kinds[l.kind] || rs[i].TrParent != rs[0].TrParent) {
			l.errStr = "invalid_command"
		}
		if l.errStr == "" && m.legCOIDInUse(a, rs[i].C) {
			l.errStr = "duplicate_order"
		}
		if l.errStr != "" {
			all(l.errStr)
			return
		}
		kinds[l.kind] = true
		legs = append(legs, l)
	}
	p := m.orders[rs[0].TrParent]
	switch {
	case p == nil || p.Account != a.Addr:
		all("order_not_found")
		return
	case p.Terminal:
		all("order_already_terminal")
		return
	case p.TPSL != nil || p.Leg != 0 || len(p.Legs) > 0:
		all(ErrOrderHasTPSL)
		return
	case p.Due > 0 || p.Risk:
		all("order_in_flight")
		return
	}
	for _, l := range legs {
		if l.r.IID != p.IID || l.r.Buy == p.Buy {
			all("invalid_command")
			return
		}
	}
	m.newLegs = legs
	m.attachLegs(a, p, ts)
	m.newLegs = nil
	for _, id := range p.Legs {
		l := m.orders[id]
		l.TPSL.Attached = true
		ev.Acks = append(ev.Acks, Ack{Status: "ok", OID: id, COID: l.COID})
	}
	m.flush(ev)
}

// slipLimit is the limit price of a market exit of side buy with slip bps
// at mark: mark·(1 ∓ slip/10⁴) rounded towards the mark, never past the
// price band (the instrument's default and cap), never off the grid.
func (m *Machine) slipLimit(in *Instrument, buy bool, slip, mark int64) int64 {
	edge := m.bandEdge(in, buy) // 0: no band
	if buy {
		x := mark * (10_000 + slip) / 10_000 // mark < book.MaxTicks: fits
		if edge > 0 {
			x = min(x, edge)
		}
		return max(min(x, in.Ticks-1), 1)
	}
	x := (mark*(10_000-slip) + 9_999) / 10_000
	if edge > 0 {
		x = max(x, edge)
	}
	return max(x, 1)
}

// expireLegs ends every live leg on in as expired (settlement: the
// instrument trades no more, so no trigger can fire).
func (m *Machine) expireLegs(in *Instrument, ts int64, ev *Event) {
	for aid := uint64(1); aid < m.nextAcct; aid++ {
		a := m.byID[aid]
		if a == nil || len(m.legsOf[a.Addr]) == 0 {
			continue
		}
		for _, id := range m.liveLegs(a) {
			if l := m.orders[id]; l.IID == in.ID {
				m.endLeg(l, StExpired, ts)
			}
		}
	}
	m.flush(ev)
}

// legByCOID finds a's live leg with client order id coid.
func (m *Machine) legByCOID(a *Account, coid string) (uint64, bool) {
	for _, id := range m.legsOf[a.Addr] {
		if m.orders[id].COID == coid {
			return id, true
		}
	}
	return 0, false
}

// legCOIDInUse: a new leg's coid is taken by an open order or a live leg
// of a (cancel by coid must name one order).
func (m *Machine) legCOIDInUse(a *Account, coid string) bool {
	if coid == "" {
		return false
	}
	if _, ok := a.COIDs[coid]; ok {
		return true
	}
	_, ok := m.legByCOID(a, coid)
	return ok
}
