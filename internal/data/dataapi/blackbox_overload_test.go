package dataapi_test

import (
	"context"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"pmx/internal/data/dataapi"
	"pmx/internal/data/store"
	"pmx/internal/ratelimit"
)

// stallingStore holds every Positions and UserStats call until released (or,
// when untilCancel, until the request's context ends, as a slow query that
// honours cancellation does). entered reports each call as it starts.
type stallingStore struct {
	store.Store
	entered     chan struct{}
	release     chan struct{}
	untilCancel bool
}

func (s *stallingStore) stall(ctx context.Context) error {
	s.entered <- struct{}{}
	if s.untilCancel {
		<-ctx.Done()
		return ctx.Err()
	}
	<-s.release
	return nil
}

func (s *stallingStore) Positions(ctx context.Context, p store.PositionsParams) (store.Page[store.Position, store.PositionKey], error) {
	if err := s.stall(ctx); err != nil {
		return store.Page[store.Position, store.PositionKey]{}, err
	}
	return s.Store.Positions(ctx, p)
}

func (s *stallingStore) UserStats(ctx context.Context, user string) (*store.UserStats, error) {
	if err := s.stall(ctx); err != nil {
		return nil, err
	}
	return s.Store.UserStats(ctx, user)
}

// stallWorld serves a stallingStore with the given tuning.
func stallWorld(t *testing.T, untilCancel bool, tune func(*dataapi.Options)) (*World, *stallingStore) {
	st := &stallingStore{entered: make(chan struct{}, 8), release: make(chan struct{}), untilCancel: untilCancel}
	w := MustWorld(t, func(o *dataapi.Options) {
		st.Store = o.Store
		o.Store = st
		tune(o)
	})
	return w, st
}

// async sends GET path in the background.
func async(w *World, path string) <-chan *Resp {
	ch := make(chan *Resp, 1)
	go func() { ch <- w.Get(path) }()
	return ch
}

func mustRetryAfter(t *testing.T, r *Resp, lo, hi int) {
	t.Helper()
	n, err := strconv.Atoi(r.Header.Get("Retry-After"))
	if err != nil || n < lo || n > hi {
		t.Fatalf("Retry-After %q, want %d..%d", r.Header.Get("Retry-After"), lo, hi)
	}
}

func TestOverload_HeavyQueueIs429OnlyWhenTheWaitEndsUnserved(t *testing.T) {
	w, st := stallWorld(t, false, func(o *dataapi.Options) {
		o.HeavySlots, o.HeavyWait, o.RequestTimeout = 1, 2*time.Second, time.Hour
	})
	// Served after waiting: the slot frees before the wait ends.
	first := async(w, "/v2/positions?user={A}")
	<-st.entered
	second := async(w, "/v2/positions?user={A}")
	w.Clock.WaitForTimers(3) // two request deadlines and the queue wait
	w.Clock.Advance(time.Second)
	st.release <- struct{}{} // first finishes; second takes its slot
	<-st.entered
	st.release <- struct{}{}
	for _, ch := range []<-chan *Resp{first, second} {
		if r := <-ch; r.Status != 200 {
			t.Fatalf("served request: %d %s", r.Status, r.Body)
		}
	}
	// Unserved: the wait ends while the slot is still held.
	first = async(w, "/v2/positions?user={A}")
	<-st.entered
	second = async(w, "/v2/positions?user={A}")
	w.Clock.WaitForTimers(3)
	w.Clock.Advance(2 * time.Second)
	r := <-second
	MustErrorResp(t, r, "queued", 429, "rate_limited", "", "heavy-query capacity")
	mustRetryAfter(t, r, 1, 60)
	st.release <- struct{}{}
	if r := <-first; r.Status != 200 {
		t.Fatalf("slot holder: %d", r.Status)
	}
}

func TestOverload_RequestDeadlineIs503RequestTimeout(t *testing.T) {
	w, st := stallWorld(t, true, func(o *dataapi.Options) { o.RequestTimeout = 5 * time.Second })
	for _, path := range []string{"/v2/positions?user={A}", "/v2/user-stats?user={A}"} {
		ch := async(w, path)
		<-st.entered
		w.Clock.WaitForTimers(1)
		w.Clock.Advance(5 * time.Second)
		r := <-ch
		e := MustErrorResp(t, r, path, 503, "request_timeout", "", "")
		if e.Retryable == nil || !*e.Retryable {
			t.Fatalf("%s: a timeout is retryable: %s", path, r.Body)
		}
		mustRetryAfter(t, r, 1, 60)
	}
}

func TestOverload_DatabaseAcquireBudgetIs503Not429(t *testing.T) {
	w, st := stallWorld(t, false, func(o *dataapi.Options) {
		o.DBSlots, o.DBWait, o.RequestTimeout = 1, time.Second, time.Hour
	})
	first := async(w, "/v2/user-stats?user={A}")
	<-st.entered
	second := async(w, "/v2/user-stats?user={A}")
	w.Clock.WaitForTimers(3) // two deadlines and the acquire wait
	w.Clock.Advance(time.Second)
	r := <-second
	MustErrorResp(t, r, "acquire", 503, "request_timeout", "", "")
	mustRetryAfter(t, r, 1, 60)
	st.release <- struct{}{}
	if r := <-first; r.Status != 200 {
		t.Fatalf("slot holder: %d", r.Status)
	}
}

// Every route that reads the store waits for a database slot (interface.md:
// an unserved acquire is 503 request_timeout), light routes included; only
// the static document and the retired v1 routes answer without one. Each
// probe is sent while the one slot is held: a probe answered (or reaching the
// store) before the clock moves skipped the gate.
func TestOverload_EveryStoreRouteWaitsForADatabaseSlot(t *testing.T) {
	w, st := stallWorld(t, false, func(o *dataapi.Options) {
		o.DBSlots, o.DBWait, o.RequestTimeout, o.HeavySlots = 1, time.Second, time.Hour, 64
	})
	holder := async(w, "/v2/user-stats?user={A}")
	<-st.entered
	n := 0
	for _, p := range w.Svc.Routes() {
		if !strings.HasPrefix(p, "/v2/") && p != "/v1/accounting/snapshot" || p == "/v2/openapi.json" {
			continue
		}
		n++
		for w.Clock.Pending() != 1 { // only the holder's deadline: the last probe has let go of its timers
			runtime.Gosched()
		}
		probe := async(w, p+"?user={A}")
		parked := make(chan struct{})
		go func() { w.Clock.WaitForTimers(3); close(parked) }() // the holder's deadline, the probe's deadline and acquire wait
		select {
		case r := <-probe:
			t.Errorf("%s answered while the only database slot was held: %d %s", p, r.Status, r.Body)
			continue
		case <-st.entered:
			t.Errorf("%s reached the store while the only database slot was held", p)
			st.release <- struct{}{}
			<-probe
			continue
		case <-parked:
		}
		w.Clock.Advance(time.Second)
		MustErrorResp(t, <-probe, p, 503, "request_timeout", "", "")
	}
	if n < 20 {
		t.Errorf("only %d store routes in %v", n, w.Svc.Routes())
	}
	st.release <- struct{}{}
	if r := <-holder; r.Status != 200 {
		t.Fatalf("slot holder: %d", r.Status)
	}
}

func TestOverload_PerClientAllowanceIs429WithRemainingWait(t *testing.T) {
	w := MustWorld(t, func(o *dataapi.Options) {
		o.Limits = &ratelimit.Config{MaxWait: time.Second, Rules: []ratelimit.Rule{
			{Scope: "v2", Limit: 2, Window: 10 * time.Second, Match: ratelimit.Match{Prefixes: []string{"/v2/"}}}}}
	})
	w.MustGet("/v2/value?user={A}", nil)
	w.MustGet("/v2/user-volume?user={A}", nil)
	r := w.Get("/v2/value?user={A}")
	MustErrorResp(t, r, "third", 429, "rate_limited", "", "Too many requests")
	// Retry-After is the remaining wait: the window (plus at most one
	// sub-window of the limiter's conservative bucketing) ...
	mustRetryAfter(t, r, 10, 11)
	n, _ := strconv.Atoi(r.Header.Get("Retry-After"))
	w.Clock.Advance(4 * time.Second)
	r = w.Get("/v2/value?user={A}")
	MustErrorResp(t, r, "later", 429, "rate_limited", "", "")
	// ... which shrinks as time passes ...
	mustRetryAfter(t, r, n-4, n-4)
	// ... and waiting exactly that long is enough.
	w.Clock.Advance(time.Duration(n-4) * time.Second)
	w.MustGet("/v2/value?user={A}", nil)
}

func TestOverload_PerClientExcessIsDelayedWithinMaxWait(t *testing.T) {
	w := MustWorld(t, func(o *dataapi.Options) {
		o.Limits = &ratelimit.Config{MaxWait: 20 * time.Second, Rules: []ratelimit.Rule{
			{Scope: "v2", Limit: 2, Window: 10 * time.Second, Match: ratelimit.Match{Prefixes: []string{"/v2/"}}}}}
	})
	w.MustGet("/v2/value?user={A}", nil)
	w.MustGet("/v2/value?user={A}", nil)
	third := async(w, "/v2/value?user={A}")
	w.Clock.WaitForTimers(1) // parked on the limiter, not rejected
	select {
	case r := <-third:
		t.Fatalf("answered before the allowance refilled: %d %s", r.Status, r.Body)
	default:
	}
	w.Clock.Advance(11 * time.Second)
	if r := <-third; r.Status != 200 {
		t.Fatalf("delayed request: %d %s", r.Status, r.Body)
	}
}
