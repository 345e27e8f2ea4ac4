package perpsvc

import (
	"errors"
	"fmt"
	"testing"
	"time"

	"pmx/internal/perps/perpsauth"
)

// TestErrorCatalogue pins every entry: identifier, HTTP status and the text
// a client sees (with and without a detail). A new code without a row here
// fails the test.
func TestErrorCatalogue(t *testing.T) {
	want := map[Code]struct {
		id       string
		status   int
		bare     string // Error() without a detail
		detailed string // Error() with detail "x"
	}{
		CodeInternal:             {"internal_error", 500, "internal_error", "internal_error"},
		CodeUnavailable:          {"service_unavailable", 503, "service_unavailable", "service_unavailable"},
		CodeInvalidRequest:       {"invalid_request", 400, "invalid request", "invalid request: x"},
		CodeInvalidSignature:     {"invalid_signature", 400, "invalid signature", "invalid signature: x"},
		CodeSignatureExpired:     {"signature_expired", 400, "signature expired", "signature expired: x"},
		CodeAccountNotFound:      {"account_not_found", 400, "account not found for proxy", "account not found for proxy: x"},
		CodeCommandExpired:       {"command_expired", 400, "command expired", "command expired: x"},
		CodeReplayed:             {"signature_already_used", 422, "signature_already_used", "signature_already_used: x"},
		CodeUnauthorized:         {"unauthorized", 401, "unauthorized", "unauthorized: x"},
		CodeIPRateLimited:        {"ip_rate_limited", 429, "ip_rate_limited", "ip_rate_limited: x"},
		CodeActionRateLimited:    {"action_rate_limited", 429, "action_rate_limited", "action_rate_limited: x"},
		CodeMessageRateLimited:   {"message_rate_limited", 429, "message_rate_limited", "message_rate_limited: x"},
		CodeNoOrders:             {"no_orders", 400, "no orders provided", "no orders provided: x"},
		CodeTooManyItems:         {"too_many_items", 400, "invalid request: at most 100 items per request", "invalid request: at most 100 items per request: x"},
		CodeCancelOnly:           {"cancel_only_mode", 503, "cancel_only_mode", "cancel_only_mode: x"},
		CodePostOnly:             {"post_only_mode", 503, "post_only_mode", "post_only_mode: x"},
		CodeRefused:              {"refused", 400, "", "x"},
		CodeRejected:             {"rejected", 422, "", "x"},
		CodeInvalidProxy:         {"invalid_proxy", 400, "invalid request: proxy", "invalid request: proxy: x"},
		CodeInvalidExpiry:        {"invalid_expiry", 400, "invalid request: expiry", "invalid request: expiry: x"},
		CodeNotFound:             {"not_found", 404, "not_found", "not_found: x"},
		CodeInvalidOperatorInput: {"invalid_operator_input", 422, "invalid request", "invalid request: x"},
		CodeInvalidChannel:       {"invalid_channel", 400, "invalid channel", "invalid channel: x"},
		CodeSubscriptionLimit:    {"subscription_limit", 400, "subscription limit reached", "subscription limit reached: x"},
		CodeUpgradeRequired:      {"upgrade_required", 426, "websocket upgrade required", "websocket upgrade required: x"},
		CodeInvalidQuery:         {"invalid_query", 400, "invalid query parameters", "invalid query parameters: x"},
		CodeMoneyRefused:         {"money_refused", 422, "", "x"},
	}
	ids := map[string]bool{}
	for c := range numCodes {
		w, ok := want[c]
		if !ok {
			t.Errorf("code %d (%s) has no row in this test", c, errorsTable[c].id)
			continue
		}
		e, d := E(c, ""), E(c, "x")
		if e.ID() != w.id || e.Status() != w.status || e.Error() != w.bare || d.Error() != w.detailed {
			t.Errorf("code %d: %s %d %q %q, want %+v", c, e.ID(), e.Status(), e.Error(), d.Error(), w)
		}
		if ids[w.id] {
			t.Errorf("identifier %s used twice", w.id)
		}
		ids[w.id] = true
	}
}

// TestAsErrorNeverLeaksUnknownText: perpsauth's errors map to their entries
// (an invalid-request detail kept), anything else is internal_error without
// its text, however it is wrapped.
func TestAsErrorNeverLeaksUnknownText(t *testing.T) {
	for _, tc := range []struct {
		err  error
		code Code
		text string
	}{
		{perpsauth.ErrInvalidSignature, CodeInvalidSignature, "invalid signature"},
		{fmt.Errorf("x: %w", perpsauth.ErrSignatureExpired), CodeSignatureExpired, "signature expired"},
		{perpsauth.ErrAccountNotFound, CodeAccountNotFound, "account not found for proxy"},
		{perpsauth.ErrCommandExpired, CodeCommandExpired, "command expired"},
		{perpsauth.ErrReplayed, CodeReplayed, "signature_already_used"},
		{perpsauth.ErrReplayFull, CodeUnavailable, "service_unavailable"},
		{fmt.Errorf("%w: args: oid: expected a number", perpsauth.ErrInvalidRequest), CodeInvalidRequest, "invalid request: args: oid: expected a number"},
		{errors.New("open /var/pmx/perps/journal: permission denied"), CodeInternal, "internal_error"},
		{fmt.Errorf("wrapped: %w", errors.New("secret")), CodeInternal, "internal_error"},
		{&Error{Code: CodeUnavailable, Detail: "journal: fsync failed"}, CodeUnavailable, "service_unavailable"},
		{&Error{Code: CodeInternal, Detail: "panic text"}, CodeInternal, "internal_error"},
	} {
		e := AsError(tc.err)
		if e.Code != tc.code || e.Error() != tc.text {
			t.Errorf("%v: %s %q, want %s %q", tc.err, e.ID(), e.Error(), errorsTable[tc.code].id, tc.text)
		}
	}
	if e := AsError(perpsauth.ErrReplayFull); e.RetryAfter != time.Second {
		t.Errorf("a full replay cache must be retryable: %+v", e)
	}
}
