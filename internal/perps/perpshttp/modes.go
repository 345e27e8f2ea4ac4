package perpshttp

import (
	"net/http"
	"time"

	"pmx/internal/perps/perps"
)

// The exchange-wide engine state the server shows or sets: the in-flight
// windows (journaled as a KConfig command when the options differ from what
// the journal says is in force), the trading mode (admin routes) and the
// answers a mode gives to new orders.

// optionsFlight is the Flight the server's options ask for.
func (o *Options) optionsFlight() perps.Flight {
	return perps.Flight{AcceptMs: o.AcceptDelay.Milliseconds(), TakerMs: o.TakerDelay.Milliseconds(),
		RiskMs: o.RiskDelay.Milliseconds(), ModifyMs: o.ModifyDelay.Milliseconds(), COIDWaitMs: o.COIDWait.Milliseconds(),
		NoHeldCancels: o.NoHeldCancels}
}

// applyFlight runs after recovery: the journal replayed with the windows in
// force when each command was applied; from now on the options' windows
// hold, journaled (so the next replay switches at this point too). It
// reports whether the pump is needed: a window is open or a step is pending.
func (s *Server) applyFlight() (pump bool, err error) {
	want := s.opt.optionsFlight()
	var have perps.Flight
	var due int64
	if err := s.view(func(m *perps.Machine) { have, due = m.Flight(), m.NextDue() }); err != nil {
		return false, err
	}
	if have != want {
		ev, err := s.submit(&perps.Command{Kind: perps.KConfig, Flight: &want})
		if err != nil {
			return false, err
		}
		if ev.Err != "" {
			return false, errorString("perpshttp: in-flight windows: " + ev.Err)
		}
		s.log.Info("perps in-flight windows", "was", have, "now", want)
	}
	return want.AcceptMs > 0 || want.TakerMs > 0 || want.RiskMs > 0 || want.ModifyMs > 0 || want.COIDWaitMs > 0 || due > 0, nil
}

type errorString string

func (e errorString) Error() string { return string(e) }

// modeBody is the 503 answer of a trading mode. post_only_mode carries code
// and retry_after_seconds (the contract's post-only body); cancel_only_mode
// carries neither (perps.md names only the identifier).
type modeBody struct {
	Status     string `json:"status"`
	Error      string `json:"error"`
	Code       string `json:"code,omitempty"`
	RetryAfter int64  `json:"retry_after_seconds,omitempty"`
}

// refused answers a command the engine refused whole (Event.Err): 503 for a
// trading mode (with Retry-After), else 400.
func refused(batch bool, ev perps.Event) result {
	switch ev.Err {
	case perps.ErrCancelOnlyMode, perps.ErrPostOnlyMode:
		b := modeBody{Status: "err", Error: ev.Err}
		if ev.Err == perps.ErrPostOnlyMode {
			b.Code, b.RetryAfter = ev.Err, ev.RetryAfter
		}
		res := result{code: http.StatusServiceUnavailable, body: b, retry: time.Duration(ev.RetryAfter) * time.Second}
		if batch {
			res.body = []modeBody{b}
		}
		return res
	}
	return errResult(batch, 400, ev.Err)
}

// modeWire is the admin view of the trading mode.
type modeWire struct {
	Mode       string `json:"mode"` // normal, cancel_only or post_only
	RetryAfter int64  `json:"retry_after_seconds,omitempty"`
}

func (s *Server) modeNow() (modeWire, error) {
	var w modeWire
	err := s.view(func(m *perps.Machine) { w.Mode, w.RetryAfter = m.Mode() })
	if w.Mode == perps.ModeNormal {
		w.Mode = "normal"
	}
	return w, err
}

// adminGetMode: GET /admin/perps/mode → {mode, retry_after_seconds?}.
func (s *Server) adminGetMode(w http.ResponseWriter, r *http.Request) {
	m, err := s.modeNow()
	if err != nil {
		s.engineErr(w, err, false)
		return
	}
	writeJSON(w, 200, m)
}

// adminSetMode: POST /admin/perps/mode {mode: normal|cancel_only|post_only,
// retry_after_seconds?} sets the exchange-wide trading mode (a journaled
// engine command) → 200 {mode, retry_after_seconds?}.
func (s *Server) adminSetMode(w http.ResponseWriter, r *http.Request) {
	var b modeWire
	if !decodeStrict(w, r, &b) {
		return
	}
	if b.Mode == "" {
		writeErr(w, 400, "invalid request: mode is required")
		return
	}
	s.adminSubmit(w, &perps.Command{Kind: perps.KMode, Mode: b.Mode, RetryAfter: b.RetryAfter}, func(perps.Event) {
		m, _ := s.modeNow()
		writeJSON(w, 200, m)
	})
}

// adminGetFlight: GET /admin/perps/flight → the in-flight windows in force
// (set by the serve flags at start).
func (s *Server) adminGetFlight(w http.ResponseWriter, r *http.Request) {
	viewJSON(s, w, func(m *perps.Machine) perps.Flight { return m.Flight() })
}

// cancelOnly reports the cancel_only flag of /v1/info/exchange.
func (s *Server) cancelOnly() bool {
	var mode string
	_ = s.view(func(m *perps.Machine) { mode, _ = m.Mode() })
	return mode == perps.ModeCancelOnly
}
