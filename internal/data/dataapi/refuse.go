package dataapi

import (
	"net/http"
	"time"
)

// Refuse is the data listener's server.Refuser: a listener-level refusal
// (unclean path, unwanted or stalled request body) as the contract's error
// body with its trace id. The contract's codes have no 408 or 413, so body
// faults are invalid_request (400).
func Refuse(w http.ResponseWriter, r *http.Request, status int, msg string) {
	var e *Error
	switch status {
	case http.StatusNotFound:
		e = NotFound(msg)
	case http.StatusTooManyRequests:
		e = RateLimited(msg, time.Second)
	default:
		e = &Error{Code: CodeInvalidRequest, Message: msg}
	}
	WriteError(w, r, e)
}
