package risk

// Instrument is what the risk engine needs of a perpetual market.
type Instrument struct {
	ID uint32
	Grid
	MaxLeverage  int64 // ≥ 1; MMR = 0.5 / MaxLeverage
	IsolatedOnly bool
	LiqFeePPM    int64 // liquidation_fee, e.g. 25_000 for "0.025"
	BandPPM      int64 // price_bounds, e.g. 50_000 for "0.05"; 0: no band
}

// Market is an instrument with its mark price at the moment of a decision.
type Market struct {
	Instrument
	Mark int64 // ticks; 0 when no mark can be built (mark_price_unavailable)
}

// Markets looks markets up by instrument id.
type Markets map[uint32]*Market

// Setting is an account's leverage and margin mode on one instrument.
type Setting struct {
	IID   uint32
	Lev   int64
	Cross bool
}

// Position is an account's exposure in one instrument. Cost is |Size| times
// the entry price in tick·lot units, so the entry price is exactly
// Cost/|Size|. Margin is the isolated allocation (0 for a cross position).
type Position struct {
	IID         uint32
	Size        int64 // lots, signed: > 0 long
	Cost        int64 // tick·lots, ≥ 0
	Margin      int64 // micro, isolated allocation; may go ≤ 0 (§9.8)
	Liquidating bool  // isolated scope flag
}

// Order is the unfilled rest of an open order that is not reduce-only (those
// never add exposure and are not margined). Ticks 0 is a market order.
type Order struct {
	IID   uint32
	Buy   bool
	Ticks int64
	Lots  int64
}

// Account is one account's risk inputs.
type Account struct {
	ID          uint64
	Collateral  int64      // micro: cross collateral, isolated allocations excluded
	Positions   []Position // at most one per instrument; Size 0 entries are ignored
	Orders      []Order
	Settings    []Setting // explicit choices; others resolve to the default
	Liquidating bool      // cross scope flag
}

// Setting resolves the account's leverage and mode on m (§9.8): an explicit
// choice, else the instrument's maximum leverage, isolated.
func (a *Account) Setting(in *Instrument) Setting {
	for _, s := range a.Settings {
		if s.IID == in.ID {
			return s
		}
	}
	return Setting{IID: in.ID, Lev: in.MaxLeverage}
}

// Position returns the account's open position on iid (nil when flat).
func (a *Account) Position(iid uint32) *Position {
	for i := range a.Positions {
		if p := &a.Positions[i]; p.IID == iid && p.Size != 0 {
			return p
		}
	}
	return nil
}

// State is a margin state of §10.
type State uint8

const (
	Healthy     State = iota // equity ≥ IM
	MarginCall               // MM ≤ equity < IM: reduce-only orders and deposits
	Liquidation              // equity < MM
)

func (s State) String() string {
	return [...]string{"healthy", "margin_call", "liquidation"}[s]
}

// StateOf classifies equity against the scope's requirements. A scope without
// positions (MM 0) is healthy: there is nothing to liquidate.
func StateOf(equity, im, mm int64) State {
	switch {
	case mm == 0 && im == 0:
		return Healthy
	case equity < mm:
		return Liquidation
	case equity < im:
		return MarginCall
	}
	return Healthy
}

// PosRisk is one position's figures at the mark.
type PosRisk struct {
	IID      uint32
	Cross    bool
	Lev      int64
	Notional int64 // |size|·mark, rounded down
	UPnL     int64 // size·(mark − entry), rounded down
	IM       int64 // ⌈notional / leverage⌉
	MM       int64 // ⌈notional · 0.5 / max leverage⌉
	Equity   int64 // isolated: Margin + UPnL; cross: 0 (the account's)
}

// PositionRisk values p at m's mark under setting s.
func PositionRisk(p *Position, s Setting, m *Market) (PosRisk, error) {
	var c calc
	r := positionRisk(&c, p, s, m)
	return r, c.err()
}

func positionRisk(c *calc, p *Position, s Setting, m *Market) PosRisk {
	if m.Mark <= 0 {
		c.bad = true // callers check for the mark first; this keeps a bug loud
		return PosRisk{}
	}
	r := PosRisk{IID: p.IID, Cross: s.Cross, Lev: s.Lev}
	r.Notional = m.notional(c, m.Mark, p.Size)
	r.UPnL = upnl(c, m.Grid, p.Size, p.Cost, m.Mark)
	r.IM = c.div(r.Notional, s.Lev, ceil)
	r.MM = mm(c, r.Notional, m.MaxLeverage)
	if !s.Cross {
		r.Equity = c.add(p.Margin, r.UPnL)
	}
	return r
}

// mm is notional · MMR with MMR = 0.5/maxLev, i.e. notional / (2·maxLev).
func mm(c *calc, notional, maxLev int64) int64 {
	return c.div(notional, c.mul(2, maxLev), ceil)
}

// upnl is size·mark − sign(size)·cost in micro-units, rounded down.
func upnl(c *calc, g Grid, size, cost, mark int64) int64 {
	tl := c.sub(c.mul(size, mark), c.mul(sign(size), cost))
	return g.toMicro(c, tl, floor)
}

// Summary is an account's margin at the marks: the cross scope and each
// isolated position.
type Summary struct {
	Equity    int64 // cross equity: collateral + cross uPnL
	IM, MM    int64 // cross positions only
	Notional  int64 // all positions (portfolio total_position_value)
	State     State // cross scope
	Positions []PosRisk
}

// State is the margin state of an isolated position's scope.
func (r *PosRisk) State() State { return StateOf(r.Equity, r.IM, r.MM) }

// Evaluate computes the account's margin summary. Every position's market
// must have a mark (else ErrMarkUnavailable).
func Evaluate(a *Account, mk Markets) (Summary, error) {
	var c calc
	s := Summary{Positions: make([]PosRisk, 0, len(a.Positions))}
	s.Equity = a.Collateral
	for i := range a.Positions {
		p := &a.Positions[i]
		if p.Size == 0 {
			continue
		}
		m := mk[p.IID]
		if m == nil || m.Mark <= 0 {
			return Summary{}, ErrMarkUnavailable
		}
		r := positionRisk(&c, p, a.Setting(&m.Instrument), m)
		s.Notional = c.add(s.Notional, r.Notional)
		if r.Cross {
			s.Equity = c.add(s.Equity, r.UPnL)
			s.IM = c.add(s.IM, r.IM)
			s.MM = c.add(s.MM, r.MM)
		}
		s.Positions = append(s.Positions, r)
	}
	if err := c.err(); err != nil {
		return Summary{}, err
	}
	s.State = StateOf(s.Equity, s.IM, s.MM)
	return s, nil
}

// CrossEquity is Evaluate(a, mk).Equity, with the same errors, without
// building the per-position list.
func CrossEquity(a *Account, mk Markets) (int64, error) {
	var c calc
	eq, notional, im, mm := a.Collateral, int64(0), int64(0), int64(0)
	for i := range a.Positions {
		p := &a.Positions[i]
		if p.Size == 0 {
			continue
		}
		m := mk[p.IID]
		if m == nil || m.Mark <= 0 {
			return 0, ErrMarkUnavailable
		}
		r := positionRisk(&c, p, a.Setting(&m.Instrument), m)
		notional = c.add(notional, r.Notional)
		if r.Cross {
			eq = c.add(eq, r.UPnL)
			im = c.add(im, r.IM)
			mm = c.add(mm, r.MM)
		}
	}
	if err := c.err(); err != nil {
		return 0, err
	}
	return eq, nil
}

// LiquidationPrice is the mark (ticks, rounded toward the position: down for
// a long, up for a short) at which p's scope reaches maintenance if only p's
// price moves: equity0 is the scope's equity and mmOthers the MM of its other
// positions, both at the current mark. Solving
// equity0 + size·(x − mark) = |size|·x/(2·maxLev) + mmOthers gives
//
//	x = 2L·(mmOthers − equity0 + size·mark) / (2L·size − |size|)
//
// 0 means the scope cannot reach maintenance by this price (x ≤ 0).
func LiquidationPrice(p *Position, m *Market, equity0, mmOthers int64) (int64, error) {
	if p.Size == 0 || m.Mark <= 0 {
		return 0, nil
	}
	var c calc
	l2 := c.mul(2, m.MaxLeverage)
	num := c.mul(l2, c.add(c.sub(m.fromMicro(&c, mmOthers, ceil), m.fromMicro(&c, equity0, floor)), c.mul(p.Size, m.Mark)))
	den := c.sub(c.mul(l2, p.Size), c.abs(p.Size))
	r := floor
	if p.Size < 0 {
		r = ceil
	}
	x := c.mulDiv(num, 1, den, r)
	if err := c.err(); err != nil {
		return 0, err
	}
	return max(x, 0), nil
}
