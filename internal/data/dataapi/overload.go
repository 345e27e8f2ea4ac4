package dataapi

import (
	"context"
	"fmt"
	"net/http"
	"sync/atomic"
	"time"

	"pmx/internal/clock"
	"pmx/internal/ratelimit"
)

// Overload messages, as production words them per route family.
const (
	MsgHeavyCapacity  = "Service is at heavy-query capacity"
	MsgTooMany        = "Too many requests"
	MsgPerClientLimit = "Per-client rate limit"
)

func retryAfterSeconds(d time.Duration) string { return ratelimit.RetryAfterSeconds(d) }

// Gate is a bounded admission queue: Slots concurrent holders; a caller
// finds a free slot at once or queues (at most MaxQueue callers) for up to
// Wait; a wait that ends unserved gets the gate's rejection error.
type Gate struct {
	sem      chan struct{}
	wait     time.Duration
	maxQueue int64
	queued   atomic.Int64
	clock    clock.Clock
	reject   func() error
}

// GateConfig configures a Gate. Zero MaxQueue means 4×Slots.
type GateConfig struct {
	Slots    int
	MaxQueue int
	Wait     time.Duration
	Clock    clock.Clock // nil: system clock
}

func newGate(c GateConfig, reject func() error) *Gate {
	if c.Slots <= 0 {
		c.Slots = 1
	}
	if c.MaxQueue <= 0 {
		c.MaxQueue = 4 * c.Slots
	}
	if c.Clock == nil {
		c.Clock = clock.System{}
	}
	return &Gate{sem: make(chan struct{}, c.Slots), wait: c.Wait, maxQueue: int64(c.MaxQueue), clock: c.Clock, reject: reject}
}

// NewHeavyQueue is the heavy-query queue: an unserved wait is 429
// rate_limited "Service is at heavy-query capacity" with Retry-After.
func NewHeavyQueue(c GateConfig, retryAfter time.Duration) *Gate {
	return newGate(c, func() error { return RateLimited(MsgHeavyCapacity, retryAfter) })
}

// NewDBGate is the database-acquire budget: an unserved wait is 503
// request_timeout (ErrAcquireTimeout) with Retry-After, never a 429.
func NewDBGate(c GateConfig) *Gate {
	return newGate(c, func() error { return RequestTimeout(ErrAcquireTimeout) })
}

// Acquire takes a slot; release must be called exactly once when done.
func (g *Gate) Acquire(ctx context.Context) (release func(), err error) {
	select {
	case g.sem <- struct{}{}:
		return g.release, nil
	default:
	}
	if g.queued.Add(1) > g.maxQueue {
		g.queued.Add(-1)
		return nil, g.reject()
	}
	defer g.queued.Add(-1)
	t := g.clock.NewTimer(g.wait)
	defer t.Stop()
	select {
	case g.sem <- struct{}{}:
		return g.release, nil
	case <-t.C():
		return nil, g.reject()
	case <-ctx.Done():
		return nil, RequestTimeout(context.Cause(ctx))
	}
}

func (g *Gate) release() { <-g.sem }

// InUse reports the slots held (for metrics).
func (g *Gate) InUse() int { return len(g.sem) }

// Wrap admits each request through the gate before next runs.
func (g *Gate) Wrap(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		release, err := g.Acquire(r.Context())
		if err != nil {
			WriteError(w, r, err)
			return
		}
		defer release()
		next.ServeHTTP(w, r)
	})
}

var errDeadline = fmt.Errorf("request deadline: %w", context.DeadlineExceeded)

// Deadline bounds each request's context to d. On the system clock this is
// context.WithTimeout; on an injected clock the context is cancelled (with a
// DeadlineExceeded cause) when that clock reaches the deadline. A handler
// that returns the resulting error through HandlerFunc answers 503
// request_timeout with Retry-After.
func Deadline(d time.Duration, clk clock.Clock) func(http.Handler) http.Handler {
	if clk == nil {
		clk = clock.System{}
	}
	_, system := clk.(clock.System)
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			var ctx context.Context
			if system {
				c, cancel := context.WithTimeout(r.Context(), d)
				defer cancel()
				ctx = c
			} else {
				c, cancel := context.WithCancelCause(r.Context())
				t := clk.AfterFunc(d, func() { cancel(errDeadline) })
				defer func() { t.Stop(); cancel(context.Canceled) }()
				ctx = c
			}
			next.ServeHTTP(w, r.WithContext(ctx))
		})
	}
}

// RejectRateLimited is the ratelimit.Rejecter of the data service: 429
// rate_limited with the contract's body and Retry-After = remaining wait.
func RejectRateLimited(w http.ResponseWriter, r *http.Request, retryAfter time.Duration, _ string) {
	msg := MsgTooMany
	if r.URL.Path == "/v2/prices-history" {
		msg = MsgPerClientLimit
	}
	WriteError(w, r, RateLimited(msg, retryAfter))
}

// ClientLimit is the per-client (IP) allowance as middleware: requests past
// the allowance are delayed, and those that would wait past the limiter's
// bound get 429 with Retry-After.
func ClientLimit(l *ratelimit.Limiter) func(http.Handler) http.Handler {
	return ratelimit.Middleware{L: l, Reject: RejectRateLimited}.Wrap
}
