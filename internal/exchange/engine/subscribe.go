package engine

import "sync/atomic"

// Subscription receives the events of applied commands, in sequence order,
// one slice per apply batch. The engine never waits for a subscriber: one
// whose buffer is full is cut off (C is closed and Lagged reports true) and
// must resubscribe and resynchronise. C is also closed by Close and
// Unsubscribe.
type Subscription[E any] struct {
	C      <-chan []Applied[E]
	c      chan []Applied[E]
	e      *Engine[E]
	lagged atomic.Bool
}

// Subscribe starts delivering events of commands applied from now on; buf
// is how many batches may be pending before the subscriber is cut off.
func (e *Engine[E]) Subscribe(buf int) *Subscription[E] {
	c := make(chan []Applied[E], max(buf, 1))
	s := &Subscription[E]{C: c, c: c, e: e}
	e.subMu.Lock()
	if e.subsClosed {
		close(c)
	} else {
		e.subs = append(e.subs, s)
	}
	e.subMu.Unlock()
	return s
}

// Lagged reports whether the subscriber was cut off for falling behind.
func (s *Subscription[E]) Lagged() bool { return s.lagged.Load() }

// Unsubscribe stops delivery and closes C.
func (s *Subscription[E]) Unsubscribe() {
	e := s.e
	e.subMu.Lock()
	defer e.subMu.Unlock()
	for i, x := range e.subs {
		if x == s {
			e.subs = append(e.subs[:i], e.subs[i+1:]...)
			close(s.c)
			return
		}
	}
}

// publish hands batch to every subscriber and reports whether anyone took it
// (then the caller must not reuse it).
func (e *Engine[E]) publish(batch []Applied[E]) bool {
	e.subMu.Lock()
	defer e.subMu.Unlock()
	handed := len(e.subs) > 0
	kept := e.subs[:0]
	for _, s := range e.subs {
		select {
		case s.c <- batch:
			kept = append(kept, s)
		default:
			s.lagged.Store(true)
			close(s.c)
		}
	}
	clear(e.subs[len(kept):])
	e.subs = kept
	return handed
}
