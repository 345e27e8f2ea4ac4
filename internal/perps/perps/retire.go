package perps

import "pmx/internal/perps/risk"

// Market retirement (docs/perps-margin.md "Close-only and settlement"), the
// contract's state table: trading → close-only (operator) → settled
// (operator, after both windows). Both are journaled commands; the windows
// in force travel on the settle command so a replay decides the same.
const (
	KCloseOnly = "closeOnly" // IID
	KSettle    = "settle"    // IID, Window (close-only, ms), IndexWindow (ms)

	StSettled = "instrument_settled"

	ErrSettled            = "instrument_settled"
	ErrSettlePrice        = "settlement_price_unavailable"
	ErrSettleInsurance    = "settlement_insurance_insufficient"
	ErrSettleInvalidState = "settlement_invalid_state"

	// DefaultRetireWindow is both windows' default (30 minutes).
	DefaultRetireWindow = 30 * 60 * 1000
	// indexGapMs is the longest gap between index pushes that still counts
	// as a complete window; the latest push must be that fresh too.
	indexGapMs = 60 * 1000
	// maxIndexAge bounds the index history kept per instrument.
	maxIndexAge  = 24 * 60 * 60 * 1000
	maxIndexHist = 20000
)

// Record tags of the settle windows (leverage.go's gap).
const (
	tWindow      = 48
	tIndexWindow = 49
)

// IndexPoint is one index push.
type IndexPoint struct {
	TS    int64 `json:"t"`
	Ticks int64 `json:"p"`
}

// indexed records an index push in in's bounded history.
func (in *Instrument) indexed(ts, ticks int64) {
	in.IndexHist = append(in.IndexHist, IndexPoint{TS: ts, Ticks: ticks})
	drop := 0
	for drop < len(in.IndexHist) && (in.IndexHist[drop].TS < ts-maxIndexAge || len(in.IndexHist)-drop > maxIndexHist) {
		drop++
	}
	if drop > 0 {
		in.IndexHist = append(in.IndexHist[:0], in.IndexHist[drop:]...)
	}
}

// closeOnly puts the instrument in close-only: every open order that could
// add exposure (any order that is not reduce-only) is cancelled with status
// instrument_close_only; new ones are refused (orders.go, inflight.go).
func (m *Machine) closeOnly(c *Command, ts int64, ev *Event) {
	in := m.inst[c.IID]
	switch {
	case in == nil:
		ev.Err = "instrument_not_found"
		return
	case in.Settled:
		ev.Err = ErrSettled
		return
	case !in.CloseOnly:
		in.CloseOnly, in.CloseOnlyAt = true, ts
	}
	m.cancelInstrument(in, StCloseOnly, false, ts, ev)
}

// cancelInstrument cancels the open orders of in (reduce-only ones too when
// all) with status st, in account then order id order.
func (m *Machine) cancelInstrument(in *Instrument, st string, all bool, ts int64, ev *Event) {
	m.cancelSt = st
	defer func() { m.cancelSt = "" }()
	for aid := uint64(1); aid < m.nextAcct; aid++ {
		a := m.byID[aid]
		if a == nil || len(a.Open) == 0 {
			continue
		}
		for _, oid := range m.sortedOpen(a) {
			if o := m.orders[oid]; o.IID == in.ID && (all || !o.Reduce) {
				m.cancelOne(a, oid, ts, ev)
			}
		}
	}
}

// settle settles a close-only instrument at the average of the index
// window: every order is cancelled (instrument_settled), every position,
// the insurance fund's included, closes at that price without fees, and a
// balance left negative is the fund's to cover.
func (m *Machine) settle(c *Command, ts int64, ev *Event) {
	in := m.inst[c.IID]
	if in == nil {
		ev.Err = "instrument_not_found"
		return
	}
	win, iwin := c.Window, c.IndexWindow
	if win <= 0 {
		win = DefaultRetireWindow
	}
	if iwin <= 0 {
		iwin = DefaultRetireWindow
	}
	if in.Settled || !in.CloseOnly || ts-in.CloseOnlyAt < win {
		ev.Err = ErrSettleInvalidState
		return
	}
	px := in.settlementPrice(ts, iwin)
	if px <= 0 {
		ev.Err = ErrSettlePrice
		return
	}
	var deficits int64
	fundAfter := m.insurance
	for aid := uint64(1); aid < m.nextAcct; aid++ {
		a := m.byID[aid]
		p := a.Positions[in.ID]
		if p == nil || p.Size == 0 {
			continue
		}
		eq, ok := m.equityAfterClose(a, in, px)
		if !ok {
			ev.Err = ErrSettleInvalidState // exposure beyond what the arithmetic holds
			return
		}
		if eq < 0 {
			deficits -= eq
		}
	}
	if p := m.fundPos[in.ID]; p != nil && p.Size != 0 {
		pnl, ok := closePnL(in, p, px)
		if !ok {
			ev.Err = ErrSettleInvalidState
			return
		}
		fundAfter += pnl
	}
	if deficits > fundAfter {
		ev.Err = ErrSettleInsurance
		return
	}
	m.cancelInstrument(in, StSettled, true, ts, ev)
	m.expireLegs(in, ts, ev) // tpslattach.go
	for aid := uint64(1); aid < m.nextAcct; aid++ {
		a := m.byID[aid]
		p := a.Positions[in.ID]
		if p == nil || p.Size == 0 {
			continue
		}
		tid := m.nextTID
		m.nextTID++
		eq, _ := m.equityAfterClose(a, in, px) // checked above
		m.posFill(a, in, 0, p.Size < 0, px, abs(p.Size), false, fkSettle, tid, ts, ev)
		if eq < 0 { // the fund covers the deficit, no more: other positions' gains count first
			m.insurance = must(add(m.insurance, eq))
			m.auditCredit(a, -eq)
			a.Balance = must(sub(a.Balance, eq))
		}
	}
	if p := m.fundPos[in.ID]; p != nil && p.Size != 0 {
		m.fundFill(in, p.Size < 0, px, abs(p.Size))
	}
	in.Settled, in.SettlePrice = true, px
}

// equityAfterClose is a's cross equity once its position in in is closed
// at px, its other positions at their marks (without a mark for one of
// them: its balance after the close alone).
//
// An isolated position with its own allocation is its own scope: its
// equity is what the allocation holds after the close (isolated.go).
func (m *Machine) equityAfterClose(a *Account, in *Instrument, px int64) (int64, bool) {
	pnl, ok := closePnL(in, a.Positions[in.ID], px)
	if !ok {
		return 0, false
	}
	if p := a.Positions[in.ID]; p.Iso {
		return add(p.Margin, pnl)
	}
	bal, ok := add(a.Balance, pnl)
	if !ok {
		return 0, false
	}
	ra, mk := m.riskView(a, 0)
	s, err := risk.Evaluate(&ra, mk)
	if err != nil {
		return bal, true
	}
	for _, pr := range s.Positions {
		if pr.IID == in.ID {
			eq, ok := sub(s.Equity, pr.UPnL)
			if ok {
				eq, ok = add(eq, pnl)
			}
			return eq, ok
		}
	}
	return bal, true
}

// closePnL is the pnl (micro) of closing p at px.
func closePnL(in *Instrument, p *Position, px int64) (int64, bool) {
	q := *p
	pnl := applyPos(&q, p.Size < 0, px, abs(p.Size))
	return tickLotsToMicro(pnl, in.PriceDecimals, in.QtyDecimals)
}

// settlementPrice is the mean of the index pushes of the last iwin ms
// (rounded half up to a tick), or 0 when the window is not complete and
// fresh: the first push must be no later than the window's start plus
// indexGapMs, the latest no older than indexGapMs, and no gap between
// pushes longer than indexGapMs.
func (in *Instrument) settlementPrice(ts, iwin int64) int64 {
	start := ts - iwin
	var sum, n, prev int64
	first := int64(-1)
	for _, pt := range in.IndexHist {
		if pt.TS < start {
			prev = pt.TS
			first = pt.TS // a push before the window covers its start
			sum, n = pt.Ticks, 1
			continue
		}
		if first < 0 {
			first = pt.TS
		} else if pt.TS-prev > indexGapMs {
			return 0
		}
		prev = pt.TS
		var ok bool
		if sum, ok = add(sum, pt.Ticks); !ok {
			return 0
		}
		n++
	}
	if n == 0 || first > start+indexGapMs || ts-prev > indexGapMs {
		return 0
	}
	return (2*sum + n) / (2 * n)
}
