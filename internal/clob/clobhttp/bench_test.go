package clobhttp_test

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// BenchmarkRequireL2 is L2 authentication alone (cached key record, cached
// derived credentials, HMAC) in front of a no-op handler: the fixed cost
// every trading request pays.
func BenchmarkRequireL2(b *testing.B) {
	e := newEnv(b)
	w := newWallet(b, priv0)
	c := e.do(b, "POST", "/auth/api-key", w.l1(now0, 0), "").creds(b)
	const body = `{"orderID":"0x0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"}`
	h := l2(w.addr, c, now0, "DELETE", "/order", body)
	next := e.h.RequireL2(http.HandlerFunc(func(http.ResponseWriter, *http.Request) {}))
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			req := httptest.NewRequest("DELETE", "/order", strings.NewReader(body))
			req.Header = h.Clone()
			rec := httptest.NewRecorder()
			next.ServeHTTP(rec, req)
			if rec.Code != 200 {
				b.Fatalf("%d %s", rec.Code, rec.Body)
			}
		}
	})
}

// BenchmarkL2Request is GET /auth/api-keys in-process without a socket: L2
// authentication plus the SQLite listing, which dominates.
func BenchmarkL2Request(b *testing.B) {
	e := newEnv(b)
	w := newWallet(b, priv0)
	c := e.do(b, "POST", "/auth/api-key", w.l1(now0, 0), "").creds(b)
	h := l2(w.addr, c, now0, "GET", "/auth/api-keys", "")
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			req := httptest.NewRequest("GET", "/auth/api-keys", nil)
			req.Header = h.Clone()
			rec := httptest.NewRecorder()
			e.h.ServeHTTP(rec, req)
			if rec.Code != 200 {
				b.Fatalf("%d %s", rec.Code, rec.Body)
			}
		}
	})
}

// BenchmarkDeriveAPIKey is GET /auth/derive-api-key: L1 signature recovery
// dominates.
func BenchmarkDeriveAPIKey(b *testing.B) {
	e := newEnv(b)
	w := newWallet(b, priv0)
	e.do(b, "POST", "/auth/api-key", w.l1(now0, 0), "").creds(b)
	h := w.l1(now0, 0)
	b.ReportAllocs()
	for b.Loop() {
		req := httptest.NewRequest("GET", "/auth/derive-api-key", nil)
		req.Header = h.Clone()
		rec := httptest.NewRecorder()
		e.h.ServeHTTP(rec, req)
		if rec.Code != 200 {
			b.Fatalf("%d %s", rec.Code, rec.Body)
		}
	}
}
