package perpsauth

import (
	"encoding/hex"
	"errors"
	"testing"
	"time"

	"pmx/internal/crypto/keccak"
	"pmx/internal/crypto/secp"
)

const goldenSigner = "0xfcad0b19bb29d4674531d6f115237e16afce377c"

// Golden vectors 1-10 of perps.md §3.6, as the keyed JSON a client sends.
var goldenOps = []struct {
	name, op, want string // want: route type
	data           string
	salt, ts       uint64
	sig            string
}{
	{"1 limit", `{"type":"createOrders","args":[{"iid":1,"buy":true,"p":"0.5","qty":"10","tif":"gtc","po":false}]}`, "createOrders",
		"8004f264b573f0d5edd3377ef127f251a2b11e0b9463c5fb5f1be3b42c94336a", 12345, 1751500000000,
		"0xdd933bdada3c14c01dbe48fc02d470f423f0e0ef0897052602c964e20f82c7097c1ea1033e1e939a0633db606781f3b7160603337ab6201755cb191e99bc2d9b1c"},
	{"2 market, po omitted", `{"type":"createOrders","args":[{"iid":42,"buy":false,"qty":"2.5","tif":"ioc","c":"aabbccddeeff00112233445566778899"}]}`, "createOrders",
		"3b358621af8f4d297ea0c78b9d40aa9d33b84de0f9a619726f8f9e2f305c0157", 4294967295, 1751500000001,
		"0x1b728cc550e2691bab29ccf183990ab53786fe86b28a5659560f6c7e92faa8f60535f2a0731265f0bdb9bf9c3649ada69857dfe33c887ff9b3fc2794d605adde1b"},
	{"3 bracket", `{"type":"createOrders","grp":"order","args":[
		{"iid":7,"buy":true,"p":"100","qty":"3","tif":"gtc","po":false},
		{"iid":7,"buy":false,"qty":"3","po":false,"ro":true,"tr":{"market":true,"trp":"200","tpsl":"tp"}},
		{"iid":7,"buy":false,"p":"50","qty":"3","po":false,"ro":true,"tr":{"trp":"49","tpsl":"sl"}}]}`, "createOrders",
		"34b31ff82aa6d39bd6ee54a7781287d6e6dffcc0cc7dcc981f70e381c7d8a641", 1, 1751500000002,
		"0xfa7438604c02142ed9a0e3612a38d3b0b49eb21141515ac9a30be03b9f4422ea5b598c70b2e733f6564eb322ac6ec5293c656c86426f389e9c5454e33d086cb21b"},
	{"4 cancel", `{"type":"cancelOrders","args":[11,22,33]}`, "cancelOrders",
		"13f4659952efbcd144324c0a1c50cb75069635b2bbf28d3cc1e51b6e176a7617", 999, 1751500000003,
		"0xb97be11bcffaca178b29ecc42cabc732d0f436fad42a42e3a63f32131b347be511d452b14a81bdefc7cfda84bf83c94afedfb16fd8df16883cf6e261e411dfe91c"},
	{"5 cancel coid", `{"type":"cancelOrdersCOID","args":["aabbccddeeff00112233445566778899"]}`, "cancelOrdersCOID",
		"df8f1749d1b75392360c1117dcf2e0f251b0197b4db21c37a4e7d2451bc7cc95", 1000, 1751500000004,
		"0xf3b23b2357864efb2cd1ac128a9b6601c85a7894d9be000243f253a37f778c39525d0359d95e01350d5bfca6ebf4b84bb5735acfbcb8c8fb90978bb9f371d58a1c"},
	{"6 leverage", `{"type":"updateLeverage","args":{"iid":3,"lev":20,"cross":true}}`, "updateLeverage",
		"1daa002ce2f4e42ab0ef2d3c489b2386cccac2cbb861bdd7695761d4d93dd410", 7, 1751500000005,
		"0x5b81c182f89acc819488f30daa7a6fdb7563b0f65b2b404e9ece8a72d8077c3f6bf328900ed6594d56605e564fa1e4469c8be670ac86015ab160bd78a97ea2bd1b"},
	{"7 auto-cancel", `{"type":"autoCancel","args":{"time":1767000045000}}`, "autoCancel",
		"8d16f1dbf6be71cea6ad70c5b09f028dd1b451cebb2c7dd20c82dbf1022440ba", 12345, 1751500000000,
		"0x9019fb6edfc125e19635ac74d50efc1c863bc26e4d395ee76a8e26d7df00114424d5a338540f9b7ecb46fb3825ad662da852856257829c3664ce84d02bfcdda81c"},
	{"8 auto-cancel clear", `{"type":"autoCancel","args":{"time":0}}`, "autoCancel",
		"569d0f5365d9bb75e7f2218717986828ea553b937a4c901528c70fa173fa539e", 12345, 1751500000000,
		"0x188bebb866e6f11dd439ea12e2869eb9308fb6a9c6c9da09ece8a74467d7c4ac582c4a9929094af1d994467e40c81143de007b6b1499286b265512fdde82b29a1c"},
	{"9 margin", `{"type":"updateMargin","args":{"iid":3,"amt":"-25.000000000000000001"}}`, "updateMargin",
		"1bceee4cd50ae288f5ae7e993deeea51fe9dd41b5eff27840455ed72e72d4f4c", 8, 1751500000006,
		"0xfd6ec2ee47423b3f87adfc64eadd9764180e05102efadb112403016a446d072d497ec201b2df1e7944f465c9c734d3698b80dbe51a42eb8167a7a54e4249dfc81b"},
	{"10 delete proxy", `{"type":"deleteProxy","args":{"proxy":"0x9965507D1a55bcC2695C58ba16FB37d819B0A4dc"}}`, "deleteProxy",
		"7274223decc60adbbe3ba91ceade2e6cd7901ab7ba506d07fb2d0dbef83e30d4", 55, 1751500000006,
		"0x2f6400725b8af890a69b8c47fe9d2b100d15714a73a13a92b15187909d1c108051dc906b8ec65cfc4d161c579df7b2cb9c6f7efea30dc238cfd7526fd3b797c01c"},
}

func atTs(ms uint64) time.Time { return time.UnixMilli(int64(ms) + 1000) }

func TestGoldenOps(t *testing.T) {
	for _, g := range goldenOps {
		t.Run(g.name, func(t *testing.T) {
			op, packed, err := Compact([]byte(g.op))
			if err != nil {
				t.Fatal(err)
			}
			if h := keccak.Sum256(packed); hex.EncodeToString(h[:]) != g.data {
				t.Fatalf("data %x want %s (msgpack %x)", h, g.data, packed)
			}
			if op.Type != g.want {
				t.Fatalf("type %q", op.Type)
			}
			v := New(Config{})
			r, err := ParseRequest(envelope(t, g.op, g.sig, g.salt, g.ts, ""))
			if err != nil {
				t.Fatal(err)
			}
			got, err := v.VerifyOp(r, g.want, atTs(g.ts), Self)
			if err != nil {
				t.Fatal(err)
			}
			if got.Signer.Hex() != goldenSigner || got.Account.Hex() != goldenSigner {
				t.Fatalf("signer %s", got.Signer.Hex())
			}
		})
	}
}

// The ts-sdk data vectors (perps.md §3.6, "Extra data vectors").
func TestExtraDataVectors(t *testing.T) {
	tests := []struct{ op, data string }{
		{`{"type":"createOrders","args":[{"iid":1,"buy":true,"p":"100.50","qty":"10","tif":"gtc","po":false}]}`,
			"817207b7b8b31044a8f27e43c16e24d9fd5e11d3f106feb962f104f3ef28d52a"},
		{`{"type":"updateMargin","args":{"iid":7,"amt":"-1234567890.123456789012345678"}}`,
			"f61d7d83b4367ce136bf66cfee6a5d41303a8b2d8724f5458f9812c46f5e55b3"},
		{`{"type":"updateLeverages","args":[{"iid":1,"lev":5,"cross":false},{"iid":2,"lev":10,"cross":true}]}`,
			"dcdd40c029abb105bb4911882321a203c294e9c4da73a32c5957afdbfb34cfdc"},
	}
	for _, tc := range tests {
		_, packed, err := Compact([]byte(tc.op))
		if err != nil {
			t.Fatal(err)
		}
		if h := keccak.Sum256(packed); hex.EncodeToString(h[:]) != tc.data {
			t.Fatalf("%s: data %x want %s", tc.op, h, tc.data)
		}
	}
}

func TestGoldenCreateProxy(t *testing.T) {
	const (
		salt, ts = 4242, 1751500000007
		sig      = "0x64e2d5aef2aeb5e58072ebb63f8419ba0f89d1de34635a007ef648db9e6ac6f301997797def6e6a5b118f09fb1da0e3f58a55c34a871968e13227ae40eabf9341c"
	)
	op := `{"type":"createProxy","args":{"owner":"0xfcad0b19bb29d4674531d6f115237e16afce377c","proxy":"0x9965507D1a55bcC2695C58ba16FB37d819B0A4dc","expiry":1752000000000}}`
	r, err := ParseRequest(envelope(t, op, sig, salt, ts, `,"label":"bot-1","code":"INV"`))
	if err != nil {
		t.Fatal(err)
	}
	cp, err := New(Config{}).VerifyCreateProxy(r, atTs(ts))
	if err != nil {
		t.Fatal(err)
	}
	if cp.Owner.Hex() != goldenSigner || cp.Proxy.Checksum() != "0x9965507D1a55bcC2695C58ba16FB37d819B0A4dc" ||
		cp.ExpiryMs != 1752000000000 || cp.Label != "bot-1" || cp.Code != "INV" {
		t.Fatalf("got %+v", cp)
	}
	// The signer must be args.owner.
	other := `{"type":"createProxy","args":{"owner":"0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266","proxy":"0x9965507D1a55bcC2695C58ba16FB37d819B0A4dc","expiry":1752000000000}}`
	r2, _ := ParseRequest(envelope(t, other, sig, salt, ts, ""))
	if _, err := New(Config{}).VerifyCreateProxy(r2, atTs(ts)); !errors.Is(err, ErrInvalidSignature) {
		t.Fatalf("foreign owner: %v", err)
	}
	// A different expiry is a different message.
	moved := `{"type":"createProxy","args":{"owner":"0xfcad0b19bb29d4674531d6f115237e16afce377c","proxy":"0x9965507D1a55bcC2695C58ba16FB37d819B0A4dc","expiry":1752000000001}}`
	r3, _ := ParseRequest(envelope(t, moved, sig, salt, ts, ""))
	if _, err := New(Config{}).VerifyCreateProxy(r3, atTs(ts)); !errors.Is(err, ErrInvalidSignature) {
		t.Fatalf("changed expiry: %v", err)
	}
	// Expiry in the past.
	if _, err := New(Config{}).VerifyCreateProxy(r, time.UnixMilli(1752000000000)); err == nil {
		t.Fatal("expired proxy accepted")
	}
}

// Vector 12 is signed by the golden key over account 0xf39F…, so the server
// rule "signer must be the account" rejects it; a self-signed withdraw passes.
func TestGoldenWithdraw(t *testing.T) {
	const sig = "0x75b6d0d9572921ed71d2a13fd3585dbd34326d9b503edaca08e3bf72dcd7bb437fe67378df001fc9e4352063a87d9e0a690599bf0ed6849ec00660e6f28cfa1c1b"
	op := `{"type":"withdraw","args":{"account":"0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266","token":"0xC011a7E12a19f7B1f670d46F03B03f3342E82DFB","amount":"10000000","to":"0x9965507D1a55bcC2695C58ba16FB37d819B0A4dc"}}`
	r, err := ParseRequest(envelope(t, op, sig, 77, 1751500000, ""))
	if err != nil {
		t.Fatal(err)
	}
	now := time.Unix(1751500000, 0).Add(time.Second)
	if _, err := New(Config{}).VerifyWithdraw(r, now); !errors.Is(err, ErrInvalidSignature) {
		t.Fatalf("vector 12 with foreign account: %v", err)
	}

	k := newKey(t, "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef")
	token, _ := hex.DecodeString("C011a7E12a19f7B1f670d46F03B03f3342E82DFB")
	to, _ := hex.DecodeString("9965507D1a55bcC2695C58ba16FB37d819B0A4dc")
	own := `{"type":"withdraw","args":{"account":"` + k.hex + `","token":"0xC011a7E12a19f7B1f670d46F03B03f3342E82DFB","amount":"10000000","to":"0x9965507D1a55bcC2695C58ba16FB37d819B0A4dc"}}`
	good := k.sign(tWithdrawDigest(k.addr, token, 10000000, to, 77, 1751500000))
	r2, _ := ParseRequest(envelope(t, own, good, 77, 1751500000, ""))
	w, err := New(Config{}).VerifyWithdraw(r2, now)
	if err != nil {
		t.Fatal(err)
	}
	if w.Account.Hex() != k.hex || w.Amount != "10000000" {
		t.Fatalf("got %+v", w)
	}
	// ts is seconds: six minutes later it is expired.
	if _, err := New(Config{}).VerifyWithdraw(r2, now.Add(6*time.Minute)); !errors.Is(err, ErrSignatureExpired) {
		t.Fatalf("stale withdraw: %v", err)
	}
	// Non-canonical amount is refused before any signature work.
	bad := `{"type":"withdraw","args":{"account":"` + k.hex + `","token":"0xC011a7E12a19f7B1f670d46F03B03f3342E82DFB","amount":"010000000","to":"0x9965507D1a55bcC2695C58ba16FB37d819B0A4dc"}}`
	r3, _ := ParseRequest(envelope(t, bad, good, 77, 1751500000, ""))
	if _, err := New(Config{}).VerifyWithdraw(r3, now); !errors.Is(err, ErrInvalidRequest) {
		t.Fatalf("leading zero amount: %v", err)
	}
}

// The domain name is configurable: a non-production name rejects production
// signatures (the recovered signer changes).
func TestDomainNameConfigurable(t *testing.T) {
	if n, c, w := New(Config{}).Domain(); n != "Polymarket" || c != 137 || w.Checksum() != DefaultWithdrawContract {
		t.Fatalf("defaults %s %d %s", n, c, w)
	}
	if n, c, _ := New(Config{DomainName: "pmx", ChainID: 80002}).Domain(); n != "pmx" || c != 80002 {
		t.Fatalf("configured %s %d", n, c)
	}
	g := goldenOps[0]
	r, _ := ParseRequest(envelope(t, g.op, g.sig, g.salt, g.ts, ""))
	got, err := New(Config{DomainName: "pmx"}).VerifyOp(r, g.want, atTs(g.ts), Self)
	if err == nil && got.Signer.Hex() == goldenSigner {
		t.Fatal("domain name not part of the digest")
	}
	want, _ := secp.ParseAddress(goldenSigner)
	only := func(s secp.Address, _ int64) (secp.Address, bool) { return s, s == want }
	if _, err := New(Config{DomainName: "pmx"}).VerifyOp(r, g.want, atTs(g.ts), only); !errors.Is(err, ErrAccountNotFound) {
		t.Fatalf("err %v", err)
	}
}
