package clobhttp

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"net/http"
	"strconv"
	"time"

	"pmx/internal/clob/clob"
	"pmx/internal/ratelimit"
)

// errorBody is the contract's error shape; code and retry_after_seconds are
// only sent by post-only mode.
type errorBody struct {
	Error      string `json:"error"`
	Code       string `json:"code,omitempty"`
	RetryAfter int64  `json:"retry_after_seconds,omitempty"`
}

// WriteError is the one mapping of CLOB errors to HTTP. A *clob.Error is
// sent with its catalogue status after the override rule; a cancelled
// request context is "context canceled"; anything else is logged and
// answered with fallback (ErrInternal when 0), so internal error text never
// reaches a client.
func WriteError(w http.ResponseWriter, log *slog.Logger, err error, fallback clob.Code) {
	var e *clob.Error
	switch {
	case errors.As(err, &e):
	case errors.Is(err, context.Canceled):
		e = clob.E(clob.ErrContextCanceled)
	default:
		if log != nil {
			log.Error("clob request failed", "err", err)
		}
		if fallback == 0 {
			fallback = clob.ErrInternal
		}
		e = clob.E(fallback)
	}
	if e.RetryAfter > 0 {
		w.Header().Set("Retry-After", strconv.FormatInt(e.RetryAfter, 10))
	}
	writeJSON(w, e.Status(), errorBody{Error: e.Msg, Code: e.Tag, RetryAfter: e.RetryAfter})
}

// fail writes a catalogue error by code.
func fail(w http.ResponseWriter, c clob.Code, args ...any) {
	WriteError(w, nil, clob.E(c, args...), 0)
}

// RateLimited is the CLOB listener's ratelimit.Rejecter: 429 with the
// contract's message and Retry-After.
func RateLimited(w http.ResponseWriter, _ *http.Request, retryAfter time.Duration, _ string) {
	w.Header().Set("Retry-After", ratelimit.RetryAfterSeconds(retryAfter))
	fail(w, clob.ErrTooManyRequests)
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	b, err := json.Marshal(v)
	if err != nil { // only our own fixed types are written; cannot happen
		status, b = http.StatusInternalServerError, []byte(`{"error":"Internal server error"}`)
	}
	writeRaw(w, status, b)
}

// jsonType is the Content-Type value, shared: Header.Set would allocate
// a fresh slice per answer (net/http copies the header map before writing).
var jsonType = []string{"application/json"}

func writeRaw(w http.ResponseWriter, status int, b []byte) {
	w.Header()["Content-Type"] = jsonType
	w.WriteHeader(status)
	_, _ = w.Write(b)
}
