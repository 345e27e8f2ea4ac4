package secp

import (
	"encoding/hex"
	"errors"
	"strings"
	"testing"

	"github.com/decred/dcrd/dcrec/secp256k1/v4"
	"github.com/decred/dcrd/dcrec/secp256k1/v4/ecdsa"

	"pmx/internal/crypto/keccak"
)

// Keys and addresses from the perps golden vectors and the Anvil account #0.
var keyAddrs = []struct{ key, addr string }{
	{"0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef", "0xfcad0b19bb29d4674531d6f115237e16afce377c"},
	{"ac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80", "0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266"},
}

func mustKey(t testing.TB, h string) *secp256k1.PrivateKey {
	b, err := hex.DecodeString(h)
	if err != nil {
		t.Fatal(err)
	}
	return secp256k1.PrivKeyFromBytes(b)
}

// signEth signs digest with decred directly and returns Ethereum r||s||v hex,
// without going through this package's code.
func signEth(key *secp256k1.PrivateKey, digest [32]byte) string {
	c := ecdsa.SignCompact(key, digest[:], false) // <27+recid> r s
	out := append(append([]byte{}, c[1:]...), c[0])
	return "0x" + hex.EncodeToString(out)
}

// mustSig signs with decred directly (not through this package).
func mustSig(t testing.TB, key *secp256k1.PrivateKey, d [32]byte) Signature {
	sig, err := ParseSignature(signEth(key, d))
	if err != nil {
		t.Fatal(err)
	}
	return sig
}

func TestRecoverKnownKeys(t *testing.T) {
	for _, ka := range keyAddrs {
		key := mustKey(t, ka.key)
		for i := range 20 {
			digest := keccak.Sum256([]byte{byte(i)}, []byte(ka.key))
			sig := mustSig(t, key, digest)
			got, err := Recover(digest, sig)
			if err != nil {
				t.Fatalf("recover: %v", err)
			}
			if !strings.EqualFold(got.Hex(), ka.addr) {
				t.Fatalf("got %s want %s", got.Hex(), ka.addr)
			}
			// A different digest must recover a different address.
			other := digest
			other[0] ^= 1
			if a, err := Recover(other, sig); err == nil && a == got {
				t.Fatal("signature recovered the same signer over another digest")
			}
		}
	}
}

// The twin (r, n-s, v^1) of every signature is valid ECDSA; decred accepts it
// and we must not.
func TestHighSRejected(t *testing.T) {
	key := mustKey(t, keyAddrs[0].key)
	digest := keccak.Sum256([]byte("high-s"))
	sig := mustSig(t, key, digest)
	var s secp256k1.ModNScalar
	s.SetByteSlice(sig[32:64])
	if s.IsOverHalfOrder() {
		t.Fatal("decred produced a high-S signature; the test premise is wrong")
	}
	s.Negate()
	twin := sig
	sb := s.Bytes()
	copy(twin[32:64], sb[:])
	twin[64] ^= 1

	// Premise: the library alone accepts the twin and yields the same key.
	compact := append([]byte{27 + twin[64]}, twin[:64]...)
	pub, _, err := ecdsa.RecoverCompact(compact, digest[:])
	if err != nil || PubkeyAddress(pub) != PubkeyAddress(key.PubKey()) {
		t.Fatalf("premise: decred should accept the twin: %v", err)
	}
	if _, err := Recover(digest, twin); !errors.Is(err, ErrHighS) {
		t.Fatalf("high-S twin: got %v want ErrHighS", err)
	}
	if _, err := Recover(digest, sig); err != nil {
		t.Fatalf("low-S original: %v", err)
	}
}

func TestRecoverRejectsGarbage(t *testing.T) {
	digest := keccak.Sum256([]byte("x"))
	var zero Signature
	if _, err := Recover(digest, zero); err == nil {
		t.Fatal("zero signature recovered")
	}
	var big Signature
	for i := range 64 {
		big[i] = 0xff
	}
	if _, err := Recover(digest, big); err == nil {
		t.Fatal("all-ones signature recovered")
	}
}

func TestParseSignature(t *testing.T) {
	base := strings.Repeat("11", 64)
	tests := []struct {
		in    string
		ok    bool
		wantV byte
	}{
		{"0x" + base + "1b", true, 0},
		{"0x" + base + "1c", true, 1},
		{"0X" + base + "1C", true, 1},
		{base + "00", true, 0},
		{"0x" + base + "01", true, 1},
		{"0x" + base + "02", false, 0},
		{"0x" + base + "1d", false, 0},
		{"0x" + base, false, 0},
		{"0x" + base + "1b00", false, 0},
		{"0x" + base[:126] + "zz1b", false, 0},
		{"", false, 0},
	}
	for _, tc := range tests {
		sig, err := ParseSignature(tc.in)
		if (err == nil) != tc.ok {
			t.Fatalf("%q: err=%v want ok=%v", tc.in, err, tc.ok)
		}
		if tc.ok && sig[64] != tc.wantV {
			t.Fatalf("%q: v=%d want %d", tc.in, sig[64], tc.wantV)
		}
	}
	sig, _ := ParseSignature("0x" + base + "1c")
	if sig.Hex() != "0x"+base+"1c" {
		t.Fatalf("Hex round trip: %s", sig.Hex())
	}
}

func TestAddress(t *testing.T) {
	// EIP-55 reference vectors.
	for _, s := range []string{
		"0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed",
		"0xfB6916095ca1df60bB79Ce92cE3Ea74c37c5d359",
		"0xdbF03B407c01E7cD3CBea99509d93f8DDDC8C6FB",
		"0xD1220A0cf47c7B9Be7A2E6BA89F429762e7b9aDb",
		"0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266",
	} {
		a, err := ParseAddress(strings.ToLower(s))
		if err != nil {
			t.Fatal(err)
		}
		if a.Checksum() != s || a.String() != s {
			t.Fatalf("checksum: got %s want %s", a.Checksum(), s)
		}
		if a.Hex() != strings.ToLower(s) {
			t.Fatalf("hex: %s", a.Hex())
		}
	}
	for _, bad := range []string{"", "0x", "0x123", "f39Fd6e51aad88F6F4ce6aB8827279cffFb9226600",
		"0xg39Fd6e51aad88F6F4ce6aB8827279cffFb92266", "0xf39Fd6e51aad88F6F4ce6aB8827279cffFb922661"} {
		if _, err := ParseAddress(bad); err == nil {
			t.Fatalf("%q accepted", bad)
		}
	}
	var z Address
	if !z.IsZero() {
		t.Fatal("zero address not zero")
	}
}

func FuzzParseSignature(f *testing.F) {
	f.Add("0x" + strings.Repeat("11", 64) + "1b")
	f.Add(strings.Repeat("ab", 65))
	f.Add("0x")
	f.Fuzz(func(t *testing.T, s string) {
		sig, err := ParseSignature(s)
		if err != nil {
			return
		}
		if sig[64] > 1 {
			t.Fatalf("v not normalised: %d", sig[64])
		}
		again, err := ParseSignature(sig.Hex())
		if err != nil || again != sig {
			t.Fatalf("round trip of %q failed: %v", s, err)
		}
		_, _ = Recover([32]byte{1}, sig) // must not panic
	})
}

func FuzzParseAddress(f *testing.F) {
	f.Add("0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266")
	f.Add("0x")
	f.Fuzz(func(t *testing.T, s string) {
		a, err := ParseAddress(s)
		if err != nil {
			return
		}
		if !strings.EqualFold(a.Hex(), s) {
			t.Fatalf("%q parsed to %s", s, a.Hex())
		}
		b, err := ParseAddress(a.Checksum())
		if err != nil || b != a {
			t.Fatalf("checksum round trip failed for %q", s)
		}
	})
}
