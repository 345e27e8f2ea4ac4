package ratelimit

import (
	"hash/maphash"
	"sync"
	"time"
)

// Spec is one token bucket's shape: Rate tokens per second, at most Burst
// held, and whether Charge may push the balance below zero (Debt).
type Spec struct {
	Rate, Burst int64
	Debt        bool
}

// nano is the fixed-point scale of a bucket's tokens: balances are integer
// billionths of a token, so a refill at Rate tokens per second earns exactly
// Rate units per nanosecond: no floats, no rounding loss between calls.
const nano = 1_000_000_000

// Buckets is a bounded set of token buckets keyed by string (a signer, an
// account, an IP). Each key's bucket refills continuously; a request takes
// its cost only when every token is there (all or nothing). Memory is
// fixed: at most Cap keys are tracked; a new key past that evicts the
// tracked bucket that is fullest after refill (a full bucket carries no
// state, so evicting it changes nothing). Lookups of tracked keys allocate
// nothing. Safe for concurrent use.
type Buckets struct {
	mu    sync.Mutex
	seed  maphash.Seed
	index map[uint64]int32 // key hash -> slot
	slots []slot
	hand  int // eviction scan position
}

type slot struct {
	key    uint64
	tokens int64 // nano-tokens; may be negative with Debt
	at     int64 // Unix ns of the last refill
	spec   Spec
}

// DefaultBucketKeys is Cap when NewBuckets gets 0.
const DefaultBucketKeys = 1 << 16

// evictScan bounds how many slots a new key examines to find a victim.
const evictScan = 64

// NewBuckets returns a set tracking at most cap keys.
func NewBuckets(cap int) *Buckets {
	if cap <= 0 {
		cap = DefaultBucketKeys
	}
	return &Buckets{seed: maphash.MakeSeed(), index: make(map[uint64]int32, cap), slots: make([]slot, 0, cap)}
}

// Len is the number of tracked keys.
func (b *Buckets) Len() int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return len(b.slots)
}

// Verdict is the outcome of Take.
type Verdict struct {
	OK bool
	// Remaining is the balance after accounting, in whole tokens (floored;
	// negative in debt).
	Remaining int64
	// Wait is the least time until the same cost would be admitted; 0 when
	// admitted, -1 when the cost exceeds the burst and can never be.
	Wait time.Duration
}

// refill brings s up to now under spec.
func (s *slot) refill(now int64) {
	if now <= s.at {
		return
	}
	max := s.spec.Burst * nano
	gap := max - s.tokens
	if gap > 0 {
		// Rate nano-tokens per ns; cap the span at the time to fill so the
		// product cannot overflow.
		span := now - s.at
		if full := gap / max64(s.spec.Rate, 1); span > full+1 {
			span = full + 1
		}
		s.tokens += span * s.spec.Rate
		if s.tokens > max {
			s.tokens = max
		}
	}
	s.at = now
}

func max64(a, b int64) int64 {
	if a > b {
		return a
	}
	return b
}

// get returns key's slot, creating (and possibly evicting) one full.
func (b *Buckets) get(key string, spec Spec, now int64) *slot {
	h := maphash.String(b.seed, key)
	if i, ok := b.index[h]; ok {
		s := &b.slots[i]
		s.spec = spec
		return s
	}
	fresh := slot{key: h, tokens: spec.Burst * nano, at: now, spec: spec}
	if len(b.slots) < cap(b.slots) {
		b.slots = append(b.slots, fresh)
		b.index[h] = int32(len(b.slots) - 1)
		return &b.slots[len(b.slots)-1]
	}
	victim, best := b.hand, int64(-1<<62)
	for k := 0; k < evictScan && k < len(b.slots); k++ {
		i := (b.hand + k) % len(b.slots)
		s := &b.slots[i]
		s.refill(now)
		if slack := s.tokens - s.spec.Burst*nano; slack > best {
			victim, best = i, slack
			if slack >= 0 {
				break
			}
		}
	}
	b.hand = (victim + 1) % len(b.slots)
	delete(b.index, b.slots[victim].key)
	b.slots[victim] = fresh
	b.index[h] = int32(victim)
	return &b.slots[victim]
}

// Take admits cost tokens for key at now, or refuses and takes nothing.
func (b *Buckets) Take(key string, spec Spec, cost int64, now time.Time) Verdict {
	ns := now.UnixNano()
	b.mu.Lock()
	defer b.mu.Unlock()
	s := b.get(key, spec, ns)
	s.refill(ns)
	need := cost * nano
	if cost > spec.Burst {
		return Verdict{Remaining: floorDiv(s.tokens, nano), Wait: -1}
	}
	if s.tokens < need {
		missing := need - s.tokens
		wait := time.Duration((missing + spec.Rate - 1) / max64(spec.Rate, 1))
		return Verdict{Remaining: floorDiv(s.tokens, nano), Wait: wait}
	}
	s.tokens -= need
	return Verdict{OK: true, Remaining: floorDiv(s.tokens, nano)}
}

// Peek is Take without taking: would cost be admitted now?
func (b *Buckets) Peek(key string, spec Spec, cost int64, now time.Time) Verdict {
	ns := now.UnixNano()
	b.mu.Lock()
	defer b.mu.Unlock()
	s := b.get(key, spec, ns)
	s.refill(ns)
	v := Verdict{OK: cost <= spec.Burst && s.tokens >= cost*nano, Remaining: floorDiv(s.tokens, nano)}
	if !v.OK {
		v.Wait = -1
		if cost <= spec.Burst {
			v.Wait = time.Duration((cost*nano - s.tokens + spec.Rate - 1) / max64(spec.Rate, 1))
		}
	}
	return v
}

// Charge takes n more tokens after the fact (a cancel-all's per-order
// cost): into debt when the spec allows it, else down to zero at most. It
// returns the balance in whole tokens.
func (b *Buckets) Charge(key string, spec Spec, n int64, now time.Time) int64 {
	ns := now.UnixNano()
	b.mu.Lock()
	defer b.mu.Unlock()
	s := b.get(key, spec, ns)
	s.refill(ns)
	s.tokens -= n * nano
	if !spec.Debt && s.tokens < 0 {
		s.tokens = 0
	}
	return floorDiv(s.tokens, nano)
}

func floorDiv(a, b int64) int64 {
	q := a / b
	if a%b != 0 && (a < 0) != (b < 0) {
		q--
	}
	return q
}
