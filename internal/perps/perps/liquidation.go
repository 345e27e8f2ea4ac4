package perps

import "pmx/internal/perps/risk"

// Liquidation (docs/perps-risk.md "Liquidation"), first part: the service
// submits a sweep after commands that can move marks or positions (SweepDue);
// the sweep flags every account whose equity fell below maintenance margin,
// cancels its resting orders (in-flight ones answer order_in_flight and are
// refused at their risk step: the flag blocks new orders), runs the
// liquidation steps (liqexec.go) and clears the flag once equity is back at
// initial margin or no position is left.
const (
	KLiqSweep  = "liquidationSweep"
	KInsurance = "insurance" // Amount: operator top-up of the insurance fund
)

// SweepDue reports whether a command since the last sweep may have moved a
// mark or a position. It is not state: after a restore it is true.
func (m *Machine) SweepDue() bool { return m.sweepDue }

// FlaggedAccounts lists the flagged accounts, in account id order.
func (m *Machine) FlaggedAccounts() []string {
	var out []string
	for aid := uint64(1); aid < m.nextAcct; aid++ {
		if a := m.byID[aid]; a != nil && a.Liquidating {
			out = append(out, a.Addr)
		}
	}
	return out
}

// maxSweepPasses bounds the passes of one sweep command.
const maxSweepPasses = 16

// sweep passes over every account until a pass executes no liquidation
// fill: a liquidation moves other accounts too (its trades move the mark,
// ADL books losses on counterparties), including ones the pass already
// looked at.
func (m *Machine) sweep(ts int64, ev *Event) {
	for range maxSweepPasses {
		n := len(ev.Fills)
		m.sweepPass(ts, ev)
		if len(ev.Fills) == n {
			return
		}
	}
}

func (m *Machine) sweepPass(ts int64, ev *Event) {
	mk := make(risk.Markets, len(m.instIDs))
	for _, id := range m.instIDs { // every mark once per sweep
		mk[id] = m.riskMarket(m.inst[id])
	}
	if !m.fullSweep {
		m.marks = markTicks(mk, m.marks)
	}
	marks := m.marks
	var ra risk.Account // one view, refilled per account
	seq := func(yield func(*risk.Account) bool) { yield(&ra) }
	var hits []risk.Hit
	for aid := uint64(1); aid < m.nextAcct; aid++ { // account id order: deterministic
		if m.safe(aid, marks) { // sweepcache.go
			continue
		}
		a := m.byID[aid]
		if a == nil || (!a.Liquidating && !hasPosition(a)) {
			continue
		}
		m.viewInto(&ra, mk, a, 0, 0, nil)
		var err error
		if hits, err = risk.Sweep(seq, mk, hits[:0]); err != nil {
			continue // a scope that cannot be valued waits for the next sweep
		}
		for _, h := range hits {
			switch {
			case !h.Cross:
				m.isoHit(a, &h, ts, ev) // isolated.go
			case h.Recovered:
				a.Liquidating = false
				m.adlTouch(a)
			case !h.Flagged:
				for _, oid := range m.sortedOpen(a) { // before the flag: resting orders cancel
					if o := m.orders[oid]; o.Due == 0 {
						m.cancelOne(a, oid, ts, ev)
					}
				}
				a.Liquidating = true
				m.adlTouch(a)
			}
		}
		if isoFlagged(&ra, hits) {
			m.liquidateIsolated(a, mk, ts, ev) // isolated.go
		}
		if a.Liquidating {
			m.liquidate(a, mk, ts, ev) // liqexec.go
		} else if len(hits) == 0 {
			m.remember(a, mk)
		}
	}
}

func hasPosition(a *Account) bool {
	for _, p := range a.Positions {
		if p.Size != 0 {
			return true
		}
	}
	return false
}

// topUpInsurance adds the operator's amount to the insurance fund.
func (m *Machine) topUpInsurance(c *Command, ev *Event) {
	amt, ok := ParseMicro(c.Amount)
	if !ok || amt <= 0 {
		ev.Err = "invalid amount"
		return
	}
	s, ok := add(m.insurance, amt)
	if !ok {
		ev.Err = ErrAmountRange
		return
	}
	m.insurance = s
}
