package clobauth

import (
	"crypto/hmac"
	"crypto/sha256"
	"hash"
	"sync"

	"pmx/internal/crypto/eip712"
	"pmx/internal/crypto/secp"
)

// Secret is one key's derived credentials with the raw HMAC secret
// already decoded: what VerifyL2Secret needs per request.
type Secret struct {
	Creds Creds
	raw   []byte
	addr  secp.Address
	nonce eip712.Uint256
	gen   uint32
	macs  sync.Pool // *macState keyed with raw
}

// macState is an HMAC-SHA256 state with the scratch space of one check, so
// a pooled check allocates nothing.
type macState struct {
	h   hash.Hash
	pre [128]byte // timestamp + METHOD + path, when it fits
	got [64]byte  // the decoded POLY_SIGNATURE
	sum [64]byte  // room for the inner and the outer sum
}

func newMACState(key []byte) *macState { return &macState{h: hmac.New(sha256.New, key)} }

// mac is an HMAC keyed with the secret, from the pool when one is free.
func (s *Secret) mac() *macState {
	if m, ok := s.macs.Get().(*macState); ok {
		return m
	}
	return newMACState(s.raw)
}

// DefaultCacheKeys is how many keys a SecretCache keeps by default.
const DefaultCacheKeys = 4096

// SecretCache keeps the derived credentials of recently used keys, so an
// L2 request costs one HMAC instead of three derivations, a base64 encode
// and decode, and the HMAC. It holds at most 2×max entries: two
// generations, the older dropped whole when the newer fills (a key in use
// is promoted on its next hit), so a flood of distinct keys cannot grow it.
// An entry is used only for the exact (address, nonce, generation) it was
// derived for, so it can never authenticate another record; Forget drops a
// deleted key at once.
type SecretCache struct {
	d        *Deriver
	max      int
	mu       sync.Mutex
	cur, old map[string]*Secret
}

// NewSecretCache caches d's derivations for up to max keys (max <= 0:
// DefaultCacheKeys).
func NewSecretCache(d *Deriver, max int) *SecretCache {
	if max <= 0 {
		max = DefaultCacheKeys
	}
	return &SecretCache{d: d, max: max, cur: map[string]*Secret{}, old: map[string]*Secret{}}
}

// Get returns the credentials of apiKey, the key of (addr, nonce, gen).
func (c *SecretCache) Get(apiKey string, addr secp.Address, nonce eip712.Uint256, gen uint32) *Secret {
	c.mu.Lock()
	s, ok := c.cur[apiKey]
	if !ok {
		if s, ok = c.old[apiKey]; ok {
			delete(c.old, apiKey)
			c.put(apiKey, s)
		}
	}
	c.mu.Unlock()
	if ok && s.addr == addr && s.nonce == nonce && s.gen == gen {
		return s
	}
	creds := c.d.Derive(addr, nonce, gen)
	raw, _ := decodeB64(creds.Secret) // Derive's own encoding: always decodes
	s = &Secret{Creds: creds, raw: raw, addr: addr, nonce: nonce, gen: gen}
	if creds.APIKey != apiKey { // not the key it claims to be: never cache
		return s
	}
	c.mu.Lock()
	c.put(apiKey, s)
	c.mu.Unlock()
	return s
}

func (c *SecretCache) put(apiKey string, s *Secret) {
	if len(c.cur) >= c.max {
		c.old, c.cur = c.cur, make(map[string]*Secret, c.max)
	}
	c.cur[apiKey] = s
}

// Forget drops apiKey (its key was deleted).
func (c *SecretCache) Forget(apiKey string) {
	c.mu.Lock()
	delete(c.cur, apiKey)
	delete(c.old, apiKey)
	c.mu.Unlock()
}

// Len is the number of cached keys.
func (c *SecretCache) Len() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.cur) + len(c.old)
}
