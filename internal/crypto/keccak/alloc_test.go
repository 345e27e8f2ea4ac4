//go:build !race

// Allocation counts are meaningless under -race (sync.Pool drops entries on
// purpose there); scripts/test.sh runs this package without -race as well.

package keccak

import "testing"

// Hashing is on every signed request's path: it must not allocate, whatever
// the input's length (one block, several, split parts).
func TestSum256NoAllocs(t *testing.T) {
	var small [64]byte
	big := make([]byte, 1000)
	for i := range big {
		big[i] = byte(i)
	}
	Sum256(small[:]) // warm the pool
	if n := testing.AllocsPerRun(100, func() {
		_ = Sum256(small[:])
		_ = Sum256(big, small[:10], nil)
		var local [96]byte
		_ = Sum256(local[:32], local[32:])
	}); n != 0 {
		t.Fatalf("Sum256 allocated %v times per run", n)
	}
}
