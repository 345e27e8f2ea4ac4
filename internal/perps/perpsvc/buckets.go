package perpsvc

import (
	"time"

	"pmx/internal/tokenbucket"
)

// Buckets are per-key token buckets: capacity budget, refilled continuously
// at budget per window (1,000 request weight per IP per minute, 5,000 action
// weight per account per minute). A request that does not fit is refused at
// once (429 with Retry-After), nothing is consumed. They are the project's
// one bounded bucket set (tokenbucket): memory stays fixed however many keys
// a client sprays.
type Buckets struct {
	set   *tokenbucket.Buckets
	spec  tokenbucket.Spec
	scale int64 // units per token, so that the refill rate is a whole number per second
}

// NewBuckets gives every key budget tokens, refilled at budget per window
// (whole seconds).
func NewBuckets(budget int, window time.Duration) *Buckets {
	scale := max(int64(window/time.Second), 1)
	// budget tokens per window = budget·scale units per window = budget units per second.
	return &Buckets{set: tokenbucket.NewBuckets(0), scale: scale,
		spec: tokenbucket.Spec{Rate: int64(budget), Burst: int64(budget) * scale}}
}

// Take consumes n tokens for key at now, or reports how long until they fit.
func (b *Buckets) Take(key string, n int, now time.Time) (bool, time.Duration) {
	if n <= 0 {
		return true, 0
	}
	v := b.set.Take(key, b.spec, int64(n)*b.scale, now)
	if v.OK {
		return true, 0
	}
	if v.Wait < 0 { // more than the budget: never fits; wait a whole window
		return false, time.Duration(b.scale) * time.Second
	}
	return false, v.Wait
}
