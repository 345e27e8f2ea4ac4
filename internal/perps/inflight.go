package perps

import "pmx/internal/book"

// In-flight orders (the contract's state table, "accept in flight" and
// "taker delay"), modelled in engine time so they replay exactly:
//
//   - With Config.AcceptDelayMs > 0 an accepted order (validated and
//     risk-checked in its createOrders step, acknowledged "ok") enters the
//     book only at Due = ts + AcceptDelayMs: the accept is in flight. A
//     cancel then is held (Held; at most one: a second one is
//     order_not_pending_engine), or refused with order_in_flight when held
//     cancels are disabled. When the accept completes the order enters the
//     book (and may match); a held cancel is applied right after: success if
//     the order still rests, order_already_terminal if it filled or was
//     rejected first (HeldResult).
//   - With Config.TakerDelayMs > 0 an order that would match on entry waits
//     that much longer outside the book (Taker); a cancel or modify then is
//     order_in_flight.
//   - "Awaiting risk checks" has zero length: the risk check runs in the
//     createOrders step, before the order has an id anyone could cancel.
//
// Due orders are processed at the start of every Apply whose ts reaches their
// Due (in Due, then oid order); the server submits KTick commands so they do
// not wait for unrelated traffic. Invariant: an order with Due > 0 is open,
// not terminal, in Account.Open, in m.pend, and not in its book.

// KTick is a no-op command whose only effect is processing due orders.
const KTick = "tick"

// pendingEntry reports whether o must wait before entering the book, and
// marks it so.
func (m *Machine) pendingEntry(in *Instrument, o *Order, ts int64) bool {
	switch {
	case m.cfg.AcceptDelayMs > 0:
		o.Due = ts + m.cfg.AcceptDelayMs
	case m.wouldMatch(in, o):
		o.Due, o.Taker = ts+m.cfg.TakerDelayMs, true
	default:
		return false
	}
	m.pend = append(m.pend, o.OID)
	return true
}

// wouldMatch: taker delay applies and o would trade on entry.
func (m *Machine) wouldMatch(in *Instrument, o *Order) bool {
	if m.cfg.TakerDelayMs <= 0 || o.PostOnly {
		return false
	}
	if o.Buy {
		a, _, ok := in.book.BestAsk()
		return ok && (o.Ticks == 0 || o.Ticks >= a)
	}
	b, _, ok := in.book.BestBid()
	return ok && (o.Ticks == 0 || o.Ticks <= b)
}

// NextDue is the earliest Due of an in-flight order (0: none).
func (m *Machine) NextDue() int64 {
	var d int64
	for _, oid := range m.pend {
		if o := m.orders[oid]; d == 0 || o.Due < d {
			d = o.Due
		}
	}
	return d
}

// processDue completes every in-flight step due at ts.
func (m *Machine) processDue(ts int64, ev *Event) {
	for len(m.pend) > 0 {
		best := -1
		for i, oid := range m.pend {
			o := m.orders[oid]
			if o.Due > ts {
				continue
			}
			if b := m.orders[m.pend[max(best, 0)]]; best < 0 || o.Due < b.Due || o.Due == b.Due && o.OID < b.OID {
				best = i
			}
		}
		if best < 0 {
			return
		}
		o := m.orders[m.pend[best]]
		m.pend = append(m.pend[:best], m.pend[best+1:]...)
		in := m.inst[o.IID]
		if !o.Taker && !o.Held && m.wouldMatch(in, o) { // accept done; now the taker delay
			o.Due, o.Taker = o.Due+m.cfg.TakerDelayMs, true
			m.pend = append(m.pend, o.OID)
			continue
		}
		o.Due, o.Taker = 0, false
		m.enter(in, o, ts, ev)
		if o.Held {
			o.Held = false
			o.HeldResult = "order_already_terminal"
			if !o.Terminal {
				m.runBook(in, &book.Command{Op: book.OpCancel, Time: ts * 1e6, Book: in.ID, OID: o.OID}, ts, ev)
				o.HeldResult = "ok"
			}
		}
	}
}

// cancelInFlight answers a cancel of an in-flight order.
func (m *Machine) cancelInFlight(o *Order) ItemResult {
	r := ItemResult{Status: "err", OID: o.OID, COID: o.COID}
	switch {
	case o.Taker || m.cfg.NoHeldCancels:
		r.Error = "order_in_flight"
	case o.Held:
		r.Error = "order_not_pending_engine"
	default:
		o.Held = true
		r.Status, r.Error, r.Due = StatusHeld, "", o.Due
	}
	return r
}

// StatusHeld is the internal ItemResult status of a held cancel: the caller
// waits until Due, lets the accept complete (any command, e.g. KTick) and
// reads the outcome with HeldOutcome. It never reaches a client.
const StatusHeld = "held"

// HeldOutcome is the final result of a held cancel of oid: "" while the
// accept is still in flight, else "ok" or "order_already_terminal".
func (m *Machine) HeldOutcome(oid uint64) string {
	if o := m.orders[oid]; o != nil && o.Due == 0 {
		return o.HeldResult
	}
	return ""
}

// InFlight reports an order's in-flight state: when its current step
// completes (0: not in flight) and whether a cancel is held.
func (m *Machine) InFlight(oid uint64) (due int64, held bool) {
	if o := m.orders[oid]; o != nil {
		return o.Due, o.Held
	}
	return 0, false
}
