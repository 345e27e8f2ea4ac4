package perpsvc

import (
	"sync"
	"time"
)

// Buckets are per-key token buckets: capacity budget, refilled at budget per
// window (perps.md §7: 1,000 request weight per IP per minute, 5,000 action
// weight per account per minute). A request that does not fit is refused at
// once (429 with Retry-After), nothing is consumed.
type Buckets struct {
	mu     sync.Mutex
	budget float64
	rate   float64 // tokens per nanosecond
	m      map[string]*bucket
}

type bucket struct {
	tokens float64
	at     time.Time
}

const maxBucketKeys = 1 << 16

// NewBuckets gives every key budget tokens, refilled at budget per window.
func NewBuckets(budget int, window time.Duration) *Buckets {
	return &Buckets{budget: float64(budget), rate: float64(budget) / float64(window), m: map[string]*bucket{}}
}

// Take consumes n tokens for key at now, or reports how long until they fit.
// Token counts are request weights, not money, so float64 is fine here.
func (b *Buckets) Take(key string, n int, now time.Time) (bool, time.Duration) {
	if n <= 0 {
		return true, 0
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	k := b.m[key]
	if k == nil {
		if len(b.m) >= maxBucketKeys {
			b.sweep(now)
		}
		k = &bucket{tokens: b.budget, at: now}
		b.m[key] = k
	}
	k.tokens = min(b.budget, k.tokens+float64(now.Sub(k.at))*b.rate)
	k.at = now
	need := float64(n)
	if need > k.tokens {
		return false, time.Duration((need - k.tokens) / b.rate)
	}
	k.tokens -= need
	return true, 0
}

// sweep drops buckets that have refilled completely (they hold no state).
func (b *Buckets) sweep(now time.Time) {
	for key, k := range b.m {
		if k.tokens+float64(now.Sub(k.at))*b.rate >= b.budget {
			delete(b.m, key)
		}
	}
}
