package dataapi

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

func TestCodeStatusTable(t *testing.T) {
	cases := []struct {
		code      Code
		status    int
		retryable bool
	}{
		{CodeInvalidRequest, 400, false},
		{CodeUnauthorized, 401, false},
		{CodeNotFound, 404, false},
		{CodeMethodNotAllowed, 405, false},
		{CodeGone, 410, false},
		{CodeRateLimited, 429, true},
		{CodeInternal, 500, false},
		{CodeRequestTimeout, 503, true},
		{CodeDependencyUnavailable, 503, true},
		{Code("bogus"), 500, false},
	}
	for _, tc := range cases {
		if got := tc.code.Status(); got != tc.status {
			t.Errorf("%s: status %d want %d", tc.code, got, tc.status)
		}
		if got := tc.code.Retryable(); got != tc.retryable {
			t.Errorf("%s: retryable %v want %v", tc.code, got, tc.retryable)
		}
	}
}

type timeoutErr struct{}

func (timeoutErr) Error() string { return "pool timeout" }
func (timeoutErr) Timeout() bool { return true }

type downErr struct{}

func (downErr) Error() string     { return "db down" }
func (downErr) Unavailable() bool { return true }

func TestAsError(t *testing.T) {
	inv := Invalid("user", "bad")
	cases := []struct {
		err  error
		code Code
	}{
		{inv, CodeInvalidRequest},
		{fmt.Errorf("wrapped: %w", inv), CodeInvalidRequest},
		{context.DeadlineExceeded, CodeRequestTimeout},
		{fmt.Errorf("query: %w", context.DeadlineExceeded), CodeRequestTimeout},
		{ErrAcquireTimeout, CodeRequestTimeout},
		{timeoutErr{}, CodeRequestTimeout},
		{downErr{}, CodeDependencyUnavailable},
		{errors.New("boom"), CodeInternal},
	}
	for _, tc := range cases {
		if got := AsError(tc.err).Code; got != tc.code {
			t.Errorf("%v: %s want %s", tc.err, got, tc.code)
		}
	}
	if AsError(fmt.Errorf("x: %w", inv)) != inv {
		t.Error("a wrapped *Error must come back as itself")
	}
}

func decodeBody(t *testing.T, rec *httptest.ResponseRecorder) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(rec.Body.Bytes(), &m); err != nil {
		t.Fatalf("body %q: %v", rec.Body.String(), err)
	}
	return m
}

func TestWriteErrorBody(t *testing.T) {
	cases := []struct {
		name       string
		err        error
		status     int
		retryAfter string
		param      any
	}{
		{"400 with parameter", Required("user"), 400, "", "user"},
		{"400 either anchor", RequiredEither("user", "condition"), 400, "", "user"},
		{"404 without parameter", NotFound("no route"), 404, "", nil},
		{"429 carries Retry-After rounded up", RateLimited(MsgTooMany, 2500*time.Millisecond), 429, "3", nil},
		{"503 timeout defaults Retry-After", context.DeadlineExceeded, 503, "1", nil},
		{"503 dependency", downErr{}, 503, "1", nil},
		{"500 hides its cause and has no Retry-After", errors.New("secret detail"), 500, "", nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			rec := httptest.NewRecorder()
			req := httptest.NewRequest(http.MethodGet, "/v2/x", nil)
			Trace(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				WriteError(w, r, tc.err)
			})).ServeHTTP(rec, req)
			if rec.Code != tc.status {
				t.Fatalf("status %d want %d", rec.Code, tc.status)
			}
			if got := rec.Header().Get("Retry-After"); got != tc.retryAfter {
				t.Errorf("Retry-After %q want %q", got, tc.retryAfter)
			}
			if ct := rec.Header().Get("Content-Type"); ct != "application/json" {
				t.Errorf("content type %q", ct)
			}
			m := decodeBody(t, rec)
			e := AsError(tc.err)
			if m["code"] != string(e.Code) || m["retryable"] != e.Code.Retryable() || m["error"] != e.Message {
				t.Errorf("body %v", m)
			}
			if m["trace_id"] == "" || m["trace_id"] != rec.Header().Get(TraceHeader) {
				t.Errorf("trace_id %v vs header %q", m["trace_id"], rec.Header().Get(TraceHeader))
			}
			if p, ok := m["parameter"]; tc.param == nil && ok || tc.param != nil && p != tc.param {
				t.Errorf("parameter %v want %v", p, tc.param)
			}
			if tc.status == 500 && rec.Body.String() != "" && strings.Contains(rec.Body.String(), "secret detail") {
				t.Error("500 leaked its cause")
			}
		})
	}
}
