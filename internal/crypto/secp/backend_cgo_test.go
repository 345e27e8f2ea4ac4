//go:build cgo

package secp

import (
	"math/rand/v2"
	"testing"

	"github.com/decred/dcrd/dcrec/secp256k1/v4"
)

// maxRecoverAllocs: go-ethereum's RecoverPubkey returns a new slice.
const maxRecoverAllocs = 1

// The default build (cgo on) must recover with libsecp256k1.
func TestBackendIsLibsecp256k1WithCgo(t *testing.T) {
	if Backend != "libsecp256k1" {
		t.Fatalf("Backend = %q", Backend)
	}
}

// agree fails unless both backends give the same answer for (digest, sig),
// and reports whether it was a recovery.
func agree(t testing.TB, digest [32]byte, sig Signature) bool {
	goPub, goOK := recoverGo(&digest, &sig)
	cPub, cOK := recoverPub(&digest, &sig)
	if goOK != cOK || goPub != cPub {
		t.Fatalf("backends disagree on digest %x sig %x: decred %x %v, libsecp256k1 %x %v", digest, sig, goPub, goOK, cPub, cOK)
	}
	return goOK
}

// TestBackendsAgree compares the two backends on seeded random inputs:
// genuine signatures and their mutations (flipped v, bit flips in r, s and
// the digest, high-S twins), and raw random bytes, with v 0..3 (recovery
// ids 2 and 3 take x = r+n; Recover never passes them, the libraries must
// still agree). Recover's own checks are bypassed: this is the libraries.
func TestBackendsAgree(t *testing.T) {
	rng := rand.New(rand.NewPCG(15, 256))
	recovered := 0
	for i := range 150 {
		priv := seededKey(rng)
		d := seededDigest(rng)
		sig := mustSig(t, priv, d)
		if !agree(t, d, sig) {
			t.Fatalf("genuine signature %d not recovered", i)
		}
		muts := []func(Signature) Signature{
			func(s Signature) Signature { s[64] ^= 1; return s },
			func(s Signature) Signature { s[rng.IntN(32)] ^= 1 << rng.IntN(8); return s },
			func(s Signature) Signature { s[32+rng.IntN(32)] ^= 1 << rng.IntN(8); return s },
			highS,
			func(s Signature) Signature { s[64] |= 2; return s },
		}
		for _, m := range muts {
			if agree(t, d, m(sig)) {
				recovered++
			}
		}
		d2 := d
		d2[rng.IntN(32)] ^= 1
		agree(t, d2, sig)
		var raw Signature
		for j := range 64 {
			raw[j] = byte(rng.Uint32())
		}
		raw[64] = byte(rng.IntN(4))
		if agree(t, d, raw) {
			recovered++
		}
	}
	if recovered == 0 {
		t.Fatal("no mutated signature recovered: the comparison saw only failures")
	}
}

// FuzzRecoverBackends is the differential target: any digest and any 65
// bytes, both backends must agree (same key or both refuse), and Recover
// must accept exactly when its checks pass and the backends recover.
//
//	go test -run XXX -fuzz FuzzRecoverBackends -fuzztime 60s ./internal/crypto/secp/
func FuzzRecoverBackends(f *testing.F) {
	for _, vec := range recoverVectors {
		d, s := mustHex(f, vec.digest), mustHex(f, vec.sig)
		f.Add(d, s)
		hs := highS(Signature(s))
		f.Add(d, hs[:])
		s2 := append([]byte(nil), s...)
		s2[64] += 27
		f.Add(d, s2)
	}
	f.Add(make([]byte, 32), make([]byte, 65))
	f.Add([]byte{1}, []byte{0xff})
	f.Fuzz(func(t *testing.T, digestIn, sigIn []byte) {
		var digest [32]byte
		var sig Signature
		copy(digest[:], digestIn)
		copy(sig[:], sigIn)
		sig[64] &= 3
		ok := agree(t, digest, sig)
		addr, err := Recover(digest, sig)
		switch {
		case err == nil && !ok:
			t.Fatalf("Recover accepted what the libraries refuse: %x", sig)
		case err == nil:
			pub, _ := recoverGo(&digest, &sig)
			if addr != rawAddress(pub) {
				t.Fatalf("Recover's address differs from the backends'")
			}
		case check(&sig) == nil && ok:
			t.Fatalf("Recover refused a signature its checks pass and the libraries recover: %v", err)
		}
	})
}

// seededKey is a deterministic private key from the test's generator.
func seededKey(rng *rand.Rand) *secp256k1.PrivateKey {
	var b [32]byte
	for i := range b {
		b[i] = byte(rng.Uint32())
	}
	return secp256k1.PrivKeyFromBytes(b[:])
}

func seededDigest(rng *rand.Rand) (d [32]byte) {
	for i := range d {
		d[i] = byte(rng.Uint32())
	}
	return d
}
