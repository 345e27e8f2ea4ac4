package risk

// Pre-trade margin (§9.2, §10). An instrument's order requirement is the
// initial margin of its worst-case size W = max(|pos + openBuys|,
// |pos − openSells|) at the mark, plus the loss the account would book at
// once if its orders filled at prices worse than the mark:
//
//	req = ⌈value(W, mark) / lev⌉ + Σ_buys (p − mark)⁺·q + Σ_sells (mark − p)⁺·q
//
// Market orders count at the edge of the price band (the worst price they can
// fill at). A cross instrument adds req to the cross requirement; an isolated
// one adds only what its isolated equity does not cover. Available margin is
// cross equity minus that total.

// instSums are what an instrument's requirement is made of: the position's
// size and the open orders' buys, sells and immediate loss (in ticks × lots).
type instSums struct{ size, buys, sells, loss int64 }

// sums is instSums of m's position and open orders (extra not counted).
func sums(c *calc, a *Account, m *Market) instSums {
	var t instSums
	if p := a.Position(m.ID); p != nil {
		t.size = p.Size
	}
	for i := range a.Orders {
		if a.Orders[i].IID == m.ID {
			t.add(c, m, &a.Orders[i])
		}
	}
	return t
}

// add counts o as one more open order.
func (t *instSums) add(c *calc, m *Market, o *Order) {
	p := o.Ticks
	if p <= 0 { // a market order: the worst price it can fill at
		p = m.Mark
		if m.BandPPM > 0 {
			lo, hi := m.Band()
			p = lo
			if o.Buy {
				p = hi
			}
		}
	}
	if o.Buy {
		t.buys = c.add(t.buys, o.Lots)
		if p > m.Mark {
			t.loss = c.add(t.loss, c.mul(p-m.Mark, o.Lots))
		}
	} else {
		t.sells = c.add(t.sells, o.Lots)
		if p < m.Mark {
			t.loss = c.add(t.loss, c.mul(m.Mark-p, o.Lots))
		}
	}
}

// req is the requirement (micro) of these sums under s.
func (t *instSums) req(c *calc, m *Market, s Setting) int64 {
	if *t == (instSums{}) && m.Mark > 0 && s.Lev != 0 && int(m.PriceDecimals)+int(m.QtyDecimals)-MicroDecimals <= 18 {
		return 0 // nothing held or ordered: what the lines below give without their divisions
	}
	w := max(c.abs(c.add(t.size, t.buys)), c.abs(c.sub(t.size, t.sells)))
	im := c.div(m.notional(c, m.Mark, w), s.Lev, ceil)
	return c.add(im, m.toMicro(c, t.loss, ceil))
}

// instReq is one instrument's order requirement (micro) under s, with extra
// counted as one more open order when not nil.
func instReq(c *calc, a *Account, m *Market, s Setting, extra *Order) int64 {
	t := sums(c, a, m)
	if extra != nil {
		t.add(c, m, extra)
	}
	return t.req(c, m, s)
}

// scopeReq is what instrument m takes from cross equity: req itself when
// cross; the part isolated equity does not cover when isolated.
func scopeReq(c *calc, a *Account, m *Market, s Setting, extra *Order) int64 {
	return scoped(c, a, m, s, instReq(c, a, m, s, extra))
}

// scoped is scopeReq of an instrument requirement req.
func scoped(c *calc, a *Account, m *Market, s Setting, req int64) int64 {
	if s.Cross {
		return req
	}
	var eq int64
	if p := a.Position(m.ID); p != nil {
		eq = c.add(p.Margin, upnl(c, m.Grid, p.Size, p.Cost, m.Mark))
	}
	return max(0, c.sub(req, eq))
}

// scopeReqs is scopeReq without and with o, from one walk of the account's
// orders (CheckOrder's before and after).
func scopeReqs(c *calc, a *Account, m *Market, s Setting, o *Order) (before, after int64) {
	t := sums(c, a, m)
	before = scoped(c, a, m, s, t.req(c, m, s))
	t.add(c, m, o)
	return before, scoped(c, a, m, s, t.req(c, m, s))
}

// instruments lists the ids the account has a position or an order in,
// without repeats, in first-seen order (deterministic: the slices' order).
func instruments(a *Account, dst []uint32) []uint32 {
	seen := func(id uint32) bool {
		for _, x := range dst {
			if x == id {
				return true
			}
		}
		return false
	}
	for i := range a.Positions {
		if p := &a.Positions[i]; p.Size != 0 && !seen(p.IID) {
			dst = append(dst, p.IID)
		}
	}
	for i := range a.Orders {
		if id := a.Orders[i].IID; !seen(id) {
			dst = append(dst, id)
		}
	}
	return dst
}

// Available is the account's available order margin: cross equity minus the
// order requirements of every instrument, with extra counted in (nil: none).
// It may be negative; the portfolio shows max(0, Available).
func Available(a *Account, mk Markets, extra *Order) (int64, error) {
	var c calc
	v, err := available(&c, a, mk, extra)
	if err != nil {
		return 0, err
	}
	return v, c.err()
}

func available(c *calc, a *Account, mk Markets, extra *Order) (int64, error) {
	return availableReq(c, a, mk, extra, nil)
}

// availableReq is available with scopeReq of extra's instrument (extra
// counted) given as *xreq (nil: computed): CheckOrder has it already.
func availableReq(c *calc, a *Account, mk Markets, extra *Order, xreq *int64) (int64, error) {
	var buf [16]uint32
	ids := instruments(a, buf[:0])
	if extra != nil {
		found := false
		for _, id := range ids {
			found = found || id == extra.IID
		}
		if !found {
			ids = append(ids, extra.IID)
		}
	}
	eq := a.Collateral
	var req int64
	for _, id := range ids {
		m := mk[id]
		if m == nil {
			return 0, ErrInstrumentNotFound
		}
		if m.Mark <= 0 {
			return 0, ErrMarkUnavailable
		}
		s := a.Setting(&m.Instrument)
		if p := a.Position(id); p != nil && s.Cross {
			eq = c.add(eq, upnl(c, m.Grid, p.Size, p.Cost, m.Mark))
		}
		var x *Order
		if extra != nil && extra.IID == id {
			if xreq != nil {
				req = c.add(req, *xreq)
				continue
			}
			x = extra
		}
		req = c.add(req, scopeReq(c, a, m, s, x))
	}
	return c.sub(eq, req), nil
}

// CheckScope refuses any new order, reduce-only included, on iid while the
// account's cross scope is flagged (every market) or iid's isolated position
// is (that market): §10 "the flag blocks new orders".
func CheckScope(a *Account, iid uint32) error {
	if a.Liquidating {
		return ErrAccountLiquidating
	}
	if p := a.Position(iid); p != nil && p.Liquidating {
		return ErrAccountLiquidating
	}
	return nil
}

// orderMarket is o's market once CheckOrder's checks before margin pass:
// the instrument exists, the order is well formed, its scope is not
// flagged, a mark exists and a limit price is within the band.
func orderMarket(a *Account, mk Markets, o Order) (*Market, error) {
	m := mk[o.IID]
	if m == nil {
		return nil, ErrInstrumentNotFound
	}
	if o.Lots <= 0 || o.Ticks < 0 { // the parser refuses these first; never margin them
		return nil, ErrInvalidCommand
	}
	if err := CheckScope(a, o.IID); err != nil {
		return nil, err
	}
	if m.Mark <= 0 {
		return nil, ErrMarkUnavailable
	}
	if o.Ticks > 0 {
		if err := m.CheckPrice(o.Buy, o.Ticks); err != nil {
			return nil, err
		}
	}
	return m, nil
}

// CheckOrder decides whether the account can margin order o (not
// reduce-only: those are never refused for margin, but still go through
// CheckScope). It refuses with
// ErrAccountLiquidating while the order's scope is flagged (§10: cross blocks
// every market, isolated its own), ErrMarkUnavailable without a mark,
// ErrPriceOutsideBounds for an aggressive price beyond the band, and
// ErrInsufficientMargin when o raises the requirement past cross equity. An
// order that does not raise its instrument's requirement (it shrinks the
// worst case) is accepted even in a margin call.
func CheckOrder(a *Account, mk Markets, o Order) error {
	m, err := orderMarket(a, mk, o)
	if err != nil {
		return err
	}
	var c calc
	s := a.Setting(&m.Instrument)
	before, after := scopeReqs(&c, a, m, s, &o)
	if err := c.err(); err != nil {
		return err
	}
	if after <= before {
		return nil
	}
	avail, err := availableReq(&c, a, mk, &o, &after) // o's instrument: after, as computed above
	if err != nil {
		return err
	}
	if err := c.err(); err != nil {
		return err
	}
	if avail < 0 {
		return ErrInsufficientMargin
	}
	return nil
}

// FillResult is a position after one fill.
type FillResult struct {
	Pos             Position
	Realized        int64 // micro, realized PnL of the closed part (rounded down)
	CollateralDelta int64 // micro, change of Account.Collateral (fees not included)
	Increased       bool  // |size| grew (or the position flipped)
}

// ApplyFill books a fill of lots at ticks on p (the zero Position with IID
// set when flat) under setting s. Closing part: PnL at the entry price
// Cost/|size| (the closed cost is the proportional share, rounded down, and
// all of it on a full close). Cross: realized PnL goes to collateral.
// Isolated: realized PnL goes to the allocation, then the closed share of the
// allocation is released to collateral (all of it on a full close); an opened
// part moves ⌈value/lev⌉ from collateral into the allocation.
func ApplyFill(p Position, s Setting, g Grid, buy bool, ticks, lots int64) (FillResult, error) {
	var c calc
	r := applyFill(&c, p, s, g, buy, ticks, lots)
	return r, c.err()
}

func applyFill(c *calc, p Position, s Setting, g Grid, buy bool, ticks, lots int64) FillResult {
	r := FillResult{Pos: p}
	d := lots
	if !buy {
		d = c.neg(lots)
	}
	open := lots
	if p.Size != 0 && sign(p.Size) != sign(d) {
		size := c.abs(p.Size)
		closed := min(lots, size)
		closedCost := p.Cost
		if closed < size {
			closedCost = c.mulDiv(p.Cost, closed, size, floor)
		}
		r.Realized = g.toMicro(c, c.mul(sign(p.Size), c.sub(c.mul(closed, ticks), closedCost)), floor)
		r.Pos.Cost = c.sub(p.Cost, closedCost)
		if s.Cross {
			r.CollateralDelta = r.Realized
		} else {
			alloc := c.add(p.Margin, r.Realized)
			release := alloc
			if closed < size {
				release = c.mulDiv(alloc, closed, size, trunc)
			}
			r.Pos.Margin = c.sub(alloc, release)
			r.CollateralDelta = release
		}
		open = lots - closed
	}
	r.Pos.Size = c.add(p.Size, d)
	if open > 0 {
		r.Increased = true
		r.Pos.Cost = c.add(r.Pos.Cost, c.mul(open, ticks))
		if !s.Cross {
			im := c.div(g.notional(c, ticks, open), s.Lev, ceil)
			r.Pos.Margin = c.add(r.Pos.Margin, im)
			r.CollateralDelta = c.sub(r.CollateralDelta, im)
		}
	}
	return r
}

// CheckFill is the at-fill margin check of a taker's fill (order status
// insufficient_margin_at_fill): a fill that only shrinks the position
// passes; otherwise, with the fill booked, the cross scope must stay healthy
// (equity ≥ IM) and an isolated position must not be in liquidation.
func CheckFill(a *Account, mk Markets, iid uint32, buy bool, ticks, lots int64) error {
	m := mk[iid]
	if m == nil {
		return ErrInstrumentNotFound
	}
	var c calc
	s := a.Setting(&m.Instrument)
	var p Position
	idx := -1
	for i := range a.Positions {
		if a.Positions[i].IID == iid {
			p, idx = a.Positions[i], i
		}
	}
	p.IID = iid
	r := applyFill(&c, p, s, m.Grid, buy, ticks, lots)
	if err := c.err(); err != nil {
		return err
	}
	if !r.Increased {
		return nil
	}
	after := *a
	after.Orders = nil
	after.Positions = append([]Position(nil), a.Positions...)
	if idx < 0 {
		after.Positions = append(after.Positions, r.Pos)
	} else {
		after.Positions[idx] = r.Pos
	}
	after.Collateral = c.add(a.Collateral, r.CollateralDelta)
	sum, err := Evaluate(&after, mk)
	if err != nil {
		return err
	}
	if c.err() != nil {
		return ErrOverflow
	}
	if sum.State != Healthy {
		return ErrInsufficientAtFill
	}
	if !s.Cross {
		for i := range sum.Positions {
			if pr := &sum.Positions[i]; pr.IID == iid && pr.State() == Liquidation {
				return ErrInsufficientAtFill
			}
		}
	}
	return nil
}

// WithdrawReservePPM is the share of cross notional a withdrawal leaves
// behind (§10: required = max(reserved, 0.1 · Σ|size|·mark)).
const WithdrawReservePPM = 100_000

// Withdrawable is what the account may withdraw (§10):
//
//	max(0, min(collateral, cross equity − max(Σ requirements, 10 % · cross notional)))
//
// where Σ requirements are the order requirements Available subtracts
// (positions and open orders, isolated shortfalls included). Unrealized
// profit backs margin but is never paid out: the result is at most the
// collateral.
func Withdrawable(a *Account, mk Markets) (int64, error) {
	var c calc
	avail, err := available(&c, a, mk, nil)
	if err != nil {
		return 0, err
	}
	var eq, notional int64 = a.Collateral, 0
	for i := range a.Positions {
		p := &a.Positions[i]
		m := mk[p.IID]
		if p.Size == 0 || m == nil || !a.Setting(&m.Instrument).Cross {
			continue
		}
		eq = c.add(eq, upnl(&c, m.Grid, p.Size, p.Cost, m.Mark))
		notional = c.add(notional, m.notional(&c, m.Mark, p.Size))
	}
	req := c.sub(eq, avail)
	req = max(req, c.mulDiv(notional, WithdrawReservePPM, PPM, ceil))
	w := max(0, min(a.Collateral, c.sub(eq, req)))
	return w, c.err()
}
