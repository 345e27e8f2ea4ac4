package secp

import (
	"encoding/hex"
	"errors"
	"strings"
	"testing"

	"github.com/decred/dcrd/dcrec/secp256k1/v4"
)

// These tests run in both builds (scripts/test.sh runs the package with and
// without cgo): Recover is libsecp256k1 in one and decred in the other, and
// the same vectors must give the same answers.

// recoverVectors: digest, r||s||v (v = 0/1), signer. The Anvil keys' addresses
// are public knowledge (accounts #0 and #1 of every Hardhat/Anvil node); the
// signatures were made with go-ethereum's secp256k1.Sign (libsecp256k1,
// RFC 6979). The last row is go-ethereum's own Ecrecover test vector
// (crypto/signature_test.go), whose public key is recoverPubkey below.
var recoverVectors = []struct{ digest, sig, addr string }{
	{"b0f6ceaf8c892915f18d4f9c73c03ff37878a01bd2c81486a8d1dcbca2988f05", "3d36726edeac14e8f9f3d7f23b3a32f32faacce43d91272cb9069dae940df598232c9af8b3a67c3c1c236b6ab6f7ff6f36edab3e3f11c6c7b6ab710526c5e7c901", "0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266"},
	{"d35fa679846715b9707f832ec5c17798da1225adc970ec2b0267dc54d6f0ed9a", "47e804f2b5554caf0dd168bc19ffe17b915285364c81451679e6348255fd4701409a538f077751ade4199387e747f145a1e4ca3d317ea192d6f43d0e427810aa00", "0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266"},
	{"955cd997fd95e5764390f9630be255019a2ea2d5048564df04dd86582e1541e7", "a2894a93ff198347f6238fe715a4f0ca62b3aca0dea51e79d769d45294ed8245184174cce3ff48152d321fb97b76811edaff2e39f1d22675947960fb8534553901", "0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266"},
	{"3d4e4e10d549a247e573d0d35493c149a226901e94634a3c972e6d8eef41b32a", "e6c6fbcdd2c2534bf4b8338c6c42735a32733b88ac5258efb6ab6c6a2c43d6210861a2b396c70403efd973eb3bc54baa57a96872bee9625b0980d194de03a08100", "0x70997970C51812dc3A010C7d01b50e0d17dc79C8"},
	{"19820ef289cce1057730c2dcbeb77a91d0f4f1d48ceecf7aa01e38d06b731f91", "8a1dbb30d142f5df4473b3a7a44c36ec70ae6b2a719fa0cf103e6c5314de926c087c7eda5b006feba23be9e123ee83d54bada85a338603396b49de857f3a038d00", "0x70997970C51812dc3A010C7d01b50e0d17dc79C8"},
	{"efd7815a695b00d600327d12daf91d2d76db5a19cd8acfa900e6c18a52ef2009", "3510d363ca9dac539f929e0c551c8510588f8fb1c95465767ec0f3a150a7231e4bd87fae6123f888b86fde87a132352770bed3f831aa9a0dcd938d75541668cc01", "0x70997970C51812dc3A010C7d01b50e0d17dc79C8"},
	{"ce0677bb30baa8cf067c88db9811f4333d131bf8bcf12fe7065d211dce971008", "90f27b8b488db00b00606796d2987f6a5f59ae62ea05effe84fef5b8b0e549984a691139ad57a3f0b906637673aa2f63d1f55cb1a69199d4009eea23ceaddc9301", gethVectorAddr},
}

// gethVectorPub is go-ethereum's testpubkey; gethVectorAddr is keccak256 of
// it (the hash has its own vectors in package keccak).
const (
	gethVectorPub  = "04e32df42865e97135acfb65f3bae71bdc86f4d49150ad6a440b6f15878109880a0a2b2667f7e725ceea70c673093bf67663e0312623c8e091b13cf2c0f11ef652"
	gethVectorAddr = "0xa19d069d48d2e9392ec2bb41ecab0a72119d633b"
)

// backends is every recovery implementation this binary has: decred always,
// and libsecp256k1 when cgo is on.
func backends() []struct {
	name string
	fn   func(*[32]byte, *Signature) ([65]byte, bool)
} {
	out := []struct {
		name string
		fn   func(*[32]byte, *Signature) ([65]byte, bool)
	}{{"decred", recoverGo}}
	if Backend != "decred (pure Go)" {
		out = append(out, struct {
			name string
			fn   func(*[32]byte, *Signature) ([65]byte, bool)
		}{Backend, recoverPub})
	}
	return out
}

func mustHex(t testing.TB, s string) []byte {
	b, err := hex.DecodeString(s)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// Every vector recovers its signer whichever way v is spelled (0/1 as raw
// recovery ids, 27/28 as wallets emit it), in Recover and in each backend.
func TestRecoverVectorsAnyVSpelling(t *testing.T) {
	for i, vec := range recoverVectors {
		digest := [32]byte(mustHex(t, vec.digest))
		raw := mustHex(t, vec.sig)
		for _, v := range []byte{raw[64], raw[64] + 27} {
			s := vec.sig[:128] + hex.EncodeToString([]byte{v})
			sig, err := ParseSignature("0x" + s)
			if err != nil {
				t.Fatalf("vector %d v=%d: %v", i, v, err)
			}
			got, err := Recover(digest, sig)
			if err != nil || !strings.EqualFold(got.Hex(), vec.addr) {
				t.Fatalf("vector %d v=%d: got %s, %v want %s", i, v, got.Hex(), err, vec.addr)
			}
			for _, be := range backends() {
				pub, ok := be.fn(&digest, &sig)
				if !ok || rawAddress(pub) != got {
					t.Fatalf("vector %d v=%d: backend %s gives %x, %v", i, v, be.name, pub, ok)
				}
			}
		}
	}
}

// go-ethereum's vector also pins the full public key, not just its hash.
func TestRecoverGethVectorPublicKey(t *testing.T) {
	vec := recoverVectors[len(recoverVectors)-1]
	digest := [32]byte(mustHex(t, vec.digest))
	sig := Signature(mustHex(t, vec.sig))
	for _, be := range backends() {
		pub, ok := be.fn(&digest, &sig)
		if !ok || hex.EncodeToString(pub[:]) != gethVectorPub {
			t.Fatalf("%s: got %x, %v", be.name, pub, ok)
		}
	}
}

// highS returns the malleable twin (r, n-s, v^1) of a low-S signature.
func highS(sig Signature) Signature {
	var s secp256k1.ModNScalar
	s.SetByteSlice(sig[32:64])
	s.Negate()
	b := s.Bytes()
	copy(sig[32:64], b[:])
	sig[64] ^= 1
	return sig
}

// Both libraries accept the high-S twin of a signature and recover the same
// key from it; Recover refuses it in both builds (ErrHighS), whatever v.
func TestRecoverRejectsHighSInEveryBackend(t *testing.T) {
	for i, vec := range recoverVectors {
		digest := [32]byte(mustHex(t, vec.digest))
		twin := highS(Signature(mustHex(t, vec.sig)))
		for _, be := range backends() {
			pub, ok := be.fn(&digest, &twin)
			if !ok || !strings.EqualFold(rawAddress(pub).Hex(), vec.addr) {
				t.Fatalf("vector %d: premise: %s should accept the twin", i, be.name)
			}
		}
		for _, v := range []byte{twin[64], twin[64] + 27} {
			in := "0x" + hex.EncodeToString(twin[:64]) + hex.EncodeToString([]byte{v})
			sig, err := ParseSignature(in)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := Recover(digest, sig); !errors.Is(err, ErrHighS) {
				t.Fatalf("vector %d v=%d: got %v want ErrHighS", i, v, err)
			}
		}
	}
}

// Malformed signatures get the same error in both builds, before or after
// the backend runs.
func TestRecoverRejectsMalformed(t *testing.T) {
	vec := recoverVectors[0]
	digest := [32]byte(mustHex(t, vec.digest))
	good := Signature(mustHex(t, vec.sig))
	const (
		n     = "fffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141"
		halfN = "7fffffffffffffffffffffffffffffff5d576e7357a4501ddfe92f46681b20a0"
		p     = "fffffffffffffffffffffffffffffffffffffffffffffffffffffffefffffc2f"
	)
	set := func(r, s string, v byte) Signature {
		sig := good
		if r != "" {
			copy(sig[:32], mustHex(t, r))
		}
		if s != "" {
			copy(sig[32:64], mustHex(t, s))
		}
		sig[64] = v
		return sig
	}
	zero := strings.Repeat("00", 32)
	five := strings.Repeat("00", 31) + "05"
	halfNPlus1 := "7fffffffffffffffffffffffffffffff5d576e7357a4501ddfe92f46681b20a1"
	tests := []struct {
		name string
		sig  Signature
		want error
	}{
		{"r zero", set(zero, "", 0), ErrRecover},
		{"s zero", set("", zero, 0), ErrRecover},
		{"r equals n", set(n, "", 0), ErrRecover},
		{"r above n below p", set(p, "", 0), ErrRecover},
		{"s equals n", set("", n, 0), ErrRecover},
		{"s all ones", set("", strings.Repeat("ff", 32), 0), ErrRecover},
		{"s just above half order", set("", halfNPlus1, 0), ErrHighS},
		{"s exactly half order is low", set("", halfN, 0), nil},
		{"raw v 2", set("", "", 2), ErrSignatureFormat},
		{"raw v 27 unparsed", set("", "", 27), ErrSignatureFormat},
		// x = 5 is on no point of secp256k1: 5³ + 7 = 132 is not a square mod p.
		{"r not an x coordinate", set(five, "", 0), ErrRecover},
		{"all zero", Signature{}, ErrRecover},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Recover(digest, tc.sig)
			if tc.want == nil {
				if err != nil {
					t.Fatalf("got %v want a recovered (other) signer", err)
				}
				return
			}
			if !errors.Is(err, tc.want) {
				t.Fatalf("got %v want %v", err, tc.want)
			}
		})
	}
}
