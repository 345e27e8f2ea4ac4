package clobhttp_test

import (
	"net/http/httptest"
	"testing"
	"time"

	"pmx/internal/clob/clob"
	"pmx/internal/clob/clobhttp"
	"pmx/internal/clock"
	"pmx/internal/ratelimit"
)

// TestRateLimitedThroughListener: the CLOB rows of the limiter in front of
// the handler answer the contract's 429 body once the API-key allowance
// (100 per 10 s) is spent; other routes still pass.
func TestRateLimitedThroughListener(t *testing.T) {
	e := newEnv(t)
	clk := clock.NewManual(time.Unix(now0, 0))
	cfg := ratelimit.CLOBDefaults()
	cfg.MaxWait = time.Millisecond // reject rather than delay, so no test waits
	lim, err := ratelimit.New(cfg, clk)
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(ratelimit.Middleware{L: lim, Reject: clobhttp.RateLimited}.Wrap(e.h))
	t.Cleanup(srv.Close)
	e2 := &env{srv: srv, clock: e.clock, h: e.h}
	w := newWallet(t, priv0)
	for i := range 100 {
		if r := e2.do(t, "GET", "/auth/derive-api-key", w.l1(now0, 0), ""); r.status != 400 {
			t.Fatalf("request %d: %d %s", i, r.status, r.body)
		}
	}
	r := e2.do(t, "POST", "/auth/api-key", w.l1(now0, 0), "")
	r.wantError(t, 429, msg(clob.ErrTooManyRequests))
	if r.header.Get("Retry-After") == "" {
		t.Fatal("no Retry-After")
	}
	if r := e2.do(t, "GET", "/time", nil, ""); r.status != 200 {
		t.Fatalf("/time limited too: %d", r.status)
	}
}
