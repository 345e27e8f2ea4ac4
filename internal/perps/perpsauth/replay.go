package perpsauth

import (
	"encoding/binary"
	"errors"
	"sync"
	"sync/atomic"
)

var (
	// ErrReplayed reports a signed request that was already accepted. The
	// identifier is the one the contract names for margin adjustments; every
	// signed op uses it.
	ErrReplayed = errors.New("signature_already_used")
	// ErrReplayFull reports a full replay cache. Accepting the request could
	// let a replay through later, so it is refused (fail closed); the caller
	// answers 503 service_unavailable with Retry-After.
	ErrReplayFull = errors.New("service_unavailable")
)

// ReplayKey identifies one signed request: 16 bytes of its EIP-712 digest
// (which binds op data, salt, ts and domain) and 8 bytes of the signer, so
// two accounts signing the same digest do not collide. ExpiresMs is when the
// request's signature stops being acceptable anyway (ts + max age); past it
// the entry is useless and is dropped.
type ReplayKey struct {
	id        [24]byte
	ExpiresMs int64
}

func newReplayKey(digest [32]byte, signer [20]byte, expiresMs int64) ReplayKey {
	var k ReplayKey
	copy(k.id[:16], digest[:16])
	copy(k.id[16:], signer[:8])
	k.ExpiresMs = expiresMs
	return k
}

const (
	replayShards   = 16
	replayBucketMs = 10_000 // entries are grouped by expiry in 10 s buckets
)

// ReplayCache remembers accepted signed requests until they expire. Memory is
// bounded by max entries (about 40 bytes each); expired buckets are dropped
// whole, never scanned. Safe for concurrent use.
//
// Invariant: an entry lives in the bucket of its own expiry, and an identical
// request has an identical expiry (it is derived from the signed ts), so a
// lookup touches one map.
type ReplayCache struct {
	max    int64
	count  atomic.Int64
	shards [replayShards]replayShard
}

type replayShard struct {
	mu        sync.Mutex
	buckets   map[int64]map[[24]byte]struct{} // expiry bucket → keys
	lastSweep int64
}

// NewReplayCache holds at most max entries (max <= 0 means 2,000,000).
func NewReplayCache(max int) *ReplayCache {
	if max <= 0 {
		max = 2_000_000
	}
	c := &ReplayCache{max: int64(max)}
	for i := range c.shards {
		c.shards[i].buckets = make(map[int64]map[[24]byte]struct{})
	}
	return c
}

func (c *ReplayCache) shard(k ReplayKey) *replayShard { return &c.shards[k.id[0]%replayShards] }

// sweep drops buckets whose every entry has expired. Caller holds s.mu.
func (c *ReplayCache) sweep(s *replayShard, nowMs int64) {
	cur := nowMs / replayBucketMs
	if cur == s.lastSweep {
		return
	}
	s.lastSweep = cur
	for b, m := range s.buckets {
		if (b+1)*replayBucketMs <= nowMs {
			c.count.Add(-int64(len(m)))
			delete(s.buckets, b)
		}
	}
}

// Add records k unless it is present (ErrReplayed) or the cache is full
// (ErrReplayFull). Keys already expired at nowMs are not stored.
func (c *ReplayCache) Add(k ReplayKey, nowMs int64) error {
	s := c.shard(k)
	s.mu.Lock()
	defer s.mu.Unlock()
	c.sweep(s, nowMs)
	b := k.ExpiresMs / replayBucketMs
	m := s.buckets[b]
	if _, ok := m[k.id]; ok {
		return ErrReplayed
	}
	if k.ExpiresMs < nowMs {
		return nil
	}
	if c.count.Load() >= c.max {
		return ErrReplayFull
	}
	if m == nil {
		m = make(map[[24]byte]struct{})
		s.buckets[b] = m
	}
	m[k.id] = struct{}{}
	c.count.Add(1)
	return nil
}

// Seen reports whether k is recorded.
func (c *ReplayCache) Seen(k ReplayKey) bool {
	s := c.shard(k)
	s.mu.Lock()
	defer s.mu.Unlock()
	_, ok := s.buckets[k.ExpiresMs/replayBucketMs][k.id]
	return ok
}

// Remove forgets k. Call it when an accepted request was provably not
// executed (shed before it reached the engine, or its deadline passed in the
// queue), so that resending the identical signed request can still succeed.
func (c *ReplayCache) Remove(k ReplayKey) {
	s := c.shard(k)
	s.mu.Lock()
	defer s.mu.Unlock()
	b := k.ExpiresMs / replayBucketMs
	if m := s.buckets[b]; m != nil {
		if _, ok := m[k.id]; ok {
			delete(m, k.id)
			c.count.Add(-1)
		}
	}
}

// Len is the number of entries held, including expired ones not yet swept.
func (c *ReplayCache) Len() int { return int(c.count.Load()) }

// Bytes is the 32-byte stored form of k (id, then big-endian expiry), for
// recording with a journaled command so the cache can be re-seeded after a
// restart.
func (k ReplayKey) Bytes() [32]byte {
	var b [32]byte
	copy(b[:24], k.id[:])
	binary.BigEndian.PutUint64(b[24:], uint64(k.ExpiresMs))
	return b
}

// ReplayKeyFromBytes inverts Bytes.
func ReplayKeyFromBytes(b [32]byte) ReplayKey {
	var k ReplayKey
	copy(k.id[:], b[:24])
	k.ExpiresMs = int64(binary.BigEndian.Uint64(b[24:]))
	return k
}
