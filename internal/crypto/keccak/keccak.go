// Package keccak is the project's one door to legacy Keccak-256 (the Ethereum
// hash, not NIST SHA3-256), from golang.org/x/crypto/sha3.
package keccak

import (
	"hash"
	"sync"

	"golang.org/x/crypto/sha3"
)

// sponge is what sha3's legacy Keccak state implements: Read squeezes the
// digest out without Sum's copy of the whole state.
type sponge interface {
	hash.Hash
	Read([]byte) (int, error)
}

// hasher is a pooled Keccak state with its own buffers. Data reaches the
// state only through them: a slice passed through an interface method
// escapes, so hashing the caller's bytes directly would move every caller's
// array to the heap. The copy costs a few ns per block; the allocation it
// avoids costs more, and Sum256 stays allocation-free (TestSum256NoAllocs).
type hasher struct {
	h   sponge
	buf [136]byte // one Keccak-256 block (the rate)
	out [32]byte
}

var pool = sync.Pool{New: func() any { return &hasher{h: sha3.NewLegacyKeccak256().(sponge)} }}

// Sum256 returns keccak256 of the concatenation of parts.
func Sum256(parts ...[]byte) [32]byte {
	s := pool.Get().(*hasher)
	s.h.Reset()
	for _, p := range parts {
		for len(p) > 0 {
			n := copy(s.buf[:], p)
			s.h.Write(s.buf[:n])
			p = p[n:]
		}
	}
	s.h.Read(s.out[:])
	out := s.out
	pool.Put(s)
	return out
}

// String returns keccak256 of s (EIP-712 hashes dynamic strings this way).
func String(s string) [32]byte { return Sum256([]byte(s)) }
