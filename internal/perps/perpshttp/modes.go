package perpshttp

import (
	"net/http"

	"pmx/internal/perps/perps"
)

// The exchange-wide engine state the operator shows or sets: the trading
// mode and the in-flight windows (the service journals the serve flags'
// windows at start).

// modeWire is the admin view of the trading mode.
type modeWire struct {
	Mode       string `json:"mode"` // normal, cancel_only or post_only
	RetryAfter int64  `json:"retry_after_seconds,omitempty"`
}

// modeSet is the body of POST /admin/perps/mode: an absent
// retry_after_seconds takes the default, a given one must be 1..86400.
type modeSet struct {
	Mode       string `json:"mode"`
	RetryAfter *int64 `json:"retry_after_seconds"`
}

func (s *Server) modeNow() (modeWire, error) {
	mode, retry, err := s.svc.Mode()
	return modeWire{Mode: mode, RetryAfter: retry}, err
}

// adminGetMode: GET /admin/perps/mode → {mode, retry_after_seconds?}.
func (s *Server) adminGetMode(w http.ResponseWriter, r *http.Request) {
	m, err := s.modeNow()
	if err != nil {
		s.writeError(w, err, false)
		return
	}
	writeJSON(w, 200, m)
}

// adminSetMode: POST /admin/perps/mode {mode: normal|cancel_only|post_only,
// retry_after_seconds?} sets the exchange-wide trading mode (a journaled
// engine command) → 200 {mode, retry_after_seconds?}.
func (s *Server) adminSetMode(w http.ResponseWriter, r *http.Request) {
	var b modeSet
	if !decodeStrict(w, r, &b) {
		return
	}
	if err := s.svc.SetMode(b.Mode, b.RetryAfter); err != nil {
		s.writeError(w, err, false)
		return
	}
	m, _ := s.modeNow()
	writeJSON(w, 200, m)
}

// adminGetFlight: GET /admin/perps/flight → the in-flight windows in force
// (set by the serve flags at start).
func (s *Server) adminGetFlight(w http.ResponseWriter, r *http.Request) {
	viewJSON(s, w, func(m *perps.Machine) perps.Flight { return m.Flight() })
}

// cancelOnly reports the cancel_only flag of /v1/info/exchange.
func (s *Server) cancelOnly() bool {
	mode, _, _ := s.svc.Mode()
	return mode == perps.ModeCancelOnly
}
