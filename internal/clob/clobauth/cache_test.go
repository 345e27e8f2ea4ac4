package clobauth

import (
	"strings"
	"testing"
	"time"

	"pmx/internal/crypto/eip712"
	"pmx/internal/crypto/secp"
)

// TestSecretCache: cached credentials are the derivation's, verify like
// VerifyL2, are never served for another (address, nonce, generation),
// and Forget drops them.
func TestSecretCache(t *testing.T) {
	d, _ := NewDeriver(make([]byte, 32))
	c := NewSecretCache(d, 0)
	owner, _ := secp.ParseAddress(anvil0)
	n0 := eip712.Uint256From64(0)
	creds := d.Derive(owner, n0, 0)
	for range 2 { // miss, then hit
		s := c.Get(creds.APIKey, owner, n0, 0)
		if s.Creds != creds {
			t.Fatalf("cached %+v, derived %+v", s.Creds, creds)
		}
		body := []byte(`{"a":1}`)
		sig, _ := Sign(creds.Secret, "1700000000", "POST", "/order", body)
		h := L2Headers{Address: anvil0, Signature: sig, Timestamp: "1700000000", APIKey: creds.APIKey, Passphrase: creds.Passphrase}
		now := time.Unix(1700000000, 0)
		if err := VerifyL2Secret(h, s, owner, "POST", "/order", body, now, DefaultL2Window); err != nil {
			t.Fatal(err)
		}
		h.Signature, _ = Sign(creds.Secret, "1700000000", "POST", "/order", []byte(`{"a":2}`))
		if err := VerifyL2Secret(h, s, owner, "POST", "/order", body, now, DefaultL2Window); err != ErrL2 {
			t.Fatalf("wrong body verified: %v", err)
		}
	}
	if c.Len() != 1 {
		t.Fatalf("len %d", c.Len())
	}
	// The same API key asked for another generation: that generation's
	// derivation (whose key differs), not the cached entry.
	if s := c.Get(creds.APIKey, owner, n0, 1); s.Creds != d.Derive(owner, n0, 1) {
		t.Fatal("cache served another generation's credentials")
	}
	c.Forget(creds.APIKey)
	if c.Len() != 0 {
		t.Fatalf("len after Forget %d", c.Len())
	}
}

// TestSecretCacheBounded: any number of distinct keys keeps at most twice
// the bound, and a key in steady use stays cached across the turnover.
func TestSecretCacheBounded(t *testing.T) {
	d, _ := NewDeriver(make([]byte, 32))
	const max = 16
	c := NewSecretCache(d, max)
	owner, _ := secp.ParseAddress(anvil0)
	hot := d.Derive(owner, eip712.Uint256From64(1<<40), 0)
	hotSecret := c.Get(hot.APIKey, owner, eip712.Uint256From64(1<<40), 0)
	for i := range 5000 {
		n := eip712.Uint256From64(uint64(i))
		k := d.Derive(owner, n, 0)
		if s := c.Get(k.APIKey, owner, n, 0); s.Creds != k {
			t.Fatalf("key %d: wrong credentials", i)
		}
		if c.Len() > 2*max {
			t.Fatalf("after %d keys: %d cached, bound %d", i+1, c.Len(), 2*max)
		}
		if i%(max/2) == 0 && c.Get(hot.APIKey, owner, eip712.Uint256From64(1<<40), 0) != hotSecret {
			t.Fatalf("key in use evicted after %d keys", i+1)
		}
	}
}

func BenchmarkVerifyL2Cached(b *testing.B) {
	d, _ := NewDeriver(make([]byte, 32))
	c := NewSecretCache(d, 0)
	owner, _ := secp.ParseAddress(anvil0)
	creds := d.Derive(owner, eip712.Uint256From64(0), 0)
	body := []byte(`{"order":{"salt":1}}`)
	sig, _ := Sign(creds.Secret, "1700000000", "POST", "/order", body)
	h := L2Headers{Address: anvil0, Signature: sig, Timestamp: "1700000000", APIKey: creds.APIKey, Passphrase: creds.Passphrase}
	now := time.Unix(1700000000, 0)
	b.ReportAllocs()
	for b.Loop() {
		s := c.Get(creds.APIKey, owner, eip712.Uint256From64(0), 0)
		if err := VerifyL2Secret(h, s, owner, "POST", "/order", body, now, DefaultL2Window); err != nil {
			b.Fatal(err)
		}
	}
}

// TestVerifyL2SecretLongInputs: the pooled check's scratch space has bounds;
// a path longer than it, a lower-case method and a signature spelled with
// padding or in URL-safe or standard base64 verify as VerifyL2 does, twice
// in a row (the pooled state is reused), and a wrong signature never does.
func TestVerifyL2SecretLongInputs(t *testing.T) {
	d, _ := NewDeriver(make([]byte, 32))
	c := NewSecretCache(d, 0)
	owner, _ := secp.ParseAddress(anvil0)
	creds := d.Derive(owner, eip712.Uint256From64(0), 0)
	now := time.Unix(1700000000, 0)
	body := []byte(`{"order":{"salt":1}}`)
	for _, path := range []string{"/order", "/" + strings.Repeat("p", 300)} {
		for _, method := range []string{"POST", "delete"} {
			sig, _ := Sign(creds.Secret, "1700000000", method, path, body)
			std := strings.NewReplacer("-", "+", "_", "/").Replace(sig)
			for _, s := range []string{sig, strings.TrimRight(sig, "="), std, sig[:len(sig)-2] + "AA=", "", sig + strings.Repeat("A", 100)} {
				h := L2Headers{Address: anvil0, Signature: s, Timestamp: "1700000000", APIKey: creds.APIKey, Passphrase: creds.Passphrase}
				want := VerifyL2(h, creds, owner, method, path, body, now, DefaultL2Window)
				for range 2 {
					got := VerifyL2Secret(h, c.Get(creds.APIKey, owner, eip712.Uint256From64(0), 0), owner, method, path, body, now, DefaultL2Window)
					if got != want {
						t.Fatalf("%s %s sig %q: cached %v, uncached %v", method, path[:min(len(path), 10)], s, got, want)
					}
				}
				if ok := s == sig || s == std || s == strings.TrimRight(sig, "="); ok != (want == nil) {
					t.Fatalf("%s %s sig %q: %v", method, path[:min(len(path), 10)], s, want)
				}
			}
		}
	}
}
