//go:build !race

// Allocation counts are meaningless under -race (sync.Pool drops entries on
// purpose there); scripts/test.sh runs this package without -race as well.

package secp

import "testing"

// Recover's only allocation is the backend's (go-ethereum's 65-byte result
// with cgo): the checks, the copies and the address hash allocate nothing.
func TestRecoverAllocations(t *testing.T) {
	vec := recoverVectors[0]
	digest := [32]byte(mustHex(t, vec.digest))
	sig := Signature(mustHex(t, vec.sig))
	Recover(digest, sig)
	got := testing.AllocsPerRun(20, func() {
		if _, err := Recover(digest, sig); err != nil {
			t.Fatal(err)
		}
	})
	if want := float64(maxRecoverAllocs); got > want {
		t.Fatalf("Recover allocates %v times, want at most %v", got, want)
	}
	if got := testing.AllocsPerRun(20, func() { _ = rawAddress([65]byte{4}) }); got != 0 {
		t.Fatalf("address hash allocates %v times", got)
	}
}

// Parsing a signature allocates nothing either.
func TestParseSignatureAllocations(t *testing.T) {
	in := "0x" + recoverVectors[0].sig[:128] + "1c"
	if got := testing.AllocsPerRun(20, func() {
		if _, err := ParseSignature(in); err != nil {
			t.Fatal(err)
		}
	}); got != 0 {
		t.Fatalf("ParseSignature allocates %v times", got)
	}
}
