// Package dataapi holds the data service v2 HTTP conventions shared by every
// route: coded errors, trace ids, the data/pagination envelope, signed typed
// cursors, query-parameter parsing and validation, method/route handling, and
// overload control. Route handlers live beside these files and use them.
package dataapi

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"time"
)

// Code is the stable machine-readable error classification of the contract.
type Code string

// The contract's codes. Their HTTP statuses live in one table, statusOf.
const (
	CodeInvalidRequest        Code = "invalid_request"
	CodeUnauthorized          Code = "unauthorized"
	CodeNotFound              Code = "not_found"
	CodeMethodNotAllowed      Code = "method_not_allowed"
	CodeRateLimited           Code = "rate_limited"
	CodeInternal              Code = "internal"
	CodeRequestTimeout        Code = "request_timeout"
	CodeDependencyUnavailable Code = "dependency_unavailable"
	// CodeGone is pmx's code for retired v1 routes (410); the contract's
	// enum has no code for it.
	CodeGone Code = "gone"
)

var statusOf = map[Code]int{
	CodeInvalidRequest:        http.StatusBadRequest,
	CodeUnauthorized:          http.StatusUnauthorized,
	CodeNotFound:              http.StatusNotFound,
	CodeMethodNotAllowed:      http.StatusMethodNotAllowed,
	CodeGone:                  http.StatusGone,
	CodeRateLimited:           http.StatusTooManyRequests,
	CodeInternal:              http.StatusInternalServerError,
	CodeRequestTimeout:        http.StatusServiceUnavailable,
	CodeDependencyUnavailable: http.StatusServiceUnavailable,
}

// Status is the HTTP status of a code (500 for an unknown one).
func (c Code) Status() int {
	if s, ok := statusOf[c]; ok {
		return s
	}
	return http.StatusInternalServerError
}

// Retryable says whether an automated client may retry unchanged: true for
// 429 and 503 only. A 500 is not: pmx reads a consistent local store, so an
// internal error is a bug that repeats, and it carries no Retry-After.
func (c Code) Retryable() bool {
	s := c.Status()
	return s == http.StatusTooManyRequests || s == http.StatusServiceUnavailable
}

// DefaultRetryAfter is the Retry-After of a retryable error that names none.
const DefaultRetryAfter = time.Second

// Error is the one error type handlers return for a non-2xx answer.
type Error struct {
	Code       Code
	Message    string
	Parameter  string        // the query parameter a validation failure concerns, or ""
	RetryAfter time.Duration // for retryable codes; 0 means DefaultRetryAfter
	Err        error         // cause, for logs only; never shown to the client
}

func (e *Error) Error() string {
	if e.Err != nil {
		return fmt.Sprintf("%s: %s: %v", e.Code, e.Message, e.Err)
	}
	return string(e.Code) + ": " + e.Message
}

func (e *Error) Unwrap() error { return e.Err }

// Invalid is a 400 about one parameter.
func Invalid(param, msg string) *Error {
	return &Error{Code: CodeInvalidRequest, Message: msg, Parameter: param}
}

// Invalidf is Invalid with a formatted message.
func Invalidf(param, format string, args ...any) *Error {
	return Invalid(param, fmt.Sprintf(format, args...))
}

// Required is the production message for a missing required parameter.
func Required(param string) *Error {
	return Invalidf(param, "required query param '%s' not provided", param)
}

// RequiredEither is production's message when neither of two anchors is
// sent (positions: 'user' or 'condition'); the parameter named is the first.
func RequiredEither(a, b string) *Error {
	return Invalidf(a, "required query param '%s' or '%s' not provided", a, b)
}

// NotFound is a 404.
func NotFound(msg string) *Error { return &Error{Code: CodeNotFound, Message: msg} }

// Gone is a 410 for a retired route; msg names the route to use instead.
func Gone(msg string) *Error { return &Error{Code: CodeGone, Message: msg} }

// RateLimited is a 429 with the remaining wait.
func RateLimited(msg string, retryAfter time.Duration) *Error {
	return &Error{Code: CodeRateLimited, Message: msg, RetryAfter: retryAfter}
}

// RequestTimeout is a 503 for a deadline, statement timeout or pool budget.
func RequestTimeout(cause error) *Error {
	return &Error{Code: CodeRequestTimeout, Message: "request timed out", Err: cause}
}

// Unavailable is a 503 for a serving dependency that is down.
func Unavailable(msg string, cause error) *Error {
	return &Error{Code: CodeDependencyUnavailable, Message: msg, Err: cause}
}

// Internal is a 500; the cause is logged, never shown.
func Internal(cause error) *Error {
	return &Error{Code: CodeInternal, Message: "internal server error", Err: cause}
}

// ErrAcquireTimeout is returned by a Gate whose acquire budget ran out; a
// store may also wrap it. It maps to 503 request_timeout.
var ErrAcquireTimeout = errors.New("database acquire budget exhausted")

// AsError classifies any error a handler or store returns:
//   - *Error (anywhere in the chain): itself;
//   - context.DeadlineExceeded, ErrAcquireTimeout, or an error with
//     Timeout() true (a statement or pool timeout): 503 request_timeout;
//   - an error with Unavailable() true: 503 dependency_unavailable;
//   - anything else: 500 internal.
func AsError(err error) *Error {
	var e *Error
	if errors.As(err, &e) {
		return e
	}
	var to interface{ Timeout() bool }
	if errors.Is(err, context.DeadlineExceeded) || errors.Is(err, ErrAcquireTimeout) ||
		(errors.As(err, &to) && to.Timeout()) {
		return RequestTimeout(err)
	}
	var un interface{ Unavailable() bool }
	if errors.As(err, &un) && un.Unavailable() {
		return Unavailable("a serving dependency is unavailable", err)
	}
	return Internal(err)
}
