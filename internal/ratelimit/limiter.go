// Package ratelimit is the sliding-window limiter every pmx listener shares:
// per client key (IP), several scoped rules, excess requests delayed until
// the windows admit them, and 429 only for a request that would wait longer
// than a bound.
package ratelimit

import (
	"errors"
	"fmt"
	"hash/maphash"
	"sync"
	"sync/atomic"
	"time"

	"pmx/internal/clock"
)

// Decision is the outcome of one admission.
type Decision struct {
	// OK: admitted, after waiting Wait (zero when admitted at once).
	OK   bool
	Wait time.Duration
	// RetryAfter (when !OK): how long until the windows would admit the
	// request; nothing was consumed.
	RetryAfter time.Duration
	// Scope names the rule that bound the decision ("" when nothing waited).
	Scope string
}

// Limiter tracks sliding windows per client key. It is safe for concurrent
// use; its memory is bounded by Config.MaxKeys.
type Limiter struct {
	rules   []rule
	byScope map[string][]int
	maxWait time.Duration
	maxIdle time.Duration // an entry untouched this long holds only expired counts
	perSh   int           // max keys per shard
	clock   clock.Clock
	epoch   time.Time
	seed    maphash.Seed
	ops     atomic.Uint64
	shards  [shardCount]shard
}

const (
	shardCount = 64
	sweepEvery = 256
)

type rule struct {
	Rule
	g     int64 // bucket width, ns
	b     int64 // buckets per window
	slots int   // ring size: b+1 past buckets plus the reservable horizon
}

type shard struct {
	mu sync.Mutex
	m  map[string]*entry
}

// entry is one client key's windows, indexed like Limiter.rules (nil until
// that rule is first used).
type entry struct {
	rings []*ring
	last  int64 // latest admission time, ns since epoch
}

// ring holds per-bucket counts for buckets [base, base+len(c)). Buckets
// outside the range count zero: older ones have left every window, and no
// reservation is ever made past the horizon the ring covers.
type ring struct {
	base int64
	c    []int32
}

// New builds a limiter. The clock may be nil (clock.System).
func New(cfg Config, clk clock.Clock) (*Limiter, error) {
	if clk == nil {
		clk = clock.System{}
	}
	if cfg.MaxWait <= 0 {
		cfg.MaxWait = defaultMaxWait
	}
	if cfg.Buckets <= 0 {
		cfg.Buckets = defaultBuckets
	}
	if cfg.MaxKeys <= 0 {
		cfg.MaxKeys = defaultMaxKeys
	}
	l := &Limiter{
		byScope: map[string][]int{},
		maxWait: cfg.MaxWait,
		clock:   clk,
		epoch:   clk.Now(),
		seed:    maphash.MakeSeed(),
		perSh:   max(1, cfg.MaxKeys/shardCount),
	}
	var longest time.Duration
	for i, r := range cfg.Rules {
		if r.Limit <= 0 || r.Window <= 0 || r.Scope == "" {
			return nil, fmt.Errorf("ratelimit: rule %d (%q): scope, limit and window are required", i, r.Scope)
		}
		g := int64(r.Window) / int64(cfg.Buckets)
		if g <= 0 || int64(r.Window)%int64(cfg.Buckets) != 0 {
			return nil, fmt.Errorf("ratelimit: rule %q: window %v is not a multiple of %d buckets", r.Scope, r.Window, cfg.Buckets)
		}
		horizon := (int64(cfg.MaxWait) + g - 1) / g
		l.rules = append(l.rules, rule{Rule: r, g: g, b: int64(cfg.Buckets), slots: int(int64(cfg.Buckets) + horizon + 2)})
		l.byScope[r.Scope] = append(l.byScope[r.Scope], i)
		longest = max(longest, r.Window)
	}
	if len(l.rules) == 0 {
		return nil, errors.New("ratelimit: no rules")
	}
	l.maxIdle = longest + cfg.MaxWait + time.Second
	for i := range l.shards {
		l.shards[i].m = map[string]*entry{}
	}
	return l, nil
}

// Scopes lists the scope names the limiter knows.
func (l *Limiter) Scopes() []string {
	var s []string
	seen := map[string]bool{}
	for _, r := range l.rules {
		if !seen[r.Scope] {
			seen[r.Scope] = true
			s = append(s, r.Scope)
		}
	}
	return s
}

// Admit charges one request from key against every rule of the named scopes
// (unknown names are ignored) and says whether, and after how long, it may
// proceed. A request is charged only when admitted.
func (l *Limiter) Admit(key string, scopes []string) Decision {
	var idxBuf [16]int
	idx := idxBuf[:0]
	for _, s := range scopes {
	next:
		for _, i := range l.byScope[s] {
			for _, j := range idx {
				if i == j { // a scope named twice is charged once
					continue next
				}
			}
			idx = append(idx, i)
		}
	}
	if len(idx) == 0 {
		return Decision{OK: true}
	}
	now := int64(l.clock.Now().Sub(l.epoch))
	if n := l.ops.Add(1); n%sweepEvery == 0 {
		// Round-robin sweep: every shard is visited once per 64*sweepEvery
		// requests, so idle keys do not linger where no new key arrives.
		o := &l.shards[(n/sweepEvery)%shardCount]
		o.mu.Lock()
		l.sweep(o, now)
		o.mu.Unlock()
	}
	sh := &l.shards[maphash.String(l.seed, key)%shardCount]
	sh.mu.Lock()
	defer sh.mu.Unlock()
	e := sh.m[key]
	if e == nil {
		l.makeRoom(sh, now)
		e = &entry{rings: make([]*ring, len(l.rules))}
		sh.m[key] = e
	}
	for _, i := range idx {
		if e.rings[i] == nil {
			e.rings[i] = &ring{c: make([]int32, l.rules[i].slots)}
		}
		e.rings[i].advance(now/l.rules[i].g - l.rules[i].b)
	}
	// Fixpoint: the earliest time every matched rule admits. Each step only
	// moves t forward and each rule admits once past its reservations plus a
	// window, so this terminates.
	t, binding := now, -1
	for changed := true; changed; {
		changed = false
		for _, i := range idx {
			if at := l.rules[i].earliest(e.rings[i], t); at > t {
				t, binding, changed = at, i, true
			}
		}
	}
	d := Decision{Wait: time.Duration(t - now)}
	if binding >= 0 {
		d.Scope = l.rules[binding].Scope
	}
	if d.Wait > l.maxWait {
		return Decision{RetryAfter: d.Wait, Scope: d.Scope}
	}
	for _, i := range idx {
		e.rings[i].add(t / l.rules[i].g)
	}
	e.last = max(e.last, t)
	d.OK = true
	return d
}

// advance drops buckets older than first.
func (r *ring) advance(first int64) {
	shift := first - r.base
	if shift <= 0 {
		return
	}
	if shift >= int64(len(r.c)) {
		clear(r.c)
	} else {
		copy(r.c, r.c[shift:])
		clear(r.c[int64(len(r.c))-shift:])
	}
	r.base = first
}

func (r *ring) at(n int64) int64 {
	if i := n - r.base; i >= 0 && i < int64(len(r.c)) {
		return int64(r.c[i])
	}
	return 0
}

func (r *ring) add(n int64) {
	// Invariant: n lies within the ring (n <= now's bucket + horizon).
	r.c[n-r.base]++
}

// earliest returns the first time >= t at which one more request fits.
// Counting is conservative: at a time in bucket m, the window holds buckets
// m-b..m, a superset of the last Window. Adding to bucket n must keep every
// window that contains n (those ending at n..n+b) under the limit.
func (ru *rule) earliest(r *ring, t int64) int64 {
	lim := int64(ru.Limit)
	// Fast path: the whole ring is a superset of every window.
	var all int64
	for _, c := range r.c {
		all += int64(c)
	}
	if all < lim {
		return t
	}
	// Windows ending past top+b hold no bucket of the ring, so the candidate
	// last = top+b+1 always fits: the search is bounded.
	n0 := t / ru.g
	last := r.base + int64(len(r.c)) - 1 + ru.b + 1
	if n0 >= last {
		return t
	}
	// w[i] = count of the window ending at bucket n0+i, by a sliding sum.
	var buf [64]int64
	w := buf[:0]
	var sum int64
	for k := n0 - ru.b; k <= n0; k++ {
		sum += r.at(k)
	}
	w = append(w, sum)
	for m := n0 + 1; m <= last+ru.b; m++ {
		sum += r.at(m) - r.at(m-ru.b-1)
		w = append(w, sum)
	}
	for n := n0; n <= last; n++ {
		ok := true
		for _, c := range w[n-n0 : n-n0+ru.b+1] {
			if c >= lim {
				ok = false
				break
			}
		}
		if ok {
			return max(t, n*ru.g)
		}
	}
	return max(t, last*ru.g) // unreachable: last always fits
}

// sweep forgets idle keys (their windows are empty). sh.mu is held.
func (l *Limiter) sweep(sh *shard, now int64) {
	for k, e := range sh.m {
		if now-e.last > int64(l.maxIdle) {
			delete(sh.m, k)
		}
	}
}

// makeRoom keeps the shard within its share of MaxKeys before a new key is
// added: idle keys go first; if the shard is still full, arbitrary keys are
// forgotten (they restart with empty windows: under a flood of distinct
// clients, memory stays bounded at the cost of exactness for those keys).
// sh.mu is held.
func (l *Limiter) makeRoom(sh *shard, now int64) {
	if len(sh.m) < l.perSh {
		return
	}
	l.sweep(sh, now)
	for k := range sh.m {
		if len(sh.m) < l.perSh {
			break
		}
		delete(sh.m, k)
	}
}

// Keys reports how many client keys are tracked.
func (l *Limiter) Keys() int {
	n := 0
	for i := range l.shards {
		l.shards[i].mu.Lock()
		n += len(l.shards[i].m)
		l.shards[i].mu.Unlock()
	}
	return n
}
