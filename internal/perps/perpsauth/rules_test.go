package perpsauth

import (
	"encoding/hex"
	"errors"
	"fmt"
	"math/big"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"pmx/internal/crypto/secp"
)

const proxyKeyHex = "59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d" // Anvil #1

var now0 = time.UnixMilli(1_800_000_000_000)

// signedCancel signs ["cancelOrders",[oid]] with the independent signer.
func signedCancel(t testing.TB, k tKey, oid int, salt, ts uint64, extra string) *Request {
	d := tOpDigest([]any{"cancelOrders", []any{oid}}, salt, ts)
	r, err := ParseRequest(envelope(t, fmt.Sprintf(`{"type":"cancelOrders","args":[%d]}`, oid), k.sign(d), salt, ts, extra))
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func TestSignatureAge(t *testing.T) {
	k := newKey(t, proxyKeyHex)
	nowMs := uint64(now0.UnixMilli())
	tests := []struct {
		name string
		ts   uint64
		want error
	}{
		{"now", nowMs, nil},
		{"exactly 5 min old", nowMs - 300_000, nil},
		{"5 min + 1 ms old", nowMs - 300_001, ErrSignatureExpired},
		{"an hour old", nowMs - 3_600_000, ErrSignatureExpired},
		{"zero", 0, ErrSignatureExpired},
		{"1 min ahead", nowMs + 60_000, nil},
		{"1 min + 1 ms ahead", nowMs + 60_001, ErrInvalidSignature},
		{"seconds instead of ms", nowMs / 1000, ErrSignatureExpired},
		{"max uint64", 1<<64 - 1, ErrInvalidSignature},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			v := New(Config{})
			_, err := v.VerifyOp(signedCancel(t, k, 5, 1, tc.ts, ""), "cancelOrders", now0, Self)
			if !errors.Is(err, tc.want) && !(tc.want == nil && err == nil) {
				t.Fatalf("err %v want %v", err, tc.want)
			}
		})
	}
}

func TestCommandDeadline(t *testing.T) {
	k := newKey(t, proxyKeyHex)
	nowMs := now0.UnixMilli()
	tests := []struct {
		name  string
		extra string
		want  int64
		err   error
	}{
		{"absent: now + 5 s", "", nowMs + 5000, nil},
		{"1 s ahead kept", fmt.Sprintf(`,"exp":%d`, nowMs+1000), nowMs + 1000, nil},
		{"60 s ahead clamped", fmt.Sprintf(`,"exp":%d`, nowMs+60_000), nowMs + 5000, nil},
		{"1 ms ahead", fmt.Sprintf(`,"exp":%d`, nowMs+1), nowMs + 1, nil},
		{"equal to now", fmt.Sprintf(`,"exp":%d`, nowMs), 0, ErrCommandExpired},
		{"in the past", fmt.Sprintf(`,"exp":%d`, nowMs-1), 0, ErrCommandExpired},
		{"zero", `,"exp":0`, 0, ErrCommandExpired},
		{"negative", `,"exp":-5`, 0, ErrCommandExpired},
	}
	for i, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := New(Config{}).VerifyOp(signedCancel(t, k, 9, uint64(i), uint64(nowMs), tc.extra), "cancelOrders", now0, Self)
			if !errors.Is(err, tc.err) || (tc.err == nil && err != nil) {
				t.Fatalf("err %v want %v", err, tc.err)
			}
			if err == nil && got.DeadlineMs != tc.want {
				t.Fatalf("deadline %d want %d", got.DeadlineMs, tc.want)
			}
		})
	}
}

func TestReplay(t *testing.T) {
	k := newKey(t, proxyKeyHex)
	ts := uint64(now0.UnixMilli())
	v := New(Config{})
	r := signedCancel(t, k, 1, 77, ts, "")
	first, err := v.VerifyOp(r, "cancelOrders", now0, Self)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := v.VerifyOp(r, "cancelOrders", now0.Add(time.Second), Self); !errors.Is(err, ErrReplayed) {
		t.Fatalf("identical request: %v", err)
	}
	// The same signature spelled with v = 0/1 is the same request.
	alt := *r
	alt.Sig = r.Sig[:130] + fmt.Sprintf("%02x", mustHexByte(t, r.Sig[130:])-27)
	if _, err := v.VerifyOp(&alt, "cancelOrders", now0, Self); !errors.Is(err, ErrReplayed) {
		t.Fatalf("v=0/1 respelling: %v", err)
	}
	// Without 0x and in upper case: still the same request.
	up := *r
	up.Sig = strings.ToUpper(r.Sig[2:])
	if _, err := v.VerifyOp(&up, "cancelOrders", now0, Self); !errors.Is(err, ErrReplayed) {
		t.Fatalf("respelled hex: %v", err)
	}
	// exp is not signed: a different exp does not make a new request.
	withExp := *r
	e := now0.UnixMilli() + 2000
	withExp.Exp = &e
	if _, err := v.VerifyOp(&withExp, "cancelOrders", now0, Self); !errors.Is(err, ErrReplayed) {
		t.Fatalf("same request, new exp: %v", err)
	}
	// A new salt is a new request.
	if _, err := v.VerifyOp(signedCancel(t, k, 1, 78, ts, ""), "cancelOrders", now0, Self); err != nil {
		t.Fatalf("new salt: %v", err)
	}
	// Remove (request never executed): the identical request may run.
	v.Replay().Remove(first.Replay)
	if _, err := v.VerifyOp(r, "cancelOrders", now0, Self); err != nil {
		t.Fatalf("after Remove: %v", err)
	}
	// Once the signature has aged out it is expired, not replayed.
	if _, err := v.VerifyOp(r, "cancelOrders", now0.Add(5*time.Minute+time.Millisecond), Self); !errors.Is(err, ErrSignatureExpired) {
		t.Fatalf("aged: %v", err)
	}
}

func mustHexByte(t *testing.T, s string) byte {
	b, err := hex.DecodeString(s)
	if err != nil || len(b) != 1 {
		t.Fatal(s)
	}
	return b[0]
}

// Two goroutines racing the same request: exactly one wins.
func TestReplayConcurrent(t *testing.T) {
	k := newKey(t, proxyKeyHex)
	v := New(Config{})
	r := signedCancel(t, k, 3, 5, uint64(now0.UnixMilli()), "")
	var ok, replayed atomic.Int32
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			_, err := v.VerifyOp(r, "cancelOrders", now0, Self)
			switch {
			case err == nil:
				ok.Add(1)
			case errors.Is(err, ErrReplayed):
				replayed.Add(1)
			default:
				t.Error(err)
			}
		})
	}
	wg.Wait()
	if ok.Load() != 1 || replayed.Load() != 7 {
		t.Fatalf("ok %d replayed %d", ok.Load(), replayed.Load())
	}
}

var secpN, _ = new(big.Int).SetString("fffffffffffffffffffffffffffffffebaae6dc6af48a03bbfd25e8cd0364141", 16)

// The malleable twin (r, n-s, v^1) of a valid signature is refused.
func TestHighSRejected(t *testing.T) {
	k := newKey(t, proxyKeyHex)
	r := signedCancel(t, k, 1, 1, uint64(now0.UnixMilli()), "")
	raw, _ := hex.DecodeString(r.Sig[2:])
	s := new(big.Int).SetBytes(raw[32:64])
	twinS := new(big.Int).Sub(secpN, s).FillBytes(make([]byte, 32))
	twin := append(append(append([]byte{}, raw[:32]...), twinS...), raw[64]^1) // 27<->28
	tr := *r
	tr.Sig = "0x" + hex.EncodeToString(twin)
	if _, err := New(Config{}).VerifyOp(&tr, "cancelOrders", now0, Self); !errors.Is(err, ErrInvalidSignature) {
		t.Fatalf("high-S twin: %v", err)
	}
	if _, err := New(Config{}).VerifyOp(r, "cancelOrders", now0, Self); err != nil {
		t.Fatalf("low-S original: %v", err)
	}
}

func TestResolverAndSignatureErrors(t *testing.T) {
	k := newKey(t, proxyKeyHex)
	proxy, _ := secp.ParseAddress(k.hex)
	account, _ := secp.ParseAddress("0x00000000000000000000000000000000000000aa")
	linked := true
	resolve := func(s secp.Address, _ int64) (secp.Address, bool) {
		return account, linked && s == proxy
	}
	v := New(Config{})
	ts := uint64(now0.UnixMilli())
	r := signedCancel(t, k, 1, 1, ts, "")

	linked = false
	if _, err := v.VerifyOp(r, "cancelOrders", now0, resolve); !errors.Is(err, ErrAccountNotFound) {
		t.Fatalf("unlinked: %v", err)
	}
	// A rejected request leaves no replay entry: once linked it passes.
	linked = true
	got, err := v.VerifyOp(r, "cancelOrders", now0, resolve)
	if err != nil {
		t.Fatal(err)
	}
	if got.Account != account || got.Signer != proxy || got.Op.Type != "cancelOrders" {
		t.Fatalf("got %+v", got)
	}

	// Tampered args recover another signer.
	tampered := *r
	tampered.Op = []byte(`{"type":"cancelOrders","args":[2]}`)
	if _, err := v.VerifyOp(&tampered, "cancelOrders", now0, resolve); !errors.Is(err, ErrAccountNotFound) {
		t.Fatalf("tampered: %v", err)
	}
	for _, sig := range []string{"", "0x", "0x1234", r.Sig[:131] + "d", "0x" + strings.Repeat("00", 65)} {
		bad := *r
		bad.Sig = sig
		if _, err := v.VerifyOp(&bad, "cancelOrders", now0, resolve); !errors.Is(err, ErrInvalidSignature) {
			t.Fatalf("sig %q: %v", sig, err)
		}
	}
	// Wrong route for the op type.
	if _, err := New(Config{}).VerifyOp(r, "createOrders", now0, resolve); !errors.Is(err, ErrInvalidRequest) {
		t.Fatalf("wrong route: %v", err)
	}
}

func TestParseRequest(t *testing.T) {
	for _, body := range []string{``, `[]`, `{}`, `{"op":null}`, `{"op":{},"salt":-1}`, `{"op":{},"ts":1.5}`, `{"op":{},"sig":5}`} {
		if _, err := ParseRequest([]byte(body)); !errors.Is(err, ErrInvalidRequest) {
			t.Fatalf("%s: %v", body, err)
		}
	}
	r, err := ParseRequest([]byte(`{"op":{"type":"x"},"sig":"0x","salt":18446744073709551615,"ts":1,"exp":2,"id":7,"req":"post"}`))
	if err != nil || r.Salt != 1<<64-1 || *r.Exp != 2 {
		t.Fatalf("%+v %v", r, err)
	}
}

func TestProxySecret(t *testing.T) {
	s, h := NewProxySecret()
	if len(s) != 40 {
		t.Fatalf("secret %q", s)
	}
	s2, _ := NewProxySecret()
	if s == s2 {
		t.Fatal("secrets repeat")
	}
	if !SecretMatches(h, s) || SecretMatches(h, s2) || SecretMatches(h, s[:39]) || SecretMatches(h, "") {
		t.Fatal("SecretMatches wrong")
	}
	if HashSecret(s) != h {
		t.Fatal("hash not stable")
	}
}
