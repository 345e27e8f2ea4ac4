package clobhttp

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"net/http"
	"strings"
	"time"

	"pmx/internal/ratelimit"
)

// The CLOB's error messages, each spelled once (interface.md "CLOB errors").
// Clients match on these texts, so they are part of the contract.
const (
	MsgInvalidL1       = "Invalid L1 Request headers"
	MsgUnauthorized    = "Unauthorized/Invalid api key"
	MsgCreateAPIKey    = "Could not create api key"
	MsgDeriveAPIKey    = "Could not derive api key"
	MsgRetrieveAPIKeys = "Could not retrieve API keys"
	MsgDeleteAPIKey    = "Could not delete API key"
	MsgInvalidPayload  = "Invalid payload"
	MsgTooManyRequests = "Too Many Requests"
	MsgTradingDisabled = "Trading is currently disabled"
	MsgInternal        = "Internal server error"
	MsgNotFound        = "not found"
	MsgContextCanceled = "context canceled"
)

// Error is a CLOB error: the status a route chose and the message sent as
// {"error": Msg}. The status override rule may replace Status (see
// StatusOf).
type Error struct {
	Status int
	Msg    string
}

func (e *Error) Error() string { return e.Msg }

// newError builds an Error. Messages are the constants above, never text
// from internal errors, so nothing internal leaks into a response.
func newError(status int, msg string) *Error { return &Error{Status: status, Msg: msg} }

// StatusOf applies the contract's override to any message: one containing
// "not found" is 404, "unauthorized" 401, "context canceled" 400; otherwise
// the route's status stands. Matching ignores case, because production's own
// "Unauthorized/Invalid api key" is capitalised and is a 401.
func StatusOf(status int, msg string) int {
	m := strings.ToLower(msg)
	switch {
	case strings.Contains(m, "not found"):
		return http.StatusNotFound
	case strings.Contains(m, "unauthorized"):
		return http.StatusUnauthorized
	case strings.Contains(m, "context canceled"):
		return http.StatusBadRequest
	}
	return status
}

// WriteError writes err as the CLOB error body. An *Error is sent as is
// (after the override); a cancelled request context is "context canceled"
// (400 by the override); anything else is logged and answered with
// fallback, or 500 "Internal server error" when fallback is nil, so internal
// error text never reaches a client.
func WriteError(w http.ResponseWriter, log *slog.Logger, err error, fallback *Error) {
	var e *Error
	switch {
	case errors.As(err, &e):
	case errors.Is(err, context.Canceled):
		e = newError(http.StatusBadRequest, MsgContextCanceled)
	default:
		if log != nil {
			log.Error("clob request failed", "err", err)
		}
		e = fallback
		if e == nil {
			e = newError(http.StatusInternalServerError, MsgInternal)
		}
	}
	writeJSON(w, StatusOf(e.Status, e.Msg), struct {
		Error string `json:"error"`
	}{e.Msg})
}

// RateLimited is the CLOB listener's ratelimit.Rejecter: 429 with the
// contract's message and Retry-After.
func RateLimited(w http.ResponseWriter, _ *http.Request, retryAfter time.Duration, _ string) {
	w.Header().Set("Retry-After", ratelimit.RetryAfterSeconds(retryAfter))
	WriteError(w, nil, newError(http.StatusTooManyRequests, MsgTooManyRequests), nil)
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	b, err := json.Marshal(v)
	if err != nil { // only our own fixed types are written; cannot happen
		status, b = http.StatusInternalServerError, []byte(`{"error":"`+MsgInternal+`"}`)
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = w.Write(b)
}
