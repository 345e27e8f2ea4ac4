package ratelimit

import (
	"net/http"
	"net/http/httptest"
	"net/netip"
	"slices"
	"sync/atomic"
	"testing"
	"time"

	"pmx/internal/clock"
)

func TestMiddlewareDelaysThenRejects(t *testing.T) {
	c := clock.NewManual(t0)
	l, err := New(Config{
		Rules:   []Rule{{Scope: "v2", Limit: 2, Window: 10 * time.Second, Match: prefix("/v2/")}},
		MaxWait: 5 * time.Second,
	}, c)
	if err != nil {
		t.Fatal(err)
	}
	var served atomic.Int32
	h := Middleware{L: l}.Wrap(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		served.Add(1)
	}))
	get := func(path string) *httptest.ResponseRecorder {
		rec := httptest.NewRecorder()
		req := httptest.NewRequest(http.MethodGet, path, nil)
		req.RemoteAddr = "10.0.0.1:5555"
		h.ServeHTTP(rec, req)
		return rec
	}
	for i := 0; i < 2; i++ {
		if rec := get("/v2/trades"); rec.Code != 200 {
			t.Fatalf("request %d: %d", i, rec.Code)
		}
	}
	// Unmatched paths are not limited.
	if rec := get("/ok"); rec.Code != 200 {
		t.Fatalf("/ok: %d", rec.Code)
	}
	c.Advance(7 * time.Second)
	// Third request: delayed until bucket 11 (4 s), not rejected.
	done := make(chan int)
	go func() { done <- get("/v2/trades").Code }()
	c.WaitForTimers(1)
	if got := served.Load(); got != 3 {
		t.Fatalf("served %d before the delay ended, want 3", got)
	}
	// Fourth: also delayed (second slot of bucket 11).
	go func() { done <- get("/v2/trades").Code }()
	c.WaitForTimers(2)
	// Fifth: would wait past the bound: 429 at once with the remaining wait.
	rec := get("/v2/trades")
	if rec.Code != http.StatusTooManyRequests || rec.Header().Get("Retry-After") != "15" {
		t.Fatalf("fifth: %d Retry-After %q", rec.Code, rec.Header().Get("Retry-After"))
	}
	// The default rejection is JSON, like every pmx error.
	if rec.Header().Get("Content-Type") != "application/json" || rec.Body.String() != `{"error":"too many requests","code":"rate_limited"}` {
		t.Fatalf("default rejection: %q %s", rec.Header().Get("Content-Type"), rec.Body.String())
	}
	c.Advance(4 * time.Second)
	for i := 0; i < 2; i++ {
		if code := <-done; code != 200 {
			t.Fatalf("delayed request: %d", code)
		}
	}
	if got := served.Load(); got != 5 {
		t.Fatalf("served %d, want 5", got)
	}
}

func TestMiddlewareCustomRejecter(t *testing.T) {
	l, _ := oneRule(t, 1, time.Nanosecond)
	var scope string
	var retry time.Duration
	h := Middleware{
		L:     l,
		Match: func(*http.Request) []string { return []string{"s"} },
		Key:   func(*http.Request) string { return "same" },
		Reject: func(w http.ResponseWriter, r *http.Request, ra time.Duration, s string) {
			scope, retry = s, ra
			w.WriteHeader(http.StatusTeapot)
		},
	}.Wrap(http.HandlerFunc(func(http.ResponseWriter, *http.Request) {}))
	for i, want := range []int{200, http.StatusTeapot} {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/x", nil))
		if rec.Code != want {
			t.Fatalf("request %d: %d want %d", i, rec.Code, want)
		}
	}
	if scope != "s" || retry != 11*time.Second {
		t.Fatalf("rejecter got scope %q retry %v", scope, retry)
	}
}

func TestDefaultScopes(t *testing.T) {
	data, _ := New(DataDefaults(), nil)
	clob, _ := New(CLOBDefaults(), nil)
	cat, _ := New(CatalogDefaults(), nil)
	cases := []struct {
		l            *Limiter
		method, path string
		want         []string
	}{
		{data, "GET", "/v2/trades", []string{"general", "v2", "v2 trades"}},
		{data, "GET", "/v2/positions/combos", []string{"general", "v2", "v2 positions"}},
		{data, "GET", "/v2/holders", []string{"general", "v2"}},
		{data, "GET", "/ok", []string{"general", "ok"}},
		{data, "GET", "/trades", []string{"general", "v1", "v1 trades"}},
		{data, "GET", "/closed-positions", []string{"general", "v1", "v1 /closed-positions"}},
		{cat, "GET", "/events", []string{"general", "catalog", "catalog events", "catalog listing"}},
		{cat, "GET", "/events/12", []string{"general", "catalog", "catalog events"}},
		{clob, "POST", "/order", []string{"general", "clob", "clob POST /order"}},
		{clob, "GET", "/book", []string{"general", "clob", "clob /book"}},
	}
	for _, tc := range cases {
		got := tc.l.MatchRules(httptest.NewRequest(tc.method, tc.path, nil))
		if !slices.Equal(got, tc.want) {
			t.Errorf("%s %s: %v, want %v", tc.method, tc.path, got, tc.want)
		}
	}
	// The CLOB trading scopes carry a burst and a sustained window.
	if n := len(clob.byScope["clob POST /order"]); n != 2 {
		t.Errorf("POST /order rules: %d", n)
	}
}

func TestClientIP(t *testing.T) {
	cases := map[string]string{
		"1.2.3.4:80":                 "1.2.3.4",
		"[::ffff:1.2.3.4]:80":        "1.2.3.4",
		"[2001:db8:1:2:3:4:5:6]:443": "2001:db8:1:2::/64",
		"[2001:db8:1:2:ffff::1]:443": "2001:db8:1:2::/64",
		"not-an-address":             "not-an-address",
		"unix-socket-peer:0":         "unix-socket-peer",
	}
	for in, want := range cases {
		r := httptest.NewRequest(http.MethodGet, "/", nil)
		r.RemoteAddr = in
		if got := ClientIP(r); got != want {
			t.Errorf("%q: %q want %q", in, got, want)
		}
	}
}

func TestRetryAfterSeconds(t *testing.T) {
	cases := map[time.Duration]string{0: "1", time.Millisecond: "1", time.Second: "1", 1001 * time.Millisecond: "2", 15 * time.Second: "15"}
	for d, want := range cases {
		if got := RetryAfterSeconds(d); got != want {
			t.Errorf("%v: %q want %q", d, got, want)
		}
	}
}

// FuzzClientIP: any peer address yields a stable key, never empty for a
// non-empty address, and every IPv4 form of one host maps to one key.
func FuzzClientIP(f *testing.F) {
	for _, s := range []string{"1.2.3.4:80", "[::ffff:1.2.3.4]:80", "[2001:db8::1]:1", "", ":", "[::1]", "x:y:z"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, addr string) {
		r := httptest.NewRequest(http.MethodGet, "/", nil)
		r.RemoteAddr = addr
		k := ClientIP(r)
		if k != ClientIP(r) {
			t.Fatal("unstable key")
		}
		if addr != "" && k == "" {
			t.Fatalf("empty key for %q", addr)
		}
		// An IPv4 key: the plain and the IPv4-mapped IPv6 peer forms of that
		// host get the same key.
		if a, err := netip.ParseAddr(k); err == nil && a.Is4() {
			if k != a.String() {
				t.Fatalf("%q keys as %q, not the canonical %q", addr, k, a.String())
			}
			for _, peer := range []string{k + ":1", "[" + netip.AddrFrom16(a.As16()).String() + "]:1"} {
				r.RemoteAddr = peer
				if got := ClientIP(r); got != k {
					t.Fatalf("%q keys as %q, %q as %q", addr, k, peer, got)
				}
			}
		}
	})
}
