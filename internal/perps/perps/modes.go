package perps

// Exchange-wide state set by the operator or, later, by the risk engine:
// the in-flight windows (Flight, KConfig), the trading mode (KMode) and an
// account's liquidation flag (KLiquidating). All three are machine state,
// changed only by journaled commands and kept in snapshots, so a replay
// reproduces every answer given under them.

// Flight is the in-flight window configuration in force (inflight.go).
type Flight struct {
	AcceptMs      int64 `json:"accept_ms,omitempty"`
	TakerMs       int64 `json:"taker_ms,omitempty"`
	RiskMs        int64 `json:"risk_ms,omitempty"`
	ModifyMs      int64 `json:"modify_ms,omitempty"`
	COIDWaitMs    int64 `json:"coid_ms,omitempty"` // cancel-by-coid waits this long for a racing create (coidwait.go)
	NoHeldCancels bool  `json:"no_held,omitempty"`
}

// MaxDelayMs bounds each window: they model milliseconds of pipeline
// latency, not parking orders.
const MaxDelayMs = 60_000

// Trading modes. "" is normal trading.
const (
	ModeNormal     = ""
	ModeCancelOnly = "cancel_only" // new orders refused (cancel_only_mode); cancels work
	ModePostOnly   = "post_only"   // only post-only orders (post_only_mode) and cancels
)

// Errors of the trading modes.
const (
	ErrCancelOnlyMode = "cancel_only_mode"
	ErrPostOnlyMode   = "post_only_mode"
)

// DefaultRetryAfter is the retry hint (seconds) of a mode set without one.
const DefaultRetryAfter = 60

// Flight reports the in-flight windows in force.
func (m *Machine) Flight() Flight { return m.fl }

// Mode reports the trading mode and its retry hint in seconds.
func (m *Machine) Mode() (mode string, retryAfter int64) { return m.mode, m.modeRetry }

// Liquidating reports the account's liquidation flag.
func (m *Machine) Liquidating(addr string) bool {
	a := m.accts[addr]
	return a != nil && a.Liquidating
}

// setFlight replaces the windows. Orders and modifies already in flight
// keep the due time they were given.
func (m *Machine) setFlight(c *Command, ev *Event) {
	f := c.Flight
	if f == nil {
		ev.Err = "invalid config"
		return
	}
	for _, d := range []int64{f.AcceptMs, f.TakerMs, f.RiskMs, f.ModifyMs, f.COIDWaitMs} {
		if d < 0 || d > MaxDelayMs {
			ev.Err = "invalid config"
			return
		}
	}
	m.fl = *f
}

func (m *Machine) setMode(c *Command, ev *Event) {
	switch c.Mode {
	case ModeNormal, "normal":
		m.mode, m.modeRetry = ModeNormal, 0
		return
	case ModeCancelOnly, ModePostOnly:
	default:
		ev.Err = "invalid mode"
		return
	}
	r := c.RetryAfter
	if r == 0 {
		r = DefaultRetryAfter
	}
	if r < 1 || r > 86400 {
		ev.Err = "invalid retry_after_seconds"
		return
	}
	m.mode, m.modeRetry = c.Mode, r
}

// setLiquidating sets or clears the account's liquidation flag. The margin
// issue's liquidation engine submits it; until then only tests and the
// operator's engine commands do. While set, a cancel of an order awaiting
// risk checks or in flight is order_in_flight (the contract's cancel table).
// With IID set it is the flag of the account's isolated position there.
func (m *Machine) setLiquidating(c *Command, ev *Event) {
	a := m.accts[c.Account]
	if a == nil {
		ev.Err = "account not found"
		return
	}
	if c.IID != 0 {
		p := a.Positions[c.IID]
		if p == nil || !p.Iso {
			ev.Err = "position_not_found"
			return
		}
		p.Liq = c.On
		return
	}
	a.Liquidating = c.On
}
