package ratelimit

import (
	"net/http"
	"net/http/httptest"
	"strconv"
	"testing"

	"pmx/internal/clock"
)

// unbounded is DataDefaults with limits no benchmark reaches, so the
// admission path (match, lock, window check, charge) is what is measured.
func unbounded() Config {
	c := DataDefaults()
	for i := range c.Rules {
		c.Rules[i].Limit = 1 << 30
	}
	return c
}

func BenchmarkAdmitOneKey(b *testing.B) {
	l, _ := New(unbounded(), nil)
	scopes := []string{"general", "v2", "v2 trades"}
	for b.Loop() {
		l.Admit("203.0.113.7", scopes)
	}
}

func BenchmarkAdmitParallelManyKeys(b *testing.B) {
	l, _ := New(unbounded(), nil)
	scopes := []string{"general", "v2", "v2 trades"}
	keys := make([]string, 4096)
	for i := range keys {
		keys[i] = "198.51." + strconv.Itoa(i/256) + "." + strconv.Itoa(i%256)
	}
	b.RunParallel(func(pb *testing.PB) {
		i := 0
		for pb.Next() {
			l.Admit(keys[i%len(keys)], scopes)
			i++
		}
	})
}

func BenchmarkMiddleware(b *testing.B) {
	l, _ := New(unbounded(), nil)
	h := Middleware{L: l}.Wrap(http.HandlerFunc(func(http.ResponseWriter, *http.Request) {}))
	req := httptest.NewRequest(http.MethodGet, "/v2/trades?user=0x1", nil)
	req.RemoteAddr = "203.0.113.7:5000"
	w := httptest.NewRecorder()
	for b.Loop() {
		h.ServeHTTP(w, req)
	}
}

// BenchmarkAdmitThrottled is the slow path: one key over its limit, every
// call searching for the earliest admissible bucket and being rejected.
func BenchmarkAdmitThrottled(b *testing.B) {
	// A frozen clock: the window never slides, so every call is rejected.
	l, _ := New(DataDefaults(), clock.NewManual(t0))
	scopes := []string{"general", "v2", "v2 trades"}
	for i := 0; i < 400; i++ {
		l.Admit("203.0.113.7", scopes)
	}
	for b.Loop() {
		if l.Admit("203.0.113.7", scopes).OK {
			b.Fatal("admitted past the limit")
		}
	}
}
