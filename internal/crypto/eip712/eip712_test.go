package eip712

import (
	"encoding/hex"
	"math/big"
	"strings"
	"testing"

	"pmx/internal/crypto/secp"
)

const goldenSigner = "0xfcad0b19bb29d4674531d6f115237e16afce377c"

var polymarket = Domain{Name: "Polymarket", Version: "1", ChainID: 137}

func hex32(t *testing.T, s string) [32]byte {
	t.Helper()
	b, err := hex.DecodeString(strings.TrimPrefix(s, "0x"))
	if err != nil || len(b) != 32 {
		t.Fatalf("bad hex32 %q", s)
	}
	return [32]byte(b)
}

func addr(t *testing.T, s string) [20]byte {
	t.Helper()
	a, err := secp.ParseAddress(s)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

func recoverHex(t *testing.T, digest [32]byte, sig string) string {
	t.Helper()
	s, err := secp.ParseSignature(sig)
	if err != nil {
		t.Fatal(err)
	}
	a, err := secp.Recover(digest, s)
	if err != nil {
		t.Fatal(err)
	}
	return a.Hex()
}

func TestTypeHashPrefixes(t *testing.T) {
	// perps.md §3.1 quotes these (prefix…suffix).
	tests := []struct {
		got            [32]byte
		prefix, suffix string
	}{
		{DomainTypeHash, "c2f87871", "935b6e"},
		{OpTypeHash, "c13e0021", "ea2ff5"},
	}
	for _, tc := range tests {
		h := hex.EncodeToString(tc.got[:])
		if !strings.HasPrefix(h, tc.prefix) || !strings.HasSuffix(h, tc.suffix) {
			t.Fatalf("type hash %s does not match %s…%s", h, tc.prefix, tc.suffix)
		}
	}
}

// The golden vectors' data words are literals here, so this checks the Op
// struct hash and domain independently of the msgpack encoder.
func TestGoldenOp(t *testing.T) {
	sep := polymarket.Separator()
	tests := []struct {
		data      string
		salt, ts  uint64
		signature string
	}{
		{"0x8004f264b573f0d5edd3377ef127f251a2b11e0b9463c5fb5f1be3b42c94336a", 12345, 1751500000000,
			"0xdd933bdada3c14c01dbe48fc02d470f423f0e0ef0897052602c964e20f82c7097c1ea1033e1e939a0633db606781f3b7160603337ab6201755cb191e99bc2d9b1c"},
		{"0x13f4659952efbcd144324c0a1c50cb75069635b2bbf28d3cc1e51b6e176a7617", 999, 1751500000003,
			"0xb97be11bcffaca178b29ecc42cabc732d0f436fad42a42e3a63f32131b347be511d452b14a81bdefc7cfda84bf83c94afedfb16fd8df16883cf6e261e411dfe91c"},
		{"0x3b358621af8f4d297ea0c78b9d40aa9d33b84de0f9a619726f8f9e2f305c0157", 4294967295, 1751500000001,
			"0x1b728cc550e2691bab29ccf183990ab53786fe86b28a5659560f6c7e92faa8f60535f2a0731265f0bdb9bf9c3649ada69857dfe33c887ff9b3fc2794d605adde1b"},
	}
	for _, tc := range tests {
		d := Digest(sep, OpHash(hex32(t, tc.data), tc.salt, tc.ts))
		if got := recoverHex(t, d, tc.signature); got != goldenSigner {
			t.Fatalf("data %s: recovered %s", tc.data, got)
		}
		// Any change to salt must change the signer.
		d2 := Digest(sep, OpHash(hex32(t, tc.data), tc.salt+1, tc.ts))
		if got := recoverHex(t, d2, tc.signature); got == goldenSigner {
			t.Fatal("salt is not bound by the digest")
		}
	}
}

func TestGoldenCreateProxy(t *testing.T) {
	d := Digest(polymarket.Separator(), CreateProxyHash(addr(t, "0x9965507D1a55bcC2695C58ba16FB37d819B0A4dc"), 1752000000000, 4242, 1751500000007))
	sig := "0x64e2d5aef2aeb5e58072ebb63f8419ba0f89d1de34635a007ef648db9e6ac6f301997797def6e6a5b118f09fb1da0e3f58a55c34a871968e13227ae40eabf9341c"
	if got := recoverHex(t, d, sig); got != goldenSigner {
		t.Fatalf("recovered %s", got)
	}
}

func TestGoldenWithdraw(t *testing.T) {
	contract := addr(t, "0xDCa4af75705dbB50f62437045afF9921947917d2")
	dom := Domain{Name: "Polymarket", Version: "1", ChainID: 137, VerifyingContract: &contract}
	amount, err := ParseUint256("10000000")
	if err != nil {
		t.Fatal(err)
	}
	h := WithdrawHash(addr(t, "0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266"), addr(t, "0xC011a7E12a19f7B1f670d46F03B03f3342E82DFB"),
		amount, Uint256From64(0), addr(t, "0x9965507D1a55bcC2695C58ba16FB37d819B0A4dc"), 77, 1751500000)
	sig := "0x75b6d0d9572921ed71d2a13fd3585dbd34326d9b503edaca08e3bf72dcd7bb437fe67378df001fc9e4352063a87d9e0a690599bf0ed6849ec00660e6f28cfa1c1b"
	if got := recoverHex(t, Digest(dom.Separator(), h), sig); got != goldenSigner {
		t.Fatalf("recovered %s", got)
	}
	// Without the verifying contract the digest must differ.
	if got := recoverHex(t, Digest(polymarket.Separator(), h), sig); got == goldenSigner {
		t.Fatal("verifyingContract not bound")
	}
}

func TestClobAuthVectors(t *testing.T) {
	const anvil0 = "0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266"
	const msg = "This message attests that I control the given wallet"
	tests := []struct {
		chain uint64
		ts    string
		nonce uint64
		sig   string
	}{
		// clob-and-catalog.md §2.1.
		{137, "1700000000", 0, "0x659ed4b28ae28e0f038fdf0023c00863c9559caacb9ebc83f44eea87059a099a36f1e1dee110e7faa1c4f65d17489b2da1333ebef78bbe2116d81207b975052d1c"},
		{80002, "1700000000", 7, "0xa1bf70b988ee44042e5b7f78a653955befea75ebe8ccccdf24f2811d5d3936a94a56ec4ee07afe0a6994c112b75ddbf2cdf225dd795fe0ecbb37d3a19f96242e1c"},
		// fixtures/clob/clob_auth.json (also checked from the file in clobauth).
		{137, "1700000000", 42, "0x8e61f918d542a48ff9433fb6cc4c172a2763ad53dda8afa07f77321e2e0a1e3055f29fac1408e0020dca977190fd4f01b1c73b5e2078be29c88a32887945fe2a1b"},
	}
	for _, tc := range tests {
		dom := Domain{Name: "ClobAuthDomain", Version: "1", ChainID: tc.chain}
		h := ClobAuthHash(addr(t, anvil0), tc.ts, Uint256From64(tc.nonce), msg)
		if got := recoverHex(t, Digest(dom.Separator(), h), tc.sig); got != anvil0 {
			t.Fatalf("chain %d nonce %d: recovered %s", tc.chain, tc.nonce, got)
		}
	}
}

func TestParseUint256(t *testing.T) {
	max := new(big.Int).Sub(new(big.Int).Lsh(big.NewInt(1), 256), big.NewInt(1))
	over := new(big.Int).Lsh(big.NewInt(1), 256)
	tests := []struct {
		in string
		ok bool
	}{
		{"0", true}, {"1", true}, {"10000000", true}, {"18446744073709551616", true},
		{max.String(), true}, {over.String(), false},
		{"", false}, {"00", false}, {"01", false}, {"-1", false}, {"+1", false}, {"1.0", false}, {" 1", false}, {"1e3", false},
	}
	for _, tc := range tests {
		got, err := ParseUint256(tc.in)
		if (err == nil) != tc.ok {
			t.Fatalf("%q: err=%v want ok=%v", tc.in, err, tc.ok)
		}
		if tc.ok {
			want, _ := new(big.Int).SetString(tc.in, 10)
			if new(big.Int).SetBytes(got[:]).Cmp(want) != 0 {
				t.Fatalf("%q: got %x", tc.in, got)
			}
		}
	}
}

func FuzzParseUint256(f *testing.F) {
	for _, s := range []string{"0", "1", "007", "115792089237316195423570985008687907853269984665640564039457584007913129639935", "x"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got, err := ParseUint256(s)
		want, ok := new(big.Int).SetString(s, 10)
		canonical := ok && want.Sign() >= 0 && want.BitLen() <= 256 && want.String() == s
		if canonical != (err == nil) {
			t.Fatalf("%q: err=%v canonical=%v", s, err, canonical)
		}
		if err == nil && new(big.Int).SetBytes(got[:]).Cmp(want) != 0 {
			t.Fatalf("%q: got %x", s, got)
		}
	})
}

func BenchmarkOpDigest(b *testing.B) {
	sep := polymarket.Separator()
	var data [32]byte
	b.ReportAllocs()
	for b.Loop() {
		_ = Digest(sep, OpHash(data, 1, 2))
	}
}
