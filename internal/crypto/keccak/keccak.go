// Package keccak is the project's one door to legacy Keccak-256 (the Ethereum
// hash, not NIST SHA3-256), from golang.org/x/crypto/sha3.
package keccak

import (
	"hash"
	"sync"

	"golang.org/x/crypto/sha3"
)

var pool = sync.Pool{New: func() any { return sha3.NewLegacyKeccak256() }}

// Sum256 returns keccak256 of the concatenation of parts.
func Sum256(parts ...[]byte) [32]byte {
	h := pool.Get().(hash.Hash)
	h.Reset()
	for _, p := range parts {
		h.Write(p)
	}
	var out [32]byte
	h.Sum(out[:0])
	pool.Put(h)
	return out
}

// String returns keccak256 of s (EIP-712 hashes dynamic strings this way).
func String(s string) [32]byte { return Sum256([]byte(s)) }
