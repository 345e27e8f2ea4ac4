package clobhttp

import (
	"sync"

	"pmx/internal/crypto/secp"
)

// knownKeys keeps the key tables of repeat signers: checking an order
// against a known key (secp.Key.Signed) costs about half a recovery, and a
// market maker signs every order with one key. A table (~110 KB, ~2 ms to
// build) is built only for a signer seen repeatedly, so a spray of one-off
// signers costs no more than recovery; both maps are bounded.
type knownKeys struct {
	mu   sync.Mutex
	keys map[secp.Address]*secp.Key
	hits map[secp.Address]uint8
}

const (
	knownKeysMax = 256  // tables kept (~28 MB at most)
	knownHitsMax = 4096 // signers counted before the counts start over
	knownAfter   = 3    // recoveries of one signer before its table is built
)

func newKnownKeys() *knownKeys {
	return &knownKeys{keys: map[secp.Address]*secp.Key{}, hits: map[secp.Address]uint8{}}
}

func (k *knownKeys) get(a secp.Address) *secp.Key {
	k.mu.Lock()
	defer k.mu.Unlock()
	return k.keys[a]
}

// recovered notes a recovery of a's key; on the knownAfter-th it builds the
// table (outside the lock).
func (k *knownKeys) recovered(a secp.Address, pub *secp.PublicKey) {
	k.mu.Lock()
	if _, ok := k.keys[a]; ok {
		k.mu.Unlock()
		return
	}
	if len(k.hits) >= knownHitsMax {
		clear(k.hits)
	}
	k.hits[a]++
	build := k.hits[a] >= knownAfter
	k.mu.Unlock()
	if !build {
		return
	}
	key := secp.NewKey(pub)
	k.mu.Lock()
	defer k.mu.Unlock()
	if len(k.keys) >= knownKeysMax {
		for old := range k.keys { // evict one (any): the bound is what matters
			delete(k.keys, old)
			break
		}
	}
	k.keys[a] = key
	delete(k.hits, a)
}
