package dataapi

import (
	"bytes"
	"sync"
)

// sharedRuns keeps rendered runs of a market's members across requests,
// keyed by run id and the run's anchor (its token id, key.s[0]): the rows
// of a page mostly name different markets (a wallet's positions always
// do), so the page memo alone still escapes every market string once per
// page, reading them cold from wherever the store keeps them. A hit
// requires the whole key to be equal (all values the run renders, and the
// anchor), so a market whose strings changed renders again and replaces
// its entry; no answer can differ from rendering. Entries hold copies of
// the bytes and the key's strings (which keep those strings alive); the
// map is emptied when it reaches maxSharedRuns (keys come from the store's
// rows, one per token and run kind, so that only happens with a very
// large catalog).
type sharedRunCache struct {
	mu sync.RWMutex
	m  map[anchorKey]*sharedRun
}

type anchorKey struct {
	id     uint8
	anchor string
}

type sharedRun struct {
	k runKey
	b []byte
}

const maxSharedRuns = 1 << 17

var sharedRuns = sharedRunCache{m: map[anchorKey]*sharedRun{}}

// shared appends the run k, from the cross-request cache or rendered by enc
// (which then fills the cache).
func (m *pageMemo) shared(b []byte, k *runKey, enc func([]byte) []byte) []byte {
	c := &sharedRuns
	ak := anchorKey{k.id, k.s[0]}
	c.mu.RLock()
	e := c.m[ak]
	c.mu.RUnlock()
	if e != nil && e.k == *k {
		return append(b, e.b...)
	}
	off := len(b)
	b = enc(b)
	e = &sharedRun{k: *k, b: bytes.Clone(b[off:])}
	c.mu.Lock()
	if len(c.m) >= maxSharedRuns {
		clear(c.m)
	}
	c.m[ak] = e
	c.mu.Unlock()
	return b
}
