package ratelimit

import (
	"sync"
	"time"
)

// Clock is the time source of the limiter and of anything that waits on it.
// Production uses SystemClock; tests use ManualClock so that no test sleeps.
type Clock interface {
	Now() time.Time
	// NewTimer returns a timer that fires once after d.
	NewTimer(d time.Duration) Timer
	// AfterFunc calls f in its own goroutine once d has elapsed.
	AfterFunc(d time.Duration, f func()) Timer
}

// Timer is the part of *time.Timer the limiter needs.
type Timer interface {
	C() <-chan time.Time
	Stop() bool
}

// SystemClock is the real clock.
type SystemClock struct{}

func (SystemClock) Now() time.Time { return time.Now() }

func (SystemClock) NewTimer(d time.Duration) Timer { return sysTimer{time.NewTimer(d)} }

func (SystemClock) AfterFunc(d time.Duration, f func()) Timer {
	return sysTimer{time.AfterFunc(d, f)}
}

type sysTimer struct{ t *time.Timer }

func (s sysTimer) C() <-chan time.Time { return s.t.C }
func (s sysTimer) Stop() bool          { return s.t.Stop() }

// ManualClock is a Clock that moves only when Advance is called. It exists for
// tests (here and in the services that use the limiter); it never sleeps.
type ManualClock struct {
	mu      sync.Mutex
	cond    *sync.Cond
	now     time.Time
	pending []*manualTimer
}

// NewManualClock starts a manual clock at t.
func NewManualClock(t time.Time) *ManualClock {
	c := &ManualClock{now: t}
	c.cond = sync.NewCond(&c.mu)
	return c
}

type manualTimer struct {
	c    *ManualClock
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

func (c *ManualClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *ManualClock) NewTimer(d time.Duration) Timer { return c.add(d, nil) }

func (c *ManualClock) AfterFunc(d time.Duration, f func()) Timer { return c.add(d, f) }

func (c *ManualClock) add(d time.Duration, f func()) *manualTimer {
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
func (c *ManualClock) fire(t *manualTimer) {
	if t.f != nil {
		go t.f()
		return
	}
	t.ch <- c.now
}

func (c *ManualClock) remove(t *manualTimer) {
	for i, p := range c.pending {
		if p == t {
			c.pending = append(c.pending[:i], c.pending[i+1:]...)
			break
		}
	}
	c.cond.Broadcast()
}

// Advance moves the clock forward and fires every timer that is now due.
func (c *ManualClock) Advance(d time.Duration) {
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
func (c *ManualClock) Pending() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.pending)
}

// WaitForTimers blocks until at least n timers are pending, so a test can
// advance the clock only once the goroutines under test are parked on it.
func (c *ManualClock) WaitForTimers(n int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for len(c.pending) < n {
		c.cond.Wait()
	}
}
