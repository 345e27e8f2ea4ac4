package perpsvc

import (
	"errors"
	"strings"
	"time"

	"pmx/internal/perps/perpsauth"
)

// Code identifies a catalogue entry.
type Code uint8

// The perps error catalogue: every error the service (and its HTTP and
// WebSocket transports) answers is one of these. errorsTable holds the
// identifier, the HTTP status and the client-facing message of each;
// TestErrorCatalogue pins every entry.
const (
	CodeInternal             Code = iota // anything unrecognised: logged, never shown
	CodeUnavailable                      // the engine is closed or its journal failed; outcome unknown
	CodeInvalidRequest                   // malformed body, op or args (Detail says which field)
	CodeInvalidSignature                 // perpsauth.ErrInvalidSignature
	CodeSignatureExpired                 // perpsauth.ErrSignatureExpired
	CodeAccountNotFound                  // perpsauth.ErrAccountNotFound
	CodeCommandExpired                   // perpsauth.ErrCommandExpired
	CodeReplayed                         // perpsauth.ErrReplayed
	CodeUnauthorized                     // missing or wrong proxy credentials
	CodeIPRateLimited                    // request weight per IP
	CodeActionRateLimited                // action weight per account
	CodeMessageRateLimited               // WebSocket message weight per IP
	CodeNoOrders                         // an empty createOrders or modify batch
	CodeTooManyItems                     // more than MaxBatch items
	CodeCancelOnly                       // trading mode cancel_only (RetryAfter)
	CodePostOnly                         // trading mode post_only (RetryAfter)
	CodeRefused                          // the machine refused a trading command whole (Detail: its identifier)
	CodeRejected                         // the machine refused an operator or proxy command (Detail: its identifier)
	CodeInvalidProxy                     // createProxy: proxy is the owner or the zero address
	CodeInvalidExpiry                    // createProxy: expiry beyond MaxProxyLifetime
	CodeNotFound                         // no such route
	CodeInvalidOperatorInput             // operator input out of range (Detail says which field)
	CodeInvalidChannel                   // WebSocket sub: no such channel (Detail: the channel)
	CodeSubscriptionLimit                // WebSocket sub: MaxSubs reached
	CodeUpgradeRequired                  // /v1/ws without a WebSocket upgrade
	CodeInvalidQuery                     // a query parameter (Detail: which, and what was expected)
	CodeMoneyRefused                     // a withdrawal or transfer refused by the machine (Detail: its identifier; answered with its id)
	numCodes
)

type entry struct {
	id     string // stable identifier (logs, tests)
	status int    // HTTP status
	msg    string // client text; "" means the Detail alone is the text
}

var errorsTable = [numCodes]entry{
	CodeInternal:             {"internal_error", 500, "internal_error"},
	CodeUnavailable:          {"service_unavailable", 503, "service_unavailable"},
	CodeInvalidRequest:       {"invalid_request", 400, "invalid request"},
	CodeInvalidSignature:     {"invalid_signature", 400, "invalid signature"},
	CodeSignatureExpired:     {"signature_expired", 400, "signature expired"},
	CodeAccountNotFound:      {"account_not_found", 400, "account not found for proxy"},
	CodeCommandExpired:       {"command_expired", 400, "command expired"},
	CodeReplayed:             {"signature_already_used", 422, "signature_already_used"},
	CodeUnauthorized:         {"unauthorized", 401, "unauthorized"},
	CodeIPRateLimited:        {"ip_rate_limited", 429, "ip_rate_limited"},
	CodeActionRateLimited:    {"action_rate_limited", 429, "action_rate_limited"},
	CodeMessageRateLimited:   {"message_rate_limited", 429, "message_rate_limited"},
	CodeNoOrders:             {"no_orders", 400, "no orders provided"},
	CodeTooManyItems:         {"too_many_items", 400, "invalid request: at most 100 items per request"},
	CodeCancelOnly:           {"cancel_only_mode", 503, "cancel_only_mode"},
	CodePostOnly:             {"post_only_mode", 503, "post_only_mode"},
	CodeRefused:              {"refused", 400, ""},
	CodeRejected:             {"rejected", 422, ""},
	CodeInvalidProxy:         {"invalid_proxy", 400, "invalid request: proxy"},
	CodeInvalidExpiry:        {"invalid_expiry", 400, "invalid request: expiry"},
	CodeNotFound:             {"not_found", 404, "not_found"},
	CodeInvalidOperatorInput: {"invalid_operator_input", 422, "invalid request"},
	CodeInvalidChannel:       {"invalid_channel", 400, "invalid channel"},
	CodeSubscriptionLimit:    {"subscription_limit", 400, "subscription limit reached"},
	CodeUpgradeRequired:      {"upgrade_required", 426, "websocket upgrade required"},
	CodeInvalidQuery:         {"invalid_query", 400, "invalid query parameters"},
	CodeMoneyRefused:         {"money_refused", 422, ""},
}

// Error is one catalogue error. Detail refines the message (a field name
// and what was expected; never a Go type or an internal error's text).
type Error struct {
	Code       Code
	Detail     string
	RetryAfter time.Duration // > 0: the client should wait this long
}

// E is a catalogue error with an optional detail.
func E(c Code, detail string) *Error { return &Error{Code: c, Detail: detail} }

// Error is the client-facing text.
func (e *Error) Error() string {
	t := errorsTable[e.Code]
	switch {
	case e.Code == CodeInternal || e.Code == CodeUnavailable:
		return t.msg // never a detail: it could carry internal text
	case t.msg == "":
		return e.Detail
	case e.Detail == "":
		return t.msg
	}
	return t.msg + ": " + e.Detail
}

// ID is the entry's stable identifier.
func (e *Error) ID() string {
	if e.Code >= numCodes {
		return ""
	}
	return errorsTable[e.Code].id
}

// Status is the entry's HTTP status.
func (e *Error) Status() int { return errorsTable[e.Code].status }

// AsError is err as a catalogue error: perpsauth's errors map to their
// entries, anything unrecognised to CodeInternal (the caller logs it; its
// text never reaches a client).
func AsError(err error) *Error {
	var e *Error
	switch {
	case errors.As(err, &e):
		return e
	case errors.Is(err, perpsauth.ErrReplayed):
		return E(CodeReplayed, "")
	case errors.Is(err, perpsauth.ErrReplayFull):
		return &Error{Code: CodeUnavailable, RetryAfter: time.Second}
	case errors.Is(err, perpsauth.ErrInvalidSignature):
		return E(CodeInvalidSignature, "")
	case errors.Is(err, perpsauth.ErrSignatureExpired):
		return E(CodeSignatureExpired, "")
	case errors.Is(err, perpsauth.ErrAccountNotFound):
		return E(CodeAccountNotFound, "")
	case errors.Is(err, perpsauth.ErrCommandExpired):
		return E(CodeCommandExpired, "")
	case errors.Is(err, perpsauth.ErrInvalidRequest):
		// perpsauth words its details for clients (field and expectation).
		d, _ := strings.CutPrefix(err.Error(), perpsauth.ErrInvalidRequest.Error())
		return E(CodeInvalidRequest, strings.TrimPrefix(d, ": "))
	}
	return E(CodeInternal, "")
}

// unavailable is the answer to a failed Submit or View.
func unavailable() *Error { return &Error{Code: CodeUnavailable, RetryAfter: time.Second} }
