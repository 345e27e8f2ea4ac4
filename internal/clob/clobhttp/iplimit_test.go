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

// TestIPLimitTradingBurst: DELETE /cancel-all's IP burst window (250 per
// 10 s) in front of the exchange: the 251st request in the window is 429
// with Retry-After, and the window slides (the sustained 6,000 per 10 min
// window still admits).
func TestIPLimitTradingBurst(t *testing.T) {
	clk := &fixedClock{t: time.Unix(now0, 0)}
	x := newExchange(t, "", clk, "off")
	a := x.trader(t, priv0)
	mclk := clock.NewManual(time.Unix(now0, 0))
	cfg := ratelimit.CLOBDefaults()
	cfg.MaxWait = time.Millisecond // refuse rather than delay, so no test waits
	lim, err := ratelimit.New(cfg, mclk)
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(ratelimit.Middleware{L: lim, Reject: clobhttp.RateLimited}.Wrap(x.h))
	t.Cleanup(srv.Close)
	a.x = &xenv{env: &env{srv: srv, clock: clk, h: x.h}, svc: x.svc}
	for i := range 250 {
		if r := a.call(t, "DELETE", "/cancel-all", ""); r.status != 200 {
			t.Fatalf("request %d: %d %s", i, r.status, r.body)
		}
	}
	r := a.call(t, "DELETE", "/cancel-all", "")
	r.wantError(t, 429, msg(clob.ErrTooManyRequests))
	if r.header.Get("Retry-After") == "" {
		t.Fatal("no Retry-After")
	}
	mclk.Advance(11 * time.Second) // the window plus one of its sub-buckets
	if r := a.call(t, "DELETE", "/cancel-all", ""); r.status != 200 {
		t.Fatalf("after the window: %d %s", r.status, r.body)
	}
}
