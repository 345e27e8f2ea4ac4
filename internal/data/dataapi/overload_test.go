package dataapi

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"pmx/internal/clock"
	"pmx/internal/ratelimit"
)

var t0 = time.Date(2026, 11, 21, 0, 0, 0, 0, time.UTC)

func TestHeavyQueue(t *testing.T) {
	clk := clock.NewManual(t0)
	g := NewHeavyQueue(GateConfig{Slots: 1, MaxQueue: 1, Wait: 2 * time.Second, Clock: clk}, 3*time.Second)
	rel1, err := g.Acquire(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	// A waiter is served when the slot frees within the wait.
	got := make(chan error, 2)
	go func() {
		rel, err := g.Acquire(context.Background())
		if err == nil {
			rel()
		}
		got <- err
	}()
	clk.WaitForTimers(1)
	// The queue holds one waiter: a second is turned away at once.
	if _, err := g.Acquire(context.Background()); !isCode(err, CodeRateLimited) {
		t.Fatalf("queue full: %v", err)
	}
	rel1()
	if err := <-got; err != nil {
		t.Fatalf("waiter: %v", err)
	}
	// A wait that ends unserved is 429 with the configured Retry-After.
	rel2, _ := g.Acquire(context.Background())
	go func() {
		_, err := g.Acquire(context.Background())
		got <- err
	}()
	clk.WaitForTimers(1)
	clk.Advance(2 * time.Second)
	err = <-got
	var e *Error
	if !errors.As(err, &e) || e.Code != CodeRateLimited || e.Message != MsgHeavyCapacity || e.RetryAfter != 3*time.Second {
		t.Fatalf("unserved wait: %v", err)
	}
	rel2()
	if g.InUse() != 0 {
		t.Fatalf("slots leaked: %d", g.InUse())
	}
}

func TestDBGateIsTimeoutNot429(t *testing.T) {
	clk := clock.NewManual(t0)
	g := NewDBGate(GateConfig{Slots: 1, Wait: time.Second, Clock: clk})
	rel, _ := g.Acquire(context.Background())
	defer rel()
	got := make(chan error)
	go func() {
		_, err := g.Acquire(context.Background())
		got <- err
	}()
	clk.WaitForTimers(1)
	clk.Advance(time.Second)
	err := <-got
	if !isCode(err, CodeRequestTimeout) || !errors.Is(err, ErrAcquireTimeout) {
		t.Fatalf("%v", err)
	}
	rec := httptest.NewRecorder()
	WriteError(rec, httptest.NewRequest("GET", "/", nil), err)
	if rec.Code != 503 || rec.Header().Get("Retry-After") == "" {
		t.Fatalf("%d %v", rec.Code, rec.Header())
	}
}

func TestGateWrap(t *testing.T) {
	clk := clock.NewManual(t0)
	g := NewHeavyQueue(GateConfig{Slots: 1, Wait: 0, Clock: clk}, time.Second)
	rel, _ := g.Acquire(context.Background())
	rec := httptest.NewRecorder()
	g.Wrap(http.NotFoundHandler()).ServeHTTP(rec, httptest.NewRequest("GET", "/v2/trades", nil))
	if rec.Code != 429 || rec.Header().Get("Retry-After") != "1" || decodeBody(t, rec)["error"] != MsgHeavyCapacity {
		t.Fatalf("%d %s", rec.Code, rec.Body.String())
	}
	rel()
	rec = httptest.NewRecorder()
	g.Wrap(http.NotFoundHandler()).ServeHTTP(rec, httptest.NewRequest("GET", "/v2/trades", nil))
	if rec.Code != 404 {
		t.Fatalf("free slot: %d", rec.Code)
	}
}

func TestDeadlineInjectedClock(t *testing.T) {
	clk := clock.NewManual(t0)
	started := make(chan struct{})
	h := Deadline(5*time.Second, clk)(HandlerFunc(func(w http.ResponseWriter, r *http.Request) error {
		close(started)
		<-r.Context().Done() // a store call blocked until the deadline
		return r.Context().Err()
	}))
	rec := httptest.NewRecorder()
	done := make(chan struct{})
	go func() { h.ServeHTTP(rec, httptest.NewRequest("GET", "/v2/positions", nil)); close(done) }()
	<-started
	clk.WaitForTimers(1)
	clk.Advance(5 * time.Second)
	<-done
	if rec.Code != 503 || decodeBody(t, rec)["code"] != "request_timeout" || rec.Header().Get("Retry-After") != "1" {
		t.Fatalf("%d %s", rec.Code, rec.Body.String())
	}
}

func TestDeadlineSystemClock(t *testing.T) {
	var dl time.Time
	h := Deadline(time.Hour, nil)(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		dl, _ = r.Context().Deadline()
	}))
	h.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest("GET", "/", nil))
	if d := time.Until(dl); d < 59*time.Minute || d > time.Hour {
		t.Fatalf("deadline in %v", d)
	}
}

func TestClientLimit(t *testing.T) {
	clk := clock.NewManual(t0)
	l, err := ratelimit.New(ratelimit.Config{
		Rules:   []ratelimit.Rule{{Scope: "v2", Limit: 1, Window: 10 * time.Second, Match: ratelimit.Match{Prefixes: []string{"/v2/"}}}},
		MaxWait: time.Second,
	}, clk)
	if err != nil {
		t.Fatal(err)
	}
	h := Trace(ClientLimit(l)(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { WriteData(w, r, "ok") })))
	for i, tc := range []struct {
		path, msg string
		status    int
	}{
		{"/v2/trades", "", 200},
		{"/v2/trades", MsgTooMany, 429},
		{"/v2/prices-history", MsgPerClientLimit, 429},
	} {
		rec := httptest.NewRecorder()
		req := httptest.NewRequest("GET", tc.path, nil)
		req.RemoteAddr = "192.0.2.1:1234"
		h.ServeHTTP(rec, req)
		if rec.Code != tc.status {
			t.Fatalf("request %d: %d", i, rec.Code)
		}
		if tc.status == 429 {
			m := decodeBody(t, rec)
			if m["error"] != tc.msg || m["code"] != "rate_limited" || m["retryable"] != true ||
				rec.Header().Get("Retry-After") != "11" || m["trace_id"] != rec.Header().Get(TraceHeader) {
				t.Fatalf("request %d: %v %v", i, m, rec.Header())
			}
		}
	}
}

func isCode(err error, c Code) bool {
	var e *Error
	return errors.As(err, &e) && e.Code == c
}
