package perps

import "pmx/internal/exchange/book"

// In-flight orders (the contract's cancel state table: "awaiting risk
// checks", "accept in flight" and "taker delay"), modelled in engine time so
// they replay exactly. The windows are the machine's Flight (state, changed
// by KConfig):
//
//   - With RiskMs > 0 an order that passes its static validation gets its oid
//     and an "ok" ack but awaits risk checks (Risk) until ts + RiskMs. Then
//     the checks that can change with time run (close-only, margin): a
//     failure ends the order with the check's identifier as its status;
//     otherwise it proceeds as if placed at that moment (accept delay, taker
//     delay or the book). A cancel meanwhile removes it at once (cancelled,
//     never in the book) unless the account is liquidating (order_in_flight).
//     An order awaiting risk checks reserves no margin.
//   - With AcceptMs > 0 an accepted order enters the book only at Due: the
//     accept is in flight. A cancel then is held (Held; at most one: a second
//     one is order_not_pending_engine), or refused with order_in_flight when
//     held cancels are disabled, the exchange is cancel-only or the account
//     is liquidating. When the accept completes the order enters the book
//     (and may match); a held cancel is applied right after: success if the
//     order still rests, order_already_terminal if it filled or was rejected
//     first (HeldResult).
//   - With TakerMs > 0 an order that would match on entry waits that much
//     longer outside the book (Taker); a cancel or modify then is
//     order_in_flight.
//   - Modify of an order in any of these steps is order_in_flight; with
//     ModifyMs > 0 modifies themselves are pending (pendmod.go).
//
// Due steps are processed at the start of every Apply whose ts reaches them
// (by Due; orders before modifies; then id); the server submits KTick
// commands so they do not wait for unrelated traffic. A step's successor is
// timed from the step's Due, not from when it was processed. Invariant: an
// order with Due > 0 is open, not terminal, in Account.Open, in m.pend and
// not in its book; Risk and Taker are never both set.

// KTick is a no-op command whose only effect is processing due steps.
const KTick = "tick"

// pendingEntry reports whether o, accepted (risk-checked) at ts, must wait
// before entering the book, and marks it so.
func (m *Machine) pendingEntry(in *Instrument, o *Order, ts int64) bool {
	switch {
	case m.fl.AcceptMs > 0:
		o.Due = ts + m.fl.AcceptMs
	case m.wouldMatch(in, o):
		o.Due, o.Taker = ts+m.fl.TakerMs, true
	default:
		return false
	}
	m.pend = append(m.pend, o.OID)
	return true
}

// wouldMatch: taker delay applies and o would trade on entry.
func (m *Machine) wouldMatch(in *Instrument, o *Order) bool {
	if m.fl.TakerMs <= 0 || o.PostOnly {
		return false
	}
	if o.Buy {
		a, _, ok := in.book.BestAsk()
		return ok && (o.Ticks == 0 || o.Ticks >= a)
	}
	b, _, ok := in.book.BestBid()
	return ok && (o.Ticks == 0 || o.Ticks <= b)
}

// NextDue is the earliest Due of an in-flight order or pending modify (0:
// none).
func (m *Machine) NextDue() int64 {
	var d int64
	for _, oid := range m.pend {
		if o := m.orders[oid]; d == 0 || o.Due < d {
			d = o.Due
		}
	}
	for _, c := range [2]int64{m.mods.nextDue(), m.ccs.nextDue()} {
		if c > 0 && (d == 0 || c < d) {
			d = c
		}
	}
	return d
}

// processDue completes every in-flight step due at ts. Cancels waiting for
// a racing create end first: a create applied at their due time is too late.
func (m *Machine) processDue(ts int64, ev *Event) {
	if len(m.ccs.pend) > 0 {
		m.dueCOIDWaits(ts)
	}
	for {
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
		mi := m.mods.first()
		if mi >= 0 && m.mods.pend[mi].Due > ts {
			mi = -1
		}
		switch {
		case best < 0 && mi < 0:
			return
		case best < 0 || mi >= 0 && m.mods.pend[mi].Due < m.orders[m.pend[best]].Due:
			m.applyPending(mi, ts, ev)
			continue
		}
		o := m.orders[m.pend[best]]
		m.pend = append(m.pend[:best], m.pend[best+1:]...)
		in := m.inst[o.IID]
		if o.Risk {
			m.riskStep(in, o, ts, ev)
			continue
		}
		if !o.Taker && !o.Held && m.wouldMatch(in, o) { // accept done; now the taker delay
			o.Due, o.Taker = o.Due+m.fl.TakerMs, true
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

// riskStep runs the deferred risk checks of o (just taken off m.pend): a
// failure ends it, else it proceeds as if accepted at its Due.
func (m *Machine) riskStep(in *Instrument, o *Order, ts int64, ev *Event) {
	at, a, st := o.Due, m.accts[o.Account], ""
	if in.Settled {
		st = StSettled
	} else if in.CloseOnly && !o.Reduce {
		st = StCloseOnly
	} else {
		st = m.RiskCheck(a, in, o.Buy, o.Ticks, o.Lots, o.Reduce) // o.Risk still set: o reserves nothing yet
	}
	o.Due, o.Risk = 0, false
	if st != "" {
		m.finish(o, st, ts)
		m.touch(o)
		m.flush(ev)
		return
	}
	if m.pendingEntry(in, o, at) {
		m.touch(o)
		m.flush(ev)
		return
	}
	m.enter(in, o, ts, ev)
}

// dropPending takes oid off m.pend.
func (m *Machine) dropPending(oid uint64) {
	for i, id := range m.pend {
		if id == oid {
			m.pend = append(m.pend[:i], m.pend[i+1:]...)
			return
		}
	}
}

// cancelInFlight answers a cancel of an in-flight order (the contract's
// cancel state table, row by row).
func (m *Machine) cancelInFlight(o *Order, ts int64, ev *Event) ItemResult {
	r := ItemResult{Status: "err", OID: o.OID, COID: o.COID}
	liq := m.scopeLiquidating(o)
	switch {
	case o.Risk && liq:
		r.Error = "order_in_flight"
	case o.Risk: // removed before it ever reaches the book
		m.dropPending(o.OID)
		o.Due, o.Risk = 0, false
		m.finish(o, StCancelled, ts)
		m.touch(o)
		m.flush(ev)
		r.Status = "ok"
	case o.Taker:
		r.Error = "order_in_flight"
	case o.Held:
		r.Error = "order_not_pending_engine"
	case m.fl.NoHeldCancels || m.mode == ModeCancelOnly || liq:
		r.Error = "order_in_flight"
	default:
		o.Held = true
		r.Status, r.Due = StatusHeld, o.Due
	}
	return r
}

// scopeLiquidating is the table's "account liquidating" for order o: its
// liquidation scope is flagged, i.e. the account's cross flag (it blocks
// every market) or the flag of o's instrument's isolated position (that
// market only) — risk.CheckScope's rule for new orders.
func (m *Machine) scopeLiquidating(o *Order) bool {
	a := m.accts[o.Account]
	if a.Liquidating {
		return true
	}
	p := a.Positions[o.IID]
	return p != nil && p.Iso && p.Liq
}

// StatusHeld is the internal ItemResult status of a held cancel or a pending
// modify: the caller waits until Due, lets the step complete (any command,
// e.g. KTick) and reads the outcome with HeldOutcome (cancel) or
// ModifyOutcome (modify, Mod set). It never reaches a client.
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
