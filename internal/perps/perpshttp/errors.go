package perpshttp

import (
	"net/http"

	"pmx/internal/perps/perpsvc"
)

// The one mapping from the service's error catalogue (perpsvc/errors.go) to
// answers: the status is the entry's, the body the contract's
// {status:"err", error} (a one-element array on batch routes), and an error
// outside the catalogue is logged and answered 500 internal_error without
// its text.

// modeBody is the 503 answer of a trading mode. post_only_mode carries code
// and retry_after_seconds (the contract's post-only body); cancel_only_mode
// carries neither (perps.md names only the identifier).
type modeBody struct {
	Status     string `json:"status"`
	Error      string `json:"error"`
	Code       string `json:"code,omitempty"`
	RetryAfter int64  `json:"retry_after_seconds,omitempty"`
}

// catalogued is err as a catalogue error; unknown errors are logged.
func (s *Server) catalogued(err error) *perpsvc.Error {
	e := perpsvc.AsError(err)
	if e.Code == perpsvc.CodeInternal && err != e {
		s.log.Error("perps internal error", "err", err)
	}
	return e
}

// errorBody is the body of err (batch: the one-element array form).
func errorBody(e *perpsvc.Error, batch bool) any {
	var body any = errBody{Status: "err", Error: e.Error()}
	switch e.Code {
	case perpsvc.CodeCancelOnly, perpsvc.CodePostOnly:
		b := modeBody{Status: "err", Error: e.Error()}
		if e.Code == perpsvc.CodePostOnly {
			b.Code, b.RetryAfter = e.Error(), int64(e.RetryAfter.Seconds())
		}
		if batch {
			return []modeBody{b}
		}
		return b
	}
	if batch {
		return []any{body}
	}
	return body
}

// writeError answers err with its catalogue status and body, and
// Retry-After when the entry carries a wait.
func (s *Server) writeError(w http.ResponseWriter, err error, batch bool) {
	writeCatalogued(w, s.catalogued(err), batch)
}

// writeCatalogued answers a catalogue error (the parsers' refusals, which
// have no server to log through).
func writeCatalogued(w http.ResponseWriter, e *perpsvc.Error, batch bool) {
	if e.RetryAfter > 0 {
		retryAfter(w, e.RetryAfter)
	}
	writeJSON(w, e.Status(), errorBody(e, batch))
}
