package dataapi

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"testing"
)

func TestMux(t *testing.T) {
	m := NewMux()
	m.HandleFunc("/v2/trades", func(w http.ResponseWriter, r *http.Request) error {
		WriteData(w, r, []int{1})
		return nil
	})
	m.HandleFunc("/v2/fail", func(w http.ResponseWriter, r *http.Request) error {
		return Required("user")
	})
	m.HandleFunc("/v2/slow", func(w http.ResponseWriter, r *http.Request) error {
		return fmt.Errorf("store: %w", context.DeadlineExceeded)
	})
	m.HandleFunc("/v2/panic", func(w http.ResponseWriter, r *http.Request) error {
		panic("boom")
	})
	h := Trace(m)
	cases := []struct {
		method, path string
		status       int
		code         string
		allow        string
	}{
		{"GET", "/v2/trades", 200, "", ""},
		{"HEAD", "/v2/trades", 200, "", ""},
		{"POST", "/v2/trades", 405, "method_not_allowed", "GET, HEAD"},
		{"DELETE", "/v2/trades", 405, "method_not_allowed", "GET, HEAD"},
		{"OPTIONS", "/v2/trades", 405, "method_not_allowed", "GET, HEAD"},
		{"GET", "/v2/nope", 404, "not_found", ""},
		{"POST", "/v2/nope", 404, "not_found", ""},
		{"GET", "/v2/trades/", 404, "not_found", ""},
		{"GET", "/v2/fail", 400, "invalid_request", ""},
		{"GET", "/v2/slow", 503, "request_timeout", ""},
		{"GET", "/v2/panic", 500, "internal", ""},
	}
	for _, tc := range cases {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest(tc.method, tc.path, nil))
		if rec.Code != tc.status || rec.Header().Get(TraceHeader) == "" {
			t.Errorf("%s %s: %d (trace %q) want %d", tc.method, tc.path, rec.Code, rec.Header().Get(TraceHeader), tc.status)
			continue
		}
		if rec.Header().Get("Allow") != tc.allow {
			t.Errorf("%s %s: Allow %q", tc.method, tc.path, rec.Header().Get("Allow"))
		}
		if tc.code != "" {
			if got := decodeBody(t, rec)["code"]; got != tc.code {
				t.Errorf("%s %s: code %v want %s", tc.method, tc.path, got, tc.code)
			}
		}
	}
	if len(m.Routes()) != 4 {
		t.Errorf("routes %v", m.Routes())
	}
	defer func() {
		if recover() == nil {
			t.Error("duplicate route accepted")
		}
	}()
	m.HandleFunc("/v2/trades", nil)
}

func TestHandlerCanceledByDeadlineIsTimeout(t *testing.T) {
	ctx, cancel := context.WithCancelCause(context.Background())
	cancel(errDeadline)
	rec := httptest.NewRecorder()
	HandlerFunc(func(w http.ResponseWriter, r *http.Request) error {
		return r.Context().Err() // context.Canceled, as a driver reports it
	}).ServeHTTP(rec, httptest.NewRequest("GET", "/", nil).WithContext(ctx))
	if rec.Code != 503 || rec.Header().Get("Retry-After") != "1" {
		t.Fatalf("%d %q", rec.Code, rec.Header().Get("Retry-After"))
	}
	if !errors.Is(errDeadline, context.DeadlineExceeded) {
		t.Fatal("errDeadline must be a DeadlineExceeded")
	}
}
