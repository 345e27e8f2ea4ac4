// Package clock is the time source of everything that waits: the real clock
// in production and a manual one that moves only when a test advances it,
// so that no test sleeps. The IP limiter, the data service's deadlines and
// page cache and the CLOB service take their time from it.
package clock

import (
	"sync"
	"time"
)

// Clock is a time source with timers. Production uses System; tests use
// Manual.
type Clock interface {
	Now() time.Time
	// NewTimer returns a timer that fires once after d.
	NewTimer(d time.Duration) Timer
	// AfterFunc calls f in its own goroutine once d has elapsed.
	AfterFunc(d time.Duration, f func()) Timer
}

// Timer is the part of *time.Timer its users need.
type Timer interface {
	C() <-chan time.Time
	Stop() bool
}

// System is the real clock.
type System struct{}

func (System) Now() time.Time { return time.Now() }

func (System) NewTimer(d time.Duration) Timer { return sysTimer{time.NewTimer(d)} }

func (System) AfterFunc(d time.Duration, f func()) Timer {
	return sysTimer{time.AfterFunc(d, f)}
}

type sysTimer struct{ t *time.Timer }

func (s sysTimer) C() <-chan time.Time { return s.t.C }
func (s sysTimer) Stop() bool          { return s.t.Stop() }

// Manual is a Clock that moves only when Advance is called. It exists for
// tests; it never sleeps.
type Manual struct {
	mu      sync.Mutex
	cond    *sync.Cond
	now     time.Time
	pending []*manualTimer
}

// NewManual starts a manual clock at t.
func NewManual(t time.Time) *Manual {
	c := &Manual{now: t}
	c.cond = sync.NewCond(&c.mu)
	return c
}

type manualTimer struct {
	c    *Manual
	at   time.Time
	ch   chan time.Time
	f    func()
	done bool
}

func (t *manualTimer) C() <-chan time.Time { return t.ch }

func (t *manualTimer) Stop() bool {
	t.c.mu.Lock()
	defer t.c.mu.Unlock()
	if t.done {
		return false
	}
	t.done = true
	t.c.remove(t)
	return true
}

func (c *Manual) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *Manual) NewTimer(d time.Duration) Timer { return c.add(d, nil) }

func (c *Manual) AfterFunc(d time.Duration, f func()) Timer { return c.add(d, f) }

func (c *Manual) add(d time.Duration, f func()) *manualTimer {
	c.mu.Lock()
	defer c.mu.Unlock()
	t := &manualTimer{c: c, at: c.now.Add(d), ch: make(chan time.Time, 1), f: f}
	if d <= 0 {
		t.done = true
		c.fire(t)
		return t
	}
	c.pending = append(c.pending, t)
	c.cond.Broadcast()
	return t
}

// fire delivers a due timer; c.mu is held.
func (c *Manual) fire(t *manualTimer) {
	if t.f != nil {
		go t.f()
		return
	}
	t.ch <- c.now
}

func (c *Manual) remove(t *manualTimer) {
	for i, p := range c.pending {
		if p == t {
			c.pending = append(c.pending[:i], c.pending[i+1:]...)
			break
		}
	}
	c.cond.Broadcast()
}

// Advance moves the clock forward and fires every timer that is now due.
func (c *Manual) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
	keep := c.pending[:0]
	for _, t := range c.pending {
		if !t.at.After(c.now) {
			t.done = true
			c.fire(t)
			continue
		}
		keep = append(keep, t)
	}
	c.pending = keep
	c.cond.Broadcast()
}

// Pending reports how many timers are waiting to fire.
func (c *Manual) Pending() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.pending)
}

// WaitForTimers blocks until at least n timers are pending, so a test can
// advance the clock only once the goroutines under test are parked on it.
func (c *Manual) WaitForTimers(n int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for len(c.pending) < n {
		c.cond.Wait()
	}
}
