//go:build !race

// Allocation counts are meaningless under -race (sync.Pool drops entries on
// purpose there); scripts/test.sh runs this package without -race as well.

package eip712

import (
	"testing"

	"pmx/internal/crypto/keccak"
)

// Hashing a signed command must not allocate: recovery is to be the only
// real cost of verifying one (issue 15).
func TestSignedCommandHashingAllocatesNothing(t *testing.T) {
	sep := Domain{Name: "Polymarket", Version: "1", ChainID: 137}.Separator()
	packed := make([]byte, 400) // a compacted op: hashed once, then the struct, then the digest
	var a20 [20]byte
	var u Uint256
	if n := testing.AllocsPerRun(100, func() {
		_ = Digest(sep, OpHash(keccak.Sum256(packed), 7, 1790000000000))
		_ = Digest(sep, CreateProxyHash(a20, 1, 2, 3))
		_ = Digest(sep, WithdrawHash(a20, a20, u, u, a20, 2, 3))
		_ = Digest(sep, ClobAuthHash(a20, "1790000000", u, "This message attests that I control the given wallet"))
	}); n != 0 {
		t.Fatalf("hashing allocated %v times per command set", n)
	}
}
