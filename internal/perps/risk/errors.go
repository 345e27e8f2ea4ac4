package risk

// Error is a rejection with the contract's identifier as its text, so the
// service layer maps it to the wire without a table of its own.
type Error string

func (e Error) Error() string { return string(e) }

// The contract's identifiers (interface.md "Errors → Perpetuals", perps.md
// §6 and §9.4) this package can decide.
const (
	ErrInstrumentNotFound   Error = "instrument_not_found"
	ErrInvalidLeverage      Error = "invalid_leverage"
	ErrPositionExists       Error = "position_exists"
	ErrOpenOrdersExist      Error = "open_orders_exist"
	ErrBLPLeverageLocked    Error = "blp_leverage_locked"
	ErrInvalidMarginMode    Error = "invalid_margin_mode"
	ErrInsufficientMargin   Error = "insufficient_margin"
	ErrPositionNotFound     Error = "position_not_found"
	ErrInvalidMarginAmount  Error = "invalid_margin_amount"
	ErrAccountLiquidating   Error = "account_liquidating"
	ErrBelowRequiredInitial Error = "margin_below_required_initial"
	ErrMarginTimestamp      Error = "invalid_margin_signature_timestamp"
	ErrPriceOutsideBounds   Error = "price_outside_bounds"
	ErrMarkUnavailable      Error = "mark_price_unavailable" // an order status (§9.4)
	ErrInsufficientAtFill   Error = "insufficient_margin_at_fill"
	ErrInvalidCommand       Error = "invalid_command"
	ErrLeverageZero         Error = "leverage must be positive" // the earlier plain 400 (not an identifier)
)
