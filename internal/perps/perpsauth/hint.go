package perpsauth

import (
	"sync"
	"sync/atomic"

	"pmx/internal/crypto/secp"
)

// Hint is one connection's memory of who signs on it. A trading bot signs
// every request on its connection with one proxy key; once a signer has
// signed two requests in a row on a connection, its next requests are first
// checked against that key's precomputed table (secp.Key.Signed, under half
// the cost of recovering the signer) and recovered only if that check says
// no. The answer is the same either way (secp.Key.Signed is true only when
// recovery would name that key), so a hint changes cost, never outcome.
//
// The zero Hint is ready; a nil *Hint disables the shortcut. Safe for
// concurrent use, though perpshttp verifies one request of a connection at
// a time today (HTTP/1.1, and the WebSocket read loop handles frames in
// order).
type Hint struct{ st atomic.Pointer[hintState] }

type hintState struct {
	last secp.Address // signer of the connection's previous verified request
	key  *secp.Key    // last's table, once last signed twice in a row
}

// signedBy returns the hinted key if sig is its signature over digest.
func (h *Hint) signedBy(digest [32]byte, sig secp.Signature) (secp.Address, bool) {
	if h == nil {
		return secp.Address{}, false
	}
	st := h.st.Load()
	if st == nil || st.key == nil || !st.key.Signed(digest, sig) {
		return secp.Address{}, false
	}
	return st.key.Address(), true
}

// observe records a recovered signer that resolved to an account. Keys are
// built only for such signers (a forged signature recovers some random
// address, which resolves to nothing), so nobody can make the server build
// tables for free; and only on a repeat, so a one-off request costs nothing
// extra. A client alternating between keys on one connection never gets a
// table, so never pays for a check that misses.
func (h *Hint) observe(signer secp.Address, pub *secp.PublicKey, keys *keyCache) {
	if h == nil {
		return
	}
	next := &hintState{last: signer}
	if st := h.st.Load(); st != nil && st.last == signer {
		next.key = keys.get(signer, pub)
	}
	h.st.Store(next)
}

// keyCache shares built keys between connections: a signer's table is built
// once while it stays in the cache. Bounded: when full an arbitrary entry is
// dropped (connections still holding it keep using it).
type keyCache struct {
	mu   sync.Mutex
	max  int
	keys map[secp.Address]*secp.Key
}

func newKeyCache(max int) *keyCache {
	return &keyCache{max: max, keys: make(map[secp.Address]*secp.Key)}
}

// get returns signer's key, building it from pub (outside the lock) if
// absent; nil when the cache is disabled.
func (c *keyCache) get(signer secp.Address, pub *secp.PublicKey) *secp.Key {
	if c.max <= 0 {
		return nil
	}
	c.mu.Lock()
	k := c.keys[signer]
	c.mu.Unlock()
	if k != nil {
		return k
	}
	k = secp.NewKey(pub)
	c.mu.Lock()
	if len(c.keys) >= c.max {
		for a := range c.keys {
			delete(c.keys, a)
			break
		}
	}
	c.keys[signer] = k
	c.mu.Unlock()
	return k
}
