package clobhttp

import (
	"context"
	"errors"
	"fmt"
	"net/http/httptest"
	"testing"

	"pmx/internal/clob/clob"
)

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
		if got := clob.StatusOf(tc.status, tc.msg); got != tc.want {
			t.Errorf("StatusOf(%d, %q) = %d, want %d", tc.status, tc.msg, got, tc.want)
		}
	}
}

func TestWriteError(t *testing.T) {
	tests := []struct {
		name     string
		err      error
		fallback clob.Code
		status   int
		body     string
	}{
		{"catalogue error", clob.E(clob.ErrCreateAPIKey), 0, 400, `{"error":"Could not create api key"}`},
		{"override applies", clob.E(clob.ErrMarketNotFound), 0, 404, `{"error":"market not found"}`},
		{"wrapped catalogue error", fmt.Errorf("ctx: %w", clob.E(clob.ErrInvalidL1)), 0, 401, `{"error":"Invalid L1 Request headers"}`},
		{"context canceled", fmt.Errorf("query: %w", context.Canceled), clob.ErrRetrieveAPIKeys, 400, `{"error":"context canceled"}`},
		{"internal error uses the fallback", errors.New("disk I/O error: secret"), clob.ErrRetrieveAPIKeys, 500, `{"error":"Could not retrieve API keys"}`},
		{"internal error without fallback", errors.New("disk I/O error: secret"), 0, 500, `{"error":"Internal server error"}`},
		{"post-only mode", &clob.Error{Code: clob.ErrPostOnlyMode, Msg: clob.Catalogue[clob.ErrPostOnlyMode].Msg, RetryAfter: 7, Tag: "post_only_mode"}, 0, 503,
			`{"error":"Trading is currently post-only. Only post-only orders and cancels are allowed.","code":"post_only_mode","retry_after_seconds":7}`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			rec := httptest.NewRecorder()
			WriteError(rec, nil, tc.err, tc.fallback)
			if rec.Code != tc.status || rec.Body.String() != tc.body {
				t.Fatalf("got %d %s, want %d %s", rec.Code, rec.Body, tc.status, tc.body)
			}
		})
	}
}
