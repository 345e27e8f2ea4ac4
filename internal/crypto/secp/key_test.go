package secp

import (
	"encoding/hex"
	"math/big"
	"math/rand/v2"
	"testing"

	"github.com/decred/dcrd/dcrec/secp256k1/v4"
	"github.com/decred/dcrd/dcrec/secp256k1/v4/ecdsa"
)

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

// checkSigned asserts the one promise of Key.Signed: true only when Recover
// returns the key's address; and it returns Signed's answer.
func checkSigned(t *testing.T, k *Key, d [32]byte, sig Signature) bool {
	t.Helper()
	ok := k.Signed(d, sig)
	if ok {
		if a, err := Recover(d, sig); err != nil || a != k.Address() {
			t.Fatalf("Signed said yes but Recover gives %s, %v (key %s, sig %x)", a.Hex(), err, k.Address().Hex(), sig)
		}
	}
	return ok
}

// TestKeySignedAgreesWithRecover compares the table-driven check with
// recovery over seeded random keys, digests and signature mutations.
func TestKeySignedAgreesWithRecover(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 11))
	n := secp256k1.S256().N
	for range 6 {
		priv := seededKey(rng)
		k := NewKey(priv.PubKey())
		if k.Address() != PubkeyAddress(priv.PubKey()) {
			t.Fatal("key address differs from the public key's")
		}
		other := seededKey(rng)
		for range 25 {
			d := seededDigest(rng)
			sig := mustSig(t, priv, d)
			if !checkSigned(t, k, d, sig) {
				t.Fatalf("genuine signature not recognised: %x", sig)
			}
			flipV := sig
			flipV[64] ^= 1
			if checkSigned(t, k, d, flipV) {
				t.Fatal("accepted the other recovery id")
			}
			if checkSigned(t, k, d, mustSig(t, other, d)) {
				t.Fatal("accepted another key's signature")
			}
			d2 := d
			d2[rng.IntN(32)] ^= byte(1 + rng.IntN(255))
			if checkSigned(t, k, d2, sig) {
				t.Fatal("accepted the signature over another digest")
			}
			// The malleable twin (r, n−s, v^1) recovers the same key but
			// is refused by Recover (high S), so Signed must refuse it too.
			twin := sig
			s := new(big.Int).SetBytes(sig[32:64])
			new(big.Int).Sub(n, s).FillBytes(twin[32:64])
			twin[64] ^= 1
			if k.Signed(d, twin) {
				t.Fatal("accepted the high-S twin")
			}
			junk := sig
			junk[rng.IntN(64)] ^= byte(1 + rng.IntN(255))
			checkSigned(t, k, d, junk)
		}
	}
}

// TestKeySignedRefusesDegenerate: zero and overflowing scalars, bad v.
func TestKeySignedRefusesDegenerate(t *testing.T) {
	priv := mustKey(t, keyAddrs[0].key)
	k := NewKey(priv.PubKey())
	d := seededDigest(rand.New(rand.NewPCG(1, 2)))
	good := mustSig(t, priv, d)
	order, _ := hex.DecodeString("fffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141")
	cases := map[string]func(*Signature){
		"r zero":    func(s *Signature) { clear(s[:32]) },
		"s zero":    func(s *Signature) { clear(s[32:64]) },
		"r is n":    func(s *Signature) { copy(s[:32], order) },
		"s is n":    func(s *Signature) { copy(s[32:64], order) },
		"v two":     func(s *Signature) { s[64] = 2 },
		"r above n": func(s *Signature) { copy(s[:32], make([]byte, 32)); s[0] = 0xff },
	}
	for name, mutate := range cases {
		sig := good
		mutate(&sig)
		if checkSigned(t, k, d, sig) {
			t.Errorf("%s: accepted", name)
		}
	}
}

// TestKeyMulMatchesScalarMult checks the table multiplication against
// decred's generic one, edge scalars included.
func TestKeyMulMatchesScalarMult(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 5))
	priv := seededKey(rng)
	k := NewKey(priv.PubKey())
	var q secp256k1.JacobianPoint
	priv.PubKey().AsJacobian(&q)
	nm1 := new(big.Int).Sub(secp256k1.S256().N, big.NewInt(1))
	edges := []*big.Int{big.NewInt(0), big.NewInt(1), big.NewInt(31), big.NewInt(32), big.NewInt(33), big.NewInt(63), big.NewInt(64), nm1,
		new(big.Int).Lsh(big.NewInt(1), 252), new(big.Int).Sub(new(big.Int).Lsh(big.NewInt(1), 252), big.NewInt(1))}
	for i := range 60 {
		var b [32]byte
		if i < len(edges) {
			edges[i].FillBytes(b[:])
		} else {
			b = seededDigest(rng)
		}
		var u secp256k1.ModNScalar
		u.SetBytes(&b)
		var got, want secp256k1.JacobianPoint
		k.mul(&u, &got)
		secp256k1.ScalarMultNonConst(&u, &q, &want)
		if !got.EquivalentNonConst(&want) && !(got.Z.IsZero() && want.Z.IsZero()) {
			t.Fatalf("u=%x: table product differs", b)
		}
	}
}

// TestRecodeSumsBack: the signed digits add back up to the scalar and stay
// in range.
func TestRecodeSumsBack(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 9))
	for i := range 2000 {
		u := seededDigest(rng)
		if i == 0 {
			for j := range u {
				u[j] = 0xff
			}
		}
		var d [keyWindows]int8
		recode(u, &d)
		sum := new(big.Int)
		for j := keyWindows - 1; j >= 0; j-- {
			if d[j] < -(keyDigits-1) || d[j] > keyDigits {
				t.Fatalf("digit %d out of range: %d", j, d[j])
			}
			sum.Lsh(sum, keyWindow).Add(sum, big.NewInt(int64(d[j])))
		}
		if sum.Cmp(new(big.Int).SetBytes(u[:])) != 0 {
			t.Fatalf("digits of %x sum to %x", u, sum)
		}
	}
}

// FuzzKeySigned: whatever the bytes, Signed never says yes where Recover
// would not name the key.
func FuzzKeySigned(f *testing.F) {
	priv := mustKey(f, keyAddrs[1].key)
	k := NewKey(priv.PubKey())
	d := seededDigest(rand.New(rand.NewPCG(4, 4)))
	c := ecdsa.SignCompact(priv, d[:], false)
	f.Add(d[:], append(append([]byte{}, c[1:]...), c[0]-27))
	f.Add(make([]byte, 32), make([]byte, 65))
	f.Fuzz(func(t *testing.T, digest, raw []byte) {
		if len(digest) != 32 || len(raw) != 65 {
			return
		}
		var sig Signature
		copy(sig[:], raw)
		checkSigned(t, k, [32]byte(digest), sig)
	})
}

var sinkBool bool

// BenchmarkKeySigned is the known-key check; BenchmarkRecover (secp_test.go)
// is what it replaces.
func BenchmarkKeySigned(b *testing.B) {
	priv := mustKey(b, keyAddrs[0].key)
	k := NewKey(priv.PubKey())
	d := seededDigest(rand.New(rand.NewPCG(1, 1)))
	sig := mustSig(b, priv, d)
	for b.Loop() {
		sinkBool = k.Signed(d, sig)
	}
	if !sinkBool {
		b.Fatal("not signed")
	}
}

func BenchmarkNewKey(b *testing.B) {
	pub := mustKey(b, keyAddrs[0].key).PubKey()
	for b.Loop() {
		NewKey(pub)
	}
}
