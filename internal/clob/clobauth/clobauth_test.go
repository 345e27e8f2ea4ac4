package clobauth

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"math/big"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"testing"
	"time"

	"pmx/internal/crypto/eip712"
	"pmx/internal/crypto/secp"
)

const anvil0 = "0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266"

func TestL1Fixture(t *testing.T) {
	raw, err := os.ReadFile(filepath.Join("testdata", "clob_auth.json"))
	if err != nil {
		t.Fatal(err)
	}
	var fx struct {
		Address   string `json:"address"`
		ChainID   uint64 `json:"chain_id"`
		Timestamp int64  `json:"timestamp"`
		Nonce     uint64 `json:"nonce"`
		Signature string `json:"signature"`
		TypedData struct {
			Domain struct {
				Name string `json:"name"`
			} `json:"domain"`
			Message struct {
				Message string `json:"message"`
			} `json:"message"`
		} `json:"typed_data"`
	}
	if err := json.Unmarshal(raw, &fx); err != nil {
		t.Fatal(err)
	}
	if fx.TypedData.Message.Message != AttestMessage || fx.TypedData.Domain.Name != "ClobAuthDomain" {
		t.Fatalf("fixture disagrees with constants: %+v", fx.TypedData)
	}
	l1 := NewL1(L1Config{ChainID: fx.ChainID})
	h := L1Headers{Address: fx.Address, Signature: fx.Signature, Timestamp: strconv.FormatInt(fx.Timestamp, 10), Nonce: strconv.FormatUint(fx.Nonce, 10)}
	addr, nonce, err := l1.Verify(h, time.Unix(fx.Timestamp+10, 0))
	if err != nil {
		t.Fatal(err)
	}
	if addr.Checksum() != fx.Address || nonce != eip712.Uint256From64(fx.Nonce) {
		t.Fatalf("got %s %x", addr, nonce)
	}
}

func TestL1(t *testing.T) {
	const (
		sig137 = "0x659ed4b28ae28e0f038fdf0023c00863c9559caacb9ebc83f44eea87059a099a36f1e1dee110e7faa1c4f65d17489b2da1333ebef78bbe2116d81207b975052d1c"
		sig802 = "0xa1bf70b988ee44042e5b7f78a653955befea75ebe8ccccdf24f2811d5d3936a94a56ec4ee07afe0a6994c112b75ddbf2cdf225dd795fe0ecbb37d3a19f96242e1c"
	)
	now := time.Unix(1700000000, 0)
	ok := L1Headers{Address: anvil0, Signature: sig137, Timestamp: "1700000000", Nonce: "0"}
	tests := []struct {
		name  string
		cfg   L1Config
		h     L1Headers
		now   time.Time
		valid bool
	}{
		{"vector chain 137", L1Config{}, ok, now, true},
		{"absent nonce is 0", L1Config{}, L1Headers{Address: anvil0, Signature: sig137, Timestamp: "1700000000"}, now, true},
		{"lower-case address", L1Config{}, L1Headers{Address: "0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266", Signature: sig137, Timestamp: "1700000000"}, now, true},
		{"vector chain 80002 nonce 7", L1Config{ChainID: 80002}, L1Headers{Address: anvil0, Signature: sig802, Timestamp: "1700000000", Nonce: "7"}, now, true},
		{"wrong chain", L1Config{ChainID: 80002}, ok, now, false},
		{"wrong domain name", L1Config{DomainName: "Other"}, ok, now, false},
		{"other nonce", L1Config{}, L1Headers{Address: anvil0, Signature: sig137, Timestamp: "1700000000", Nonce: "1"}, now, false},
		{"other address", L1Config{}, L1Headers{Address: "0x9965507D1a55bcC2695C58ba16FB37d819B0A4dc", Signature: sig137, Timestamp: "1700000000"}, now, false},
		{"timestamp respelled", L1Config{}, L1Headers{Address: anvil0, Signature: sig137, Timestamp: "+1700000000"}, now, false},
		{"5 min late ok", L1Config{}, ok, now.Add(5 * time.Minute), true},
		{"too late", L1Config{}, ok, now.Add(5*time.Minute + time.Second), false},
		{"too early", L1Config{}, ok, now.Add(-5*time.Minute - time.Second), false},
		{"wider window", L1Config{Window: time.Hour}, ok, now.Add(30 * time.Minute), true},
		{"bad signature hex", L1Config{}, L1Headers{Address: anvil0, Signature: "0x12", Timestamp: "1700000000"}, now, false},
		{"bad nonce", L1Config{}, L1Headers{Address: anvil0, Signature: sig137, Timestamp: "1700000000", Nonce: "-1"}, now, false},
		{"no headers", L1Config{}, L1Headers{}, now, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, _, err := NewL1(tc.cfg).Verify(tc.h, tc.now)
			if tc.valid != (err == nil) {
				t.Fatalf("err %v", err)
			}
			if err != nil && !errors.Is(err, ErrL1) {
				t.Fatalf("untyped error %v", err)
			}
		})
	}
}

func TestL1HighS(t *testing.T) {
	const sig137 = "659ed4b28ae28e0f038fdf0023c00863c9559caacb9ebc83f44eea87059a099a36f1e1dee110e7faa1c4f65d17489b2da1333ebef78bbe2116d81207b975052d1c"
	raw, _ := hex.DecodeString(sig137)
	n, _ := new(big.Int).SetString("fffffffffffffffffffffffffffffffebaae6dc6af48a03bbfd25e8cd0364141", 16)
	s := new(big.Int).Sub(n, new(big.Int).SetBytes(raw[32:64])).FillBytes(make([]byte, 32))
	twin := append(append(append([]byte{}, raw[:32]...), s...), raw[64]^1)
	h := L1Headers{Address: anvil0, Signature: "0x" + hex.EncodeToString(twin), Timestamp: "1700000000"}
	if _, _, err := NewL1(L1Config{}).Verify(h, time.Unix(1700000000, 0)); !errors.Is(err, ErrL1) {
		t.Fatalf("high-S twin accepted: %v", err)
	}
}

func TestHeadersFrom(t *testing.T) {
	h := http.Header{}
	h.Set("POLY_ADDRESS", "a")
	h.Set("poly_signature", "b")
	h.Set("Poly_Timestamp", "c")
	h.Set("POLY_NONCE", "d")
	h.Set("POLY_API_KEY", "e")
	h.Set("POLY_PASSPHRASE", "f")
	if got := L1HeadersFrom(h); got != (L1Headers{"a", "b", "c", "d"}) {
		t.Fatalf("%+v", got)
	}
	if got := L2HeadersFrom(h); got != (L2Headers{"a", "b", "c", "e", "f"}) {
		t.Fatalf("%+v", got)
	}
}

// Vectors of clob-and-catalog.md §2.2.
const specSecret = "c2VjcmV0LXNlY3JldC1zZWNyZXQtc2VjcmV0LXNlY3I="

func TestL2SpecVectors(t *testing.T) {
	tests := []struct {
		method, path, body, want string
	}{
		{"GET", "/data/orders", "", "MOXFJAViQio1l3sByd9vgPMHVvGKCvbwyfRah3NRV_s="},
		{"DELETE", "/order", `{"orderID":"0xabc"}`, "RoqUxte9uFvDqlmJvWtoUBJf9ImtUes4U0ZEW1QTB8A="},
	}
	for _, tc := range tests {
		got, err := Sign(specSecret, "1700000000", tc.method, tc.path, []byte(tc.body))
		if err != nil || got != tc.want {
			t.Fatalf("%s %s: got %s %v", tc.method, tc.path, got, err)
		}
	}
}

// independentSig computes an L2 signature with crypto/hmac directly.
func independentSig(t *testing.T, secret, msg string) string {
	key, err := base64.URLEncoding.DecodeString(secret)
	if err != nil {
		t.Fatal(err)
	}
	m := hmac.New(sha256.New, key)
	m.Write([]byte(msg))
	return base64.URLEncoding.EncodeToString(m.Sum(nil))
}

func TestVerifyL2(t *testing.T) {
	d, err := NewDeriver(make([]byte, 32))
	if err != nil {
		t.Fatal(err)
	}
	owner, _ := secp.ParseAddress(anvil0)
	creds := d.Derive(owner, eip712.Uint256From64(0), 0)
	now := time.Unix(1700000000, 0)
	body := `{"order":{"salt":1}}`
	sig := independentSig(t, creds.Secret, "1700000000POST/order"+body)
	good := L2Headers{Address: anvil0, Signature: sig, Timestamp: "1700000000", APIKey: creds.APIKey, Passphrase: creds.Passphrase}
	type mod func(h *L2Headers, method, path, body *string, now *time.Time)
	tests := []struct {
		name  string
		m     mod
		valid bool
	}{
		{"valid", func(*L2Headers, *string, *string, *string, *time.Time) {}, true},
		{"lower-case method", func(_ *L2Headers, m, _, _ *string, _ *time.Time) { *m = "post" }, true},
		{"lower-case address", func(h *L2Headers, _, _, _ *string, _ *time.Time) {
			h.Address = "0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266"
		}, true},
		{"unpadded signature", func(h *L2Headers, _, _, _ *string, _ *time.Time) { h.Signature = sig[:len(sig)-1] }, true},
		{"repeat within window", func(_ *L2Headers, _, _, _ *string, n *time.Time) { *n = n.Add(4 * time.Minute) }, true},
		{"stale", func(_ *L2Headers, _, _, _ *string, n *time.Time) { *n = n.Add(5*time.Minute + time.Second) }, false},
		{"wrong passphrase", func(h *L2Headers, _, _, _ *string, _ *time.Time) { h.Passphrase = creds.Passphrase[1:] }, false},
		{"wrong key", func(h *L2Headers, _, _, _ *string, _ *time.Time) { h.APIKey = "x" }, false},
		{"other address", func(h *L2Headers, _, _, _ *string, _ *time.Time) {
			h.Address = "0x9965507D1a55bcC2695C58ba16FB37d819B0A4dc"
		}, false},
		{"tampered body", func(_ *L2Headers, _, _, b *string, _ *time.Time) { *b = `{"order":{"salt":2}}` }, false},
		{"other path", func(_ *L2Headers, _, p, _ *string, _ *time.Time) { *p = "/orders" }, false},
		{"query in path", func(_ *L2Headers, _, p, _ *string, _ *time.Time) { *p = "/order?x=1" }, false},
		{"other method", func(_ *L2Headers, m, _, _ *string, _ *time.Time) { *m = "DELETE" }, false},
		{"garbage signature", func(h *L2Headers, _, _, _ *string, _ *time.Time) { h.Signature = "!!" }, false},
		{"empty signature", func(h *L2Headers, _, _, _ *string, _ *time.Time) { h.Signature = "" }, false},
		{"bad timestamp", func(h *L2Headers, _, _, _ *string, _ *time.Time) { h.Timestamp = "soon" }, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			h, method, path, b, n := good, "POST", "/order", body, now
			tc.m(&h, &method, &path, &b, &n)
			err := VerifyL2(h, creds, owner, method, path, []byte(b), n, DefaultL2Window)
			if tc.valid != (err == nil) {
				t.Fatalf("err %v", err)
			}
			if err != nil && !errors.Is(err, ErrL2) {
				t.Fatalf("untyped %v", err)
			}
		})
	}
	// Window disabled: an old timestamp passes.
	if err := VerifyL2(good, creds, owner, "POST", "/order", []byte(body), now.Add(24*time.Hour), 0); err != nil {
		t.Fatalf("window disabled: %v", err)
	}
}

func TestDerive(t *testing.T) {
	a, _ := secp.ParseAddress(anvil0)
	b, _ := secp.ParseAddress("0x9965507D1a55bcC2695C58ba16FB37d819B0A4dc")
	m1, m2 := NewMasterKey(), NewMasterKey()
	d1, _ := NewDeriver(m1)
	d1again, _ := NewDeriver(m1)
	d2, _ := NewDeriver(m2)
	base := d1.Derive(a, eip712.Uint256From64(0), 0)
	if d1again.Derive(a, eip712.Uint256From64(0), 0) != base {
		t.Fatal("not deterministic")
	}
	uuid := regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$`)
	if !uuid.MatchString(base.APIKey) {
		t.Fatalf("key %q", base.APIKey)
	}
	if raw, err := base64.URLEncoding.DecodeString(base.Secret); err != nil || len(raw) != 32 {
		t.Fatalf("secret %q", base.Secret)
	}
	if raw, err := hex.DecodeString(base.Passphrase); err != nil || len(raw) != 32 {
		t.Fatalf("passphrase %q", base.Passphrase)
	}
	others := []Creds{
		d1.Derive(b, eip712.Uint256From64(0), 0),
		d1.Derive(a, eip712.Uint256From64(1), 0),
		d1.Derive(a, eip712.Uint256From64(0), 1),
		d2.Derive(a, eip712.Uint256From64(0), 0),
	}
	for i, o := range others {
		if o.APIKey == base.APIKey || o.Secret == base.Secret || o.Passphrase == base.Passphrase {
			t.Fatalf("variant %d collides", i)
		}
	}
	if _, err := NewDeriver(make([]byte, 31)); !errors.Is(err, ErrMasterKey) {
		t.Fatal("short master accepted")
	}
	// The deriver keeps its own copy of the master key.
	m1[0] ^= 1
	if d1.Derive(a, eip712.Uint256From64(0), 0) != base {
		t.Fatal("deriver aliases the caller's key")
	}
}

func FuzzL1Verify(f *testing.F) {
	f.Add(anvil0, "0x659ed4b28ae28e0f038fdf0023c00863c9559caacb9ebc83f44eea87059a099a36f1e1dee110e7faa1c4f65d17489b2da1333ebef78bbe2116d81207b975052d1c", "1700000000", "0")
	f.Add("", "", "", "")
	l1 := NewL1(L1Config{})
	f.Fuzz(func(t *testing.T, addr, sig, ts, nonce string) {
		got, _, err := l1.Verify(L1Headers{addr, sig, ts, nonce}, time.Unix(1700000000, 0))
		if err == nil {
			want, perr := secp.ParseAddress(addr)
			if perr != nil || got != want {
				t.Fatalf("accepted %q as %s", addr, got)
			}
		} else if !errors.Is(err, ErrL1) {
			t.Fatal(err)
		}
	})
}

func FuzzDecodeB64(f *testing.F) {
	f.Add(specSecret)
	f.Add("MOXFJAViQio1l3sByd9vgPMHVvGKCvbwyfRah3NRV_s")
	f.Add("==")
	f.Fuzz(func(t *testing.T, s string) {
		b, ok := decodeB64(s)
		if !ok {
			return
		}
		// What decodes re-encodes (URL-safe, padded) and decodes to the same bytes.
		again, ok := decodeB64(base64.URLEncoding.EncodeToString(b))
		if !ok || string(again) != string(b) {
			t.Fatalf("%q: round trip failed", s)
		}
	})
}

func BenchmarkL1Verify(b *testing.B) {
	l1 := NewL1(L1Config{})
	h := L1Headers{Address: anvil0, Signature: "0x659ed4b28ae28e0f038fdf0023c00863c9559caacb9ebc83f44eea87059a099a36f1e1dee110e7faa1c4f65d17489b2da1333ebef78bbe2116d81207b975052d1c", Timestamp: "1700000000", Nonce: "0"}
	now := time.Unix(1700000000, 0)
	b.ReportAllocs()
	for b.Loop() {
		if _, _, err := l1.Verify(h, now); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkVerifyL2(b *testing.B) {
	d, _ := NewDeriver(make([]byte, 32))
	owner, _ := secp.ParseAddress(anvil0)
	creds := d.Derive(owner, eip712.Uint256From64(0), 0)
	body := []byte(`{"order":{"salt":1}}`)
	sig, _ := Sign(creds.Secret, "1700000000", "POST", "/order", body)
	h := L2Headers{Address: anvil0, Signature: sig, Timestamp: "1700000000", APIKey: creds.APIKey, Passphrase: creds.Passphrase}
	now := time.Unix(1700000000, 0)
	b.ReportAllocs()
	for b.Loop() {
		if err := VerifyL2(h, creds, owner, "POST", "/order", body, now, DefaultL2Window); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkDerive(b *testing.B) {
	d, _ := NewDeriver(make([]byte, 32))
	owner, _ := secp.ParseAddress(anvil0)
	b.ReportAllocs()
	for b.Loop() {
		_ = d.Derive(owner, eip712.Uint256From64(0), 0)
	}
}
