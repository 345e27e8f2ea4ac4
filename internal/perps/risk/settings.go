package risk

// Leverage and margin-mode update (perps.md §9.8, interface.md "Leverage and
// margin-mode update") and isolated margin adjustment ("Isolated margin
// adjustment"), as checks in the contract's order.

// ValidateLeverage checks an updateLeverage item against the contract's
// table. in is nil when the instrument was never listed. cur is the setting
// in force; orders counts the account's orders on the instrument including
// those awaiting risk approval or execution; blp says the account is enrolled
// in the backstop liquidity provider program for the instrument (refused
// even when nothing changes). Zero or negative leverage is ErrLeverageZero,
// which the API answers earlier as a plain 400.
func ValidateLeverage(in *Instrument, cur Setting, lev int64, cross bool, hasPosition bool, orders int, blp bool) error {
	if lev <= 0 {
		return ErrLeverageZero
	}
	if in == nil {
		return ErrInstrumentNotFound
	}
	if blp {
		return ErrBLPLeverageLocked
	}
	if lev > in.MaxLeverage {
		return ErrInvalidLeverage
	}
	if cross && in.IsolatedOnly {
		return ErrInvalidMarginMode
	}
	if cross != cur.Cross {
		if hasPosition {
			return ErrPositionExists
		}
		if orders > 0 {
			return ErrOpenOrdersExist
		}
	}
	return nil
}

// CheckLeverage is the margin side of a leverage change that passed
// ValidateLeverage: lowering the leverage raises the initial margin of the
// position and orders, which the account must afford (insufficient_margin);
// raising it always passes. A flagged scope refuses (account_liquidating).
func CheckLeverage(a *Account, mk Markets, s Setting) error {
	m := mk[s.IID]
	if m == nil {
		return ErrInstrumentNotFound
	}
	if a.Liquidating {
		return ErrAccountLiquidating
	}
	p := a.Position(s.IID)
	if p != nil && p.Liquidating {
		return ErrAccountLiquidating
	}
	cur := a.Setting(&m.Instrument)
	if s.Lev >= cur.Lev || (p == nil && !hasOrders(a, s.IID)) {
		return nil
	}
	if m.Mark <= 0 {
		return ErrMarkUnavailable
	}
	after := *a
	after.Settings = append(append([]Setting(nil), a.Settings...), Setting{})
	copy(after.Settings[1:], after.Settings)
	after.Settings[0] = s // first match wins in Setting
	avail, err := Available(&after, mk, nil)
	if err != nil {
		return err
	}
	if avail < 0 {
		return ErrInsufficientMargin
	}
	return nil
}

func hasOrders(a *Account, iid uint32) bool {
	for i := range a.Orders {
		if a.Orders[i].IID == iid {
			return true
		}
	}
	return false
}

// MarginWindow is the accepted age of an updateMargin signature timestamp.
const (
	MarginMaxAgeMs   = 5 * 60 * 1000
	MarginMaxAheadMs = 60 * 1000
)

// CheckMarginTimestamp refuses a margin adjustment signed more than 5
// minutes before now or more than 1 minute after it.
func CheckMarginTimestamp(tsMs, nowMs int64) error {
	if tsMs < nowMs-MarginMaxAgeMs || tsMs > nowMs+MarginMaxAheadMs {
		return ErrMarginTimestamp
	}
	return nil
}

// AdjustMargin checks an isolated margin adjustment of amt micro-units
// (positive: collateral into the allocation; negative: release, which may
// include unrealized profit, and may leave the allocation ≤ 0) and returns
// the new allocation; collateral changes by −amt. Replay protection
// (signature_already_used) is the machine's: it keeps the signatures.
func AdjustMargin(a *Account, mk Markets, iid uint32, amt int64) (newMargin int64, err error) {
	p := a.Position(iid)
	m := mk[iid]
	if p == nil || m == nil {
		return 0, ErrPositionNotFound
	}
	if a.Setting(&m.Instrument).Cross {
		return 0, ErrInvalidMarginMode
	}
	if amt == 0 {
		return 0, ErrInvalidMarginAmount
	}
	if a.Liquidating || p.Liquidating {
		return 0, ErrAccountLiquidating
	}
	if m.Mark <= 0 {
		return 0, ErrMarkUnavailable
	}
	var c calc
	nm := c.add(p.Margin, amt)
	if err := c.err(); err != nil {
		return 0, ErrInvalidMarginAmount // unrepresentable
	}
	if amt > 0 {
		avail, err := Available(a, mk, nil)
		if err != nil {
			return 0, err
		}
		if amt > min(avail, a.Collateral) {
			return 0, ErrInsufficientMargin
		}
		return nm, nil
	}
	r := positionRisk(&c, p, a.Setting(&m.Instrument), m)
	eq := c.add(nm, r.UPnL)
	if err := c.err(); err != nil {
		return 0, err
	}
	if eq < r.IM {
		return 0, ErrBelowRequiredInitial
	}
	return nm, nil
}
