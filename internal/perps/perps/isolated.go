package perps

import (
	"errors"

	"pmx/internal/perps/risk"
)

// Isolated allocations (docs/perps-margin.md "Isolated margin"). A position
// in an isolated-mode instrument is margined against the account's
// collateral until its owner adjusts its margin (updateMargin, KMargin): the
// first adjustment gives it its own allocation, its initial margin at the
// mark plus the delta. From then on (Position.Iso) it is its own risk scope:
// valued on allocation + uPnL, flagged, liquidated and backstopped alone,
// while the account's other positions see collateral = Balance − Σ
// allocations. The allocation is an earmark inside Balance, so Balance stays
// the account's whole cash and every sum over balances (conservation, the
// audit, equity history) counts allocations exactly once.

// KMargin adjusts an isolated allocation: Account, IID, Amount (a signed
// decimal string), SigTS, Replay.
const KMargin = "updateMargin"

// tSigTS is Command.SigTS's record tag.
const tSigTS = 80

// ErrMarginAmountSyntax is an amt that is not a plain decimal string at all:
// an earlier plain 400, not the sequenced invalid_margin_amount.
var ErrMarginAmountSyntax = errors.New("amt: not a decimal string")

// ParseMarginDelta reads updateMargin's amt, a signed decimal string of
// collateral ("25", "-0.5"): positive moves collateral into the allocation,
// negative releases. Zero ("0", "-0.000"), more than 6 decimals (zeros past
// the sixth included, as ParseMicro) and values beyond int64 micro-units are
// risk.ErrInvalidMarginAmount; anything that is not a plain decimal (empty,
// "+1", "1e3", " 1", "-") is ErrMarginAmountSyntax.
func ParseMarginDelta(s string) (int64, error) {
	neg := len(s) > 0 && s[0] == '-'
	u := s
	if neg {
		u = s[1:]
	}
	if !plainDecimal(u) {
		return 0, ErrMarginAmountSyntax
	}
	v, ok := ParseMicro(u)
	if !ok || v == 0 { // a plain decimal ParseMicro refuses is over-precise or out of range
		return 0, risk.ErrInvalidMarginAmount
	}
	if neg {
		v = -v
	}
	return v, nil
}

// plainDecimal reports whether s is digits with an optional fraction of at
// least one digit ("12", "0.5"; not "", ".5", "5.", "+5", "1e3").
func plainDecimal(s string) bool {
	digits, dot := 0, -1
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c >= '0' && c <= '9':
			digits++
		case c == '.' && dot < 0 && digits > 0:
			dot = i
		default:
			return false
		}
	}
	return digits > 0 && dot != len(s)-1
}

// adjustMargin applies a KMargin command (risk.AdjustMargin's refusals, in
// its order: position_not_found, invalid_margin_mode, invalid_margin_amount,
// account_liquidating, insufficient_margin, margin_below_required_initial).
//
// First, after sequencing, the signature's timestamp must lie in the margin
// window around the command's time (invalid_margin_signature_timestamp);
// the service always sets it, a command without one is not checked.
func (m *Machine) adjustMargin(c *Command, ts int64, ev *Event) {
	if c.SigTS != 0 && risk.CheckMarginTimestamp(c.SigTS, ts) != nil {
		ev.Err = risk.ErrMarginTimestamp.Error()
		return
	}
	a, in := m.accts[c.Account], m.inst[c.IID]
	if a == nil || in == nil || a.Positions[in.ID] == nil || a.Positions[in.ID].Size == 0 {
		ev.Err = risk.ErrPositionNotFound.Error()
		return
	}
	p := a.Positions[in.ID]
	amt, err := ParseMarginDelta(c.Amount)
	if err != nil {
		amt = 0 // risk.AdjustMargin answers invalid_margin_amount in its turn
	}
	ra, mk := m.riskView(a, in.ID)
	if !p.Iso && !a.Cross[in.ID] { // first adjustment: the allocation starts at the initial margin
		rp := ra.Position(in.ID)
		r, err := risk.PositionRisk(rp, risk.Setting{IID: in.ID, Lev: m.leverage(a, in)}, mk[in.ID])
		if err == nil && mk[in.ID].Mark <= 0 {
			err = risk.ErrMarkUnavailable
		}
		if err != nil {
			ev.Err = err.Error()
			return
		}
		rp.Margin = r.IM
		ra.Collateral = must(sub(ra.Collateral, r.IM))
		for i := range ra.Settings {
			if ra.Settings[i].IID == in.ID {
				ra.Settings[i].Cross = false
			}
		}
	}
	nm, err := risk.AdjustMargin(&ra, mk, in.ID, amt)
	if err != nil {
		ev.Err = err.Error()
		return
	}
	p.Iso, p.Margin = true, nm
}

// isoCross reports whether iid's position of a is margined in the cross
// scope (everything but an isolated position with its own allocation).
func isoCross(a *Account, iid uint32) bool {
	p := a.Positions[iid]
	return p == nil || !p.Iso
}

// isoAllocated is the sum of a's isolated allocations.
func isoAllocated(a *Account) int64 {
	var s int64
	for _, p := range a.Positions {
		if p.Iso {
			s = must(add(s, p.Margin))
		}
	}
	return s
}

// isoPnL books a fill's realized pnl in the allocation of an isolated
// position (it is already in Balance).
func isoPnL(p *Position, pnl int64) {
	if p.Iso {
		p.Margin = must(add(p.Margin, pnl))
	}
}

// isoFilled settles an isolated position's allocation after a fill
// (risk.ApplyFill's rule): the fee is paid from it; a reduction releases the
// closed share to collateral; an increase moves the added part's initial
// margin into it; a close (or a flip: the new side is margined in the cross
// scope until its next adjustment) releases all of it, except after a
// backstop, which hands it to the insurance fund (isoBackstop).
func (m *Machine) isoFilled(a *Account, in *Instrument, p *Position, prevSize, ticks int64, kind fillKind, fee int64) {
	if !p.Iso {
		return
	}
	p.Margin = must(sub(p.Margin, fee))
	switch {
	case p.Size == 0 || (prevSize > 0) != (p.Size > 0):
		if kind == fkBackstop {
			return
		}
		p.Iso, p.Margin, p.Liq = false, 0, false
	case abs(p.Size) < abs(prevSize):
		if p.Margin > 0 {
			p.Margin = must(mulDiv(p.Margin, abs(p.Size), abs(prevSize)))
		}
	case abs(p.Size) > abs(prevSize):
		v := must(valueMicro(in, ticks, abs(p.Size)-abs(prevSize)))
		lev := m.leverage(a, in)
		p.Margin = must(add(p.Margin, (v+lev-1)/lev))
	}
}

// isoHit applies a sweep's verdict on an isolated scope: clear the flag, or
// flag it after cancelling the account's resting orders in that instrument.
func (m *Machine) isoHit(a *Account, h *risk.Hit, ts int64, ev *Event) {
	p := a.Positions[h.IID]
	if p == nil || !p.Iso {
		return
	}
	switch {
	case h.Recovered:
		p.Liq = false
		m.adlTouch(a)
	case !h.Flagged:
		for _, oid := range m.sortedOpen(a) {
			if o := m.orders[oid]; o.IID == h.IID && o.Due == 0 {
				m.cancelOne(a, oid, ts, ev)
			}
		}
		p.Liq = true
		m.adlTouch(a)
	}
}

// isoFlagged reports whether the sweep's view ra (built before its hits)
// or its hits hold an isolated scope to liquidate: the sweep's common path
// then costs no map iteration and no allocation.
func isoFlagged(ra *risk.Account, hits []risk.Hit) bool {
	for i := range hits {
		if !hits[i].Cross && !hits[i].Recovered {
			return true
		}
	}
	for i := range ra.Positions {
		if ra.Positions[i].Liquidating {
			return true
		}
	}
	return false
}

// liquidateIsolated runs the liquidation steps of every flagged isolated
// position of a, each as its own scope: the market step closes the whole
// position, the backstop hands it and its allocation to the fund, ADL
// closes it at its bankruptcy price. The cross collateral is not touched,
// except by what is left of the allocation once the position is closed.
func (m *Machine) liquidateIsolated(a *Account, mk risk.Markets, ts int64, ev *Event) {
	for _, iid := range m.positionIDs(a) {
		if p := a.Positions[iid]; p.Iso && p.Liq {
			m.liquidateIso(a, iid, mk, ts, ev)
		}
	}
}

func (m *Machine) liquidateIso(a *Account, iid uint32, mk risk.Markets, ts int64, ev *Event) {
	tried := false
	for range maxLiqSteps {
		p := a.Positions[iid]
		if p == nil || !p.Iso || p.Size == 0 {
			return
		}
		mk = m.allMarkets(mk)
		ra, _ := m.riskView(a, 0)
		h := risk.Hit{Acct: &ra, IID: iid}
		if err := h.Rescan(mk); err != nil {
			return
		}
		st, err := m.planStep(&h, mk, func(uint32) bool { return tried })
		if err != nil {
			return
		}
		switch st.Kind {
		case risk.StepClear:
			p.Liq = false
			m.adlTouch(a)
			return
		case risk.StepMarket:
			tried = true
			m.liqOrder(a, m.inst[iid], mk[iid], h.Equity, ts, ev)
		case risk.StepBackstop:
			m.isoBackstop(a, iid, mk, ts, ev)
		case risk.StepADL:
			if !m.deleverage(a, m.inst[iid], mk, h.Equity, ts, ev) {
				return
			}
		default:
			return
		}
	}
}

// isoBackstop hands an isolated position to the insurance fund at the mark,
// then its allocation (a deficit when negative): the cross collateral stays
// as it was.
func (m *Machine) isoBackstop(a *Account, iid uint32, mk risk.Markets, ts int64, ev *Event) {
	in, p := m.inst[iid], a.Positions[iid]
	mark, size := mk[iid].Mark, p.Size
	tid := m.nextTID
	m.nextTID++
	m.posFill(a, in, 0, size < 0, mark, abs(size), true, fkBackstop, tid, ts, ev)
	m.fundFill(in, size > 0, mark, abs(size))
	moved := p.Margin
	a.Balance = must(sub(a.Balance, moved))
	m.auditCredit(a, -moved)
	m.insurance = must(add(m.insurance, moved))
	p.Iso, p.Margin, p.Liq = false, 0, false
}

// isoEquity is the equity of a's isolated position in iid (allocation +
// uPnL at the mark), for the liquidation fee's cap.
func (m *Machine) isoEquity(a *Account, iid uint32) (int64, error) {
	p := a.Positions[iid]
	ra, mk := m.riskView(a, 0)
	rp := ra.Position(iid)
	if rp == nil || mk[iid] == nil {
		return p.Margin, nil
	}
	r, err := risk.PositionRisk(rp, ra.Setting(&mk[iid].Instrument), mk[iid])
	return r.Equity, err
}
