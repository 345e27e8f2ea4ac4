package risk

import (
	"iter"
	"slices"
)

// Liquidation (perps.md §10). A scope is an account's cross positions
// together with its collateral, or one isolated position with its
// allocation. A scope is triggered when equity < MM, stays flagged while it
// is being liquidated, and is cleared once equity ≥ IM ("recovery initial
// margin") or it has no position left. Each cycle does one step per flagged
// scope, chosen by Plan:
//
//	equity ≥ ⅔·MM  market: a reduce-only IOC market order closing one whole
//	               position (isolated: its position; cross: the largest
//	               notional), with the liquidation fee
//	equity < ⅔·MM  backstop: the insurance fund takes the scope's positions at
//	               the mark and its equity (a deficit when negative), if the
//	               fund's equity stays ≥ its own MM afterwards
//	               ADL otherwise: the position closes at its bankruptcy price
//	               against opposite positions ranked by the ADL index

// Hit is a scope the sweep found triggered, or already flagged.
type Hit struct {
	Acct      *Account
	IID       uint32 // the isolated position's instrument (cross: unused)
	Cross     bool
	Equity    int64
	IM, MM    int64
	Flagged   bool // the scope was flagged before this sweep
	Recovered bool // flagged and now equity ≥ IM or no position: clear the flag
}

// Sweep evaluates every scope of every account and appends to dst the
// triggered ones (equity < MM, not yet flagged: flag them, cancel their
// resting orders, then Plan) and the flagged ones (Plan, or clear when
// Recovered). A scope holding a position in a market without a mark cannot
// be valued and is left for the next sweep; the others go on. It allocates
// nothing beyond dst.
func Sweep(accts iter.Seq[*Account], mk Markets, dst []Hit) ([]Hit, error) {
	var c calc
	for a := range accts {
		cross := Hit{Acct: a, Cross: true, Equity: a.Collateral, Flagged: a.Liquidating}
		crossUnknown := false
		for i := range a.Positions {
			p := &a.Positions[i]
			if p.Size == 0 {
				continue
			}
			m := mk[p.IID]
			if m == nil || m.Mark <= 0 {
				if m == nil || a.Setting(&m.Instrument).Cross {
					crossUnknown = true
				}
				continue
			}
			// The hot loop: uPnL and MM only; IM (a division per
			// position) only where a hit needs it.
			s := a.Setting(&m.Instrument)
			sm := c.mul(p.Size, m.Mark) // shared by notional and uPnL
			n := m.toMicro(&c, c.abs(sm), floor)
			u := m.toMicro(&c, c.sub(sm, sign(p.Size)*p.Cost), floor) // Cost ≥ 0: no overflow in the sign
			mmv := mm(&c, n, m.MaxLeverage)
			if s.Cross {
				cross.Equity = c.add(cross.Equity, u)
				cross.MM = c.add(cross.MM, mmv)
				continue
			}
			if eq := c.add(p.Margin, u); p.Liquidating || eq < mmv {
				h := Hit{Acct: a, IID: p.IID, Equity: eq, IM: c.div(n, s.Lev, ceil), MM: mmv, Flagged: p.Liquidating}
				h.Recovered = h.Flagged && h.Equity >= h.IM
				dst = append(dst, h)
			}
		}
		if err := c.err(); err != nil {
			return dst, err
		}
		if !crossUnknown && (a.Liquidating || (cross.MM > 0 && cross.Equity < cross.MM)) {
			if err := cross.Rescan(mk); err != nil { // fills in IM
				return dst, err
			}
			dst = append(dst, cross)
		}
	}
	return dst, nil
}

// flagged reports whether the hit's scope is flagged now.
func (h *Hit) flagged() bool {
	if h.Cross {
		return h.Acct.Liquidating
	}
	p := h.Acct.Position(h.IID)
	return p != nil && p.Liquidating
}

// SetFlag sets or clears the liquidation flag of the hit's scope.
func (h *Hit) SetFlag(on bool) {
	if h.Cross {
		h.Acct.Liquidating = on
		return
	}
	for i := range h.Acct.Positions {
		if p := &h.Acct.Positions[i]; p.IID == h.IID {
			p.Liquidating = on
		}
	}
}

// Step kinds of Plan.
type StepKind uint8

const (
	StepNone     StepKind = iota // nothing to do (no counterparty for ADL: retried next sweep)
	StepClear                    // recovered: clear the flag
	StepMarket                   // send the reduce-only IOC market order IID/Buy/Lots
	StepBackstop                 // the insurance fund takes the scope (Backstop)
	StepADL                      // deleverage IID's position (ADLPlan)
)

// Step is what one liquidation cycle does to a scope.
type Step struct {
	Kind StepKind
	IID  uint32 // the position acted on
	Buy  bool   // market: the closing side
	Lots int64  // market: the whole position
}

// Plan chooses the scope's step. fund is the insurance fund as an account
// (Collateral: its balance; Positions: what it took over; cross settings).
func Plan(h *Hit, mk Markets, fund *Account) (Step, error) {
	if h.Recovered {
		return Step{Kind: StepClear}, nil
	}
	p := h.target(mk)
	if p == nil {
		return Step{Kind: StepClear}, nil
	}
	var c calc
	if c.mul(3, h.Equity) >= c.mul(2, h.MM) { // 3E vs 2MM: ⅔ without rounding
		if err := c.err(); err != nil {
			return Step{}, err
		}
		return Step{Kind: StepMarket, IID: p.IID, Buy: p.Size < 0, Lots: abs(p.Size)}, nil
	}
	ok, err := FundCanAbsorb(h, mk, fund)
	if err != nil {
		return Step{}, err
	}
	if ok {
		return Step{Kind: StepBackstop}, nil
	}
	return Step{Kind: StepADL, IID: p.IID}, nil
}

func abs(v int64) int64 {
	if v < 0 {
		return -v
	}
	return v
}

// target is the position the scope acts on next: the isolated position, or
// the cross position of the largest notional (lowest id on a tie).
func (h *Hit) target(mk Markets) *Position {
	a := h.Acct
	if !h.Cross {
		return a.Position(h.IID)
	}
	var best *Position
	var bestN int64 = -1
	var c calc
	for i := range a.Positions {
		p := &a.Positions[i]
		m := mk[p.IID]
		if p.Size == 0 || m == nil || !a.Setting(&m.Instrument).Cross {
			continue
		}
		n := m.notional(&c, m.Mark, p.Size)
		if n > bestN || (n == bestN && p.IID < best.IID) {
			best, bestN = p, n
		}
	}
	return best
}

// scopePositions lists the positions of the hit's scope.
func (h *Hit) scopePositions(mk Markets) []*Position {
	var out []*Position
	for i := range h.Acct.Positions {
		p := &h.Acct.Positions[i]
		if p.Size == 0 {
			continue
		}
		m := mk[p.IID]
		if m == nil {
			continue
		}
		cross := h.Acct.Setting(&m.Instrument).Cross
		if (h.Cross && cross) || (!h.Cross && !cross && p.IID == h.IID) {
			out = append(out, p)
		}
	}
	return out
}

// FundCanAbsorb says whether the insurance fund, after taking the scope's
// positions at the mark and its equity, keeps equity ≥ its own MM.
func FundCanAbsorb(h *Hit, mk Markets, fund *Account) (bool, error) {
	f := cloneAccount(fund)
	for _, p := range h.scopePositions(mk) {
		m := mk[p.IID]
		if _, err := f.Fill(mk, p.IID, p.Size > 0, m.Mark, abs(p.Size)); err != nil {
			return false, err
		}
	}
	var c calc
	f.Collateral = c.add(f.Collateral, h.Equity)
	if c.err() != nil {
		return false, ErrOverflow
	}
	s, err := Evaluate(f, mk)
	if err != nil {
		return false, err
	}
	return s.Equity >= s.MM && s.Equity >= 0, nil
}

func cloneAccount(a *Account) *Account {
	b := *a
	b.Positions = slices.Clone(a.Positions)
	b.Orders = slices.Clone(a.Orders)
	b.Settings = slices.Clone(a.Settings)
	return &b
}

// Fill books a fill on the account (ApplyFill under its setting) and
// returns the result; fees are the caller's.
func (a *Account) Fill(mk Markets, iid uint32, buy bool, ticks, lots int64) (FillResult, error) {
	m := mk[iid]
	if m == nil {
		return FillResult{}, ErrInstrumentNotFound
	}
	idx := -1
	for i := range a.Positions {
		if a.Positions[i].IID == iid {
			idx = i
		}
	}
	var p Position
	if idx >= 0 {
		p = a.Positions[idx]
	}
	p.IID = iid
	var c calc
	r := applyFill(&c, p, a.Setting(&m.Instrument), m.Grid, buy, ticks, lots)
	coll := c.add(a.Collateral, r.CollateralDelta)
	if err := c.err(); err != nil {
		return FillResult{}, err
	}
	a.Collateral = coll
	switch {
	case idx < 0:
		a.Positions = append(a.Positions, r.Pos)
	case r.Pos.Size == 0: // a full close released the whole allocation
		a.Positions = slices.Delete(a.Positions, idx, idx+1)
	default:
		a.Positions[idx] = r.Pos
	}
	return r, nil
}

// Backstop moves the hit's scope into the insurance fund: each position is
// traded to the fund at the mark (no fees), then the scope's remaining
// balance, the equity at the mark, goes to the fund. It returns that amount
// (negative: the fund absorbed a deficit). The caller pushes the fills
// (oid 0, both parties) and the backstop frame.
func Backstop(h *Hit, mk Markets, fund *Account) (int64, error) {
	a := h.Acct
	type leg struct {
		iid  uint32
		size int64
	}
	var legs []leg // copied first: closing a position removes it from a.Positions
	for _, p := range h.scopePositions(mk) {
		legs = append(legs, leg{p.IID, p.Size})
	}
	for _, l := range legs {
		m := mk[l.iid]
		iid, size := l.iid, l.size
		if _, err := a.Fill(mk, iid, size < 0, m.Mark, abs(size)); err != nil {
			return 0, err
		}
		if _, err := fund.Fill(mk, iid, size > 0, m.Mark, abs(size)); err != nil {
			return 0, err
		}
	}
	var c calc
	var moved int64
	if h.Cross {
		moved = a.Collateral
		a.Collateral = 0
	} else {
		// The isolated position closed: its allocation went back to collateral
		// inside Fill; the scope's equity is what that added.
		moved = h.Equity
		a.Collateral = c.sub(a.Collateral, moved)
	}
	fund.Collateral = c.add(fund.Collateral, moved)
	return moved, c.err()
}

// LiquidationFees splits the fee of one liquidation fill of notional n
// (micro): the ordinary rate (venue fee) plus the instrument's liquidation
// fee (to the insurance fund), both rounded up, then capped in that order so
// they never take the scope's equity after the fill below zero: a
// liquidation never creates a deficit by charging for itself.
func LiquidationFees(n, ratePPM, liqPPM, equityAfter int64) (venue, fund int64, err error) {
	var c calc
	venue = c.mulDiv(n, max(ratePPM, 0), PPM, ceil)
	fund = c.mulDiv(n, max(liqPPM, 0), PPM, ceil)
	room := max(equityAfter, 0)
	venue = min(venue, room)
	fund = min(fund, c.sub(room, venue))
	return venue, fund, c.err()
}

// Rescan recomputes the hit's figures from its account as it is now: a
// cycle acts on one scope at a time and an earlier step (an isolated close
// releasing its allocation, say) may have changed the account.
func (h *Hit) Rescan(mk Markets) error {
	var c calc
	h.Equity, h.IM, h.MM = 0, 0, 0
	a := h.Acct
	if h.Cross {
		h.Equity = a.Collateral
	}
	for i := range a.Positions {
		p := &a.Positions[i]
		m := mk[p.IID]
		if p.Size == 0 || m == nil {
			continue
		}
		s := a.Setting(&m.Instrument)
		if s.Cross != h.Cross || (!h.Cross && p.IID != h.IID) {
			continue
		}
		if m.Mark <= 0 {
			return ErrMarkUnavailable
		}
		r := positionRisk(&c, p, s, m)
		if h.Cross {
			h.Equity = c.add(h.Equity, r.UPnL)
		} else {
			h.Equity = r.Equity
		}
		h.IM, h.MM = c.add(h.IM, r.IM), c.add(h.MM, r.MM)
	}
	h.Flagged = h.flagged()
	h.Recovered = h.Flagged && (h.MM == 0 || h.Equity >= h.IM)
	return c.err()
}
