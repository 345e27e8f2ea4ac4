package clobhttp

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"
)

// The texts clients match on, spelled out independently of the constants.
func TestMessages(t *testing.T) {
	tests := []struct{ got, want string }{
		{MsgInvalidL1, "Invalid L1 Request headers"},
		{MsgUnauthorized, "Unauthorized/Invalid api key"},
		{MsgCreateAPIKey, "Could not create api key"},
		{MsgDeriveAPIKey, "Could not derive api key"},
		{MsgRetrieveAPIKeys, "Could not retrieve API keys"},
		{MsgDeleteAPIKey, "Could not delete API key"},
		{MsgInvalidPayload, "Invalid payload"},
		{MsgTooManyRequests, "Too Many Requests"},
		{MsgTradingDisabled, "Trading is currently disabled"},
		{MsgInternal, "Internal server error"},
		{MsgNotFound, "not found"},
		{MsgContextCanceled, "context canceled"},
	}
	for _, tc := range tests {
		if tc.got != tc.want {
			t.Errorf("message %q, want %q", tc.got, tc.want)
		}
	}
}

func TestStatusOverride(t *testing.T) {
	tests := []struct {
		status int
		msg    string
		want   int
	}{
		{400, "No orderbook exists for the requested token id", 400},
		{400, "market not found", 404},
		{500, "order not found", 404},
		{400, "Not Found", 404},
		{400, "Unauthorized/Invalid api key", 401},
		{500, "unauthorized", 401},
		{500, "context canceled", 400},
		{503, "Trading is currently disabled", 503},
		{429, "Too Many Requests", 429},
		{400, "Invalid L1 Request headers", 400}, // no keyword: the route's status stands
		{500, "not found and unauthorized", 404}, // first rule wins
	}
	for _, tc := range tests {
		if got := StatusOf(tc.status, tc.msg); got != tc.want {
			t.Errorf("StatusOf(%d, %q) = %d, want %d", tc.status, tc.msg, got, tc.want)
		}
	}
}

func TestWriteError(t *testing.T) {
	tests := []struct {
		name     string
		err      error
		fallback *Error
		status   int
		body     string
	}{
		{"route error", newError(400, MsgCreateAPIKey), nil, 400, `{"error":"Could not create api key"}`},
		{"override applies to route errors", newError(400, "market not found"), nil, 404, `{"error":"market not found"}`},
		{"wrapped route error", fmt.Errorf("ctx: %w", newError(401, MsgInvalidL1)), nil, 401, `{"error":"Invalid L1 Request headers"}`},
		{"cancelled request", fmt.Errorf("query: %w", context.Canceled), errList, 400, `{"error":"context canceled"}`},
		{"internal error hidden", errors.New("sqlite: disk I/O error"), nil, 500, `{"error":"Internal server error"}`},
		{"internal error with the route's text", errors.New("boom"), errList, 500, `{"error":"Could not retrieve API keys"}`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			rec := httptest.NewRecorder()
			WriteError(rec, nil, tc.err, tc.fallback)
			if rec.Code != tc.status || rec.Body.String() != tc.body || rec.Header().Get("Content-Type") != "application/json" {
				t.Fatalf("got %d %s (%s)", rec.Code, rec.Body, rec.Header().Get("Content-Type"))
			}
		})
	}
}

func TestRateLimited(t *testing.T) {
	rec := httptest.NewRecorder()
	RateLimited(rec, httptest.NewRequest("GET", "/auth/api-keys", nil), 1500*time.Millisecond, "clob api-keys")
	if rec.Code != http.StatusTooManyRequests || rec.Body.String() != `{"error":"Too Many Requests"}` || rec.Header().Get("Retry-After") != "2" {
		t.Fatalf("got %d %s Retry-After %q", rec.Code, rec.Body, rec.Header().Get("Retry-After"))
	}
}
