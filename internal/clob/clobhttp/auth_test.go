package clobhttp_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"pmx/internal/clob/clob"
)

var (
	uuidV4     = regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$`)
	secretB64  = regexp.MustCompile(`^[A-Za-z0-9_-]{43}=$`)
	passphrase = regexp.MustCompile(`^[0-9a-f]{64}$`)
)

func (e *env) listKeys(t testing.TB, addr string, c creds) reply {
	return e.do(t, "GET", "/auth/api-keys", l2(addr, c, now0, "GET", "/auth/api-keys", ""), "")
}

func keysOf(t testing.TB, r reply) []string {
	t.Helper()
	if r.status != http.StatusOK {
		t.Fatalf("list: %d %s", r.status, r.body)
	}
	var out struct {
		APIKeys []string `json:"apiKeys"`
	}
	if err := json.Unmarshal(r.body, &out); err != nil || out.APIKeys == nil {
		t.Fatalf("list body %s: %v", r.body, err)
	}
	return out.APIKeys
}

func TestKeyLifecycle(t *testing.T) {
	e := newEnv(t)
	w := newWallet(t, priv0)

	// Derive before any create: nothing to derive.
	e.do(t, "GET", "/auth/derive-api-key", w.l1(now0, 0), "").wantError(t, 400, msg(clob.ErrDeriveAPIKey))

	c0 := e.do(t, "POST", "/auth/api-key", w.l1(now0, 0), "").creds(t)
	if !uuidV4.MatchString(c0.APIKey) || !secretB64.MatchString(c0.Secret) || !passphrase.MatchString(c0.Passphrase) {
		t.Fatalf("credential shapes: %+v", c0)
	}
	// A repeated create (fresh signature, same pair) is refused.
	e.do(t, "POST", "/auth/api-key", w.l1(now0+1, 0), "").wantError(t, 400, msg(clob.ErrCreateAPIKey))
	// Derive returns exactly what create returned.
	if d := e.do(t, "GET", "/auth/derive-api-key", w.l1(now0+2, 0), "").creds(t); d != c0 {
		t.Fatalf("derive %+v != create %+v", d, c0)
	}
	// Another nonce is another key; the list holds both, oldest first.
	e.clock.set(time.Unix(now0+1, 0))
	c7 := e.do(t, "POST", "/auth/api-key", w.l1(now0, 7), "").creds(t)
	if c7.APIKey == c0.APIKey || c7.Secret == c0.Secret {
		t.Fatal("nonce 7 reuses nonce 0's credentials")
	}
	if got := keysOf(t, e.listKeys(t, w.addr, c0)); fmt.Sprint(got) != fmt.Sprint([]string{c0.APIKey, c7.APIKey}) {
		t.Fatalf("list %v", got)
	}
	// Another wallet's keys are not listed.
	w1 := newWallet(t, priv1)
	c1 := e.do(t, "POST", "/auth/api-key", w1.l1(now0, 0), "").creds(t)
	if got := keysOf(t, e.listKeys(t, w1.addr, c1)); len(got) != 1 || got[0] != c1.APIKey {
		t.Fatalf("wallet 1 list %v", got)
	}

	// Delete key 0 with its own L2 headers: the JSON string "OK".
	r := e.do(t, "DELETE", "/auth/api-key", l2(w.addr, c0, now0, "DELETE", "/auth/api-key", ""), "")
	if r.status != 200 || string(r.body) != `"OK"` {
		t.Fatalf("delete: %d %s", r.status, r.body)
	}
	// The deleted key no longer authenticates, not even to delete itself again.
	e.listKeys(t, w.addr, c0).wantError(t, 401, msg(clob.ErrUnauthorized))
	e.do(t, "DELETE", "/auth/api-key", l2(w.addr, c0, now0, "DELETE", "/auth/api-key", ""), "").wantError(t, 401, msg(clob.ErrUnauthorized))
	if got := keysOf(t, e.listKeys(t, w.addr, c7)); len(got) != 1 || got[0] != c7.APIKey {
		t.Fatalf("list after delete %v", got)
	}
	// Deleted pair: derive refuses; create issues fresh credentials, which derive then returns.
	e.do(t, "GET", "/auth/derive-api-key", w.l1(now0, 0), "").wantError(t, 400, msg(clob.ErrDeriveAPIKey))
	n0 := e.do(t, "POST", "/auth/api-key", w.l1(now0, 0), "").creds(t)
	if n0.APIKey == c0.APIKey || n0.Secret == c0.Secret || n0.Passphrase == c0.Passphrase {
		t.Fatal("re-create after delete resurrected the revoked credentials")
	}
	if d := e.do(t, "GET", "/auth/derive-api-key", w.l1(now0, 0), "").creds(t); d != n0 {
		t.Fatalf("derive after re-create %+v != %+v", d, n0)
	}
	e.listKeys(t, w.addr, c0).wantError(t, 401, msg(clob.ErrUnauthorized))
	keysOf(t, e.listKeys(t, w.addr, n0))
}

func TestL1Rejected(t *testing.T) {
	e := newEnv(t)
	w, other := newWallet(t, priv0), newWallet(t, priv1)
	good := w.l1(now0, 0)
	mod := func(f func(h http.Header)) http.Header {
		h := good.Clone()
		f(h)
		return h
	}
	tests := []struct {
		name string
		h    http.Header
	}{
		{"no headers", http.Header{}},
		{"signed by another wallet", mod(func(h http.Header) { h.Set("POLY_SIGNATURE", other.l1(now0, 0).Get("POLY_SIGNATURE")) })},
		{"address of another wallet", mod(func(h http.Header) { h.Set("POLY_ADDRESS", other.addr) })},
		{"nonce not the signed one", mod(func(h http.Header) { h.Set("POLY_NONCE", "1") })},
		{"timestamp not the signed one", mod(func(h http.Header) { h.Set("POLY_TIMESTAMP", fmt.Sprint(now0+1)) })},
		{"timestamp respelled", mod(func(h http.Header) { h.Set("POLY_TIMESTAMP", "0"+fmt.Sprint(now0)) })},
		{"signature flipped bit", mod(func(h http.Header) {
			s := []byte(h.Get("POLY_SIGNATURE"))
			s[10] ^= 1
			h.Set("POLY_SIGNATURE", string(s))
		})},
		{"signature truncated", mod(func(h http.Header) { h.Set("POLY_SIGNATURE", h.Get("POLY_SIGNATURE")[:100]) })},
		{"stale timestamp", w.l1(now0-5*60-1, 0)},
		{"future timestamp", w.l1(now0+5*60+1, 0)},
		{"non-decimal nonce", mod(func(h http.Header) { h.Set("POLY_NONCE", "x") })},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			e.do(t, "POST", "/auth/api-key", tc.h, "").wantError(t, 401, msg(clob.ErrInvalidL1))
			e.do(t, "GET", "/auth/derive-api-key", tc.h, "").wantError(t, 401, msg(clob.ErrInvalidL1))
		})
	}
	// The window edges are inclusive, and none of the rejections created a key.
	e.do(t, "GET", "/auth/derive-api-key", w.l1(now0, 0), "").wantError(t, 400, msg(clob.ErrDeriveAPIKey))
	e.do(t, "POST", "/auth/api-key", w.l1(now0-5*60, 0), "").creds(t)
	e.do(t, "GET", "/auth/derive-api-key", w.l1(now0+5*60, 0), "").creds(t)
}

func TestL2Rejected(t *testing.T) {
	e := newEnv(t)
	w, other := newWallet(t, priv0), newWallet(t, priv1)
	c := e.do(t, "POST", "/auth/api-key", w.l1(now0, 0), "").creds(t)
	co := e.do(t, "POST", "/auth/api-key", other.l1(now0, 0), "").creds(t)
	const body = `{"orderID":"0xabc"}`
	good := l2(w.addr, c, now0, "DELETE", "/auth/api-key", body)
	mod := func(f func(h http.Header)) http.Header {
		h := good.Clone()
		f(h)
		return h
	}
	tests := []struct {
		name string
		h    http.Header
		body string
	}{
		{"no headers", http.Header{}, body},
		{"tampered body", good, `{"orderID":"0xabd"}`},
		{"body dropped", good, ""},
		{"tampered hmac", mod(func(h http.Header) {
			s := []byte(h.Get("POLY_SIGNATURE"))
			s[0] ^= 1
			h.Set("POLY_SIGNATURE", string(s))
		}), body},
		{"hmac over another path", l2(w.addr, c, now0, "DELETE", "/auth/api-keys", body), body},
		{"hmac over another method", l2(w.addr, c, now0, "GET", "/auth/api-key", body), body},
		{"wrong passphrase", mod(func(h http.Header) { h.Set("POLY_PASSPHRASE", co.Passphrase) }), body},
		{"another wallet's address", mod(func(h http.Header) { h.Set("POLY_ADDRESS", other.addr) }), body},
		{"another wallet's key", mod(func(h http.Header) { h.Set("POLY_API_KEY", co.APIKey) }), body},
		{"unknown key", mod(func(h http.Header) { h.Set("POLY_API_KEY", "00000000-0000-4000-8000-000000000000") }), body},
		{"timestamp not the signed one", mod(func(h http.Header) { h.Set("POLY_TIMESTAMP", fmt.Sprint(now0+1)) }), body},
		{"stale timestamp", l2(w.addr, c, now0-5*60-1, "DELETE", "/auth/api-key", body), body},
		{"future timestamp", l2(w.addr, c, now0+5*60+1, "DELETE", "/auth/api-key", body), body},
		{"L1 headers instead", w.l1(now0, 0), ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			e.do(t, "DELETE", "/auth/api-key", tc.h, tc.body).wantError(t, 401, msg(clob.ErrUnauthorized))
		})
	}
	// Nothing was deleted; the genuine request (with its query string, which
	// is not signed) succeeds, and the same header set may be reused (the
	// official client reuses one set across pages).
	lh := l2(w.addr, c, now0, "GET", "/auth/api-keys", "")
	for range 2 {
		if got := keysOf(t, e.do(t, "GET", "/auth/api-keys?next_cursor=MA%3D%3D", lh, "")); len(got) != 1 {
			t.Fatalf("keys %v", got)
		}
	}
	r := e.do(t, "DELETE", "/auth/api-key", good, body)
	if r.status != 200 || string(r.body) != `"OK"` {
		t.Fatalf("genuine delete: %d %s", r.status, r.body)
	}
}

// TestConcurrentCreate: racing creates for one pair issue exactly one key.
func TestConcurrentCreate(t *testing.T) {
	e := newEnv(t)
	w := newWallet(t, priv0)
	const n = 8
	var (
		wg       sync.WaitGroup
		mu       sync.Mutex
		statuses = map[int]int{}
	)
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r := e.do(t, "POST", "/auth/api-key", w.l1(now0+int64(i), 3), "")
			mu.Lock()
			statuses[r.status]++
			mu.Unlock()
			if r.status == 400 {
				r.wantError(t, 400, msg(clob.ErrCreateAPIKey))
			}
		}()
	}
	wg.Wait()
	if statuses[200] != 1 || statuses[400] != n-1 {
		t.Fatalf("statuses %v", statuses)
	}
}

func TestPublicRoutes(t *testing.T) {
	e := newEnv(t)
	if r := e.do(t, "GET", "/", nil, ""); r.status != 200 || string(r.body) != `"OK"` {
		t.Fatalf("GET /: %d %s", r.status, r.body)
	}
	e.clock.set(time.Unix(now0+42, 0))
	if r := e.do(t, "GET", "/time", nil, ""); r.status != 200 || string(r.body) != fmt.Sprint(now0+42) {
		t.Fatalf("GET /time: %d %s", r.status, r.body)
	}
	for _, mp := range [][2]string{{"GET", "/nope"}, {"PUT", "/auth/api-key"}, {"POST", "/time"}} {
		e.do(t, mp[0], mp[1], nil, "").wantError(t, 404, msg(clob.ErrNotFound))
	}
	if r := e.do(t, "GET", "/time", nil, ""); !strings.HasPrefix(r.header.Get("Content-Type"), "application/json") {
		t.Fatalf("content type %q", r.header.Get("Content-Type"))
	}
}

// TestFixtureSignature: the captured ClobAuth signature in
// testdata/clob_auth.json (a public capture, testdata/PROVENANCE.md) creates a key through the route.
func TestFixtureSignature(t *testing.T) {
	raw, err := os.ReadFile(filepath.Join("testdata", "clob_auth.json"))
	if err != nil {
		t.Fatal(err)
	}
	var fx struct {
		Address   string `json:"address"`
		Timestamp int64  `json:"timestamp"`
		Nonce     uint64 `json:"nonce"`
		Signature string `json:"signature"`
	}
	if err := json.Unmarshal(raw, &fx); err != nil {
		t.Fatal(err)
	}
	e := newEnv(t)
	e.clock.set(time.Unix(fx.Timestamp, 0))
	h := http.Header{}
	h.Set("POLY_ADDRESS", fx.Address)
	h.Set("POLY_SIGNATURE", fx.Signature)
	h.Set("POLY_TIMESTAMP", fmt.Sprint(fx.Timestamp))
	h.Set("POLY_NONCE", fmt.Sprint(fx.Nonce))
	c := e.do(t, "POST", "/auth/api-key", h, "").creds(t)
	if d := e.do(t, "GET", "/auth/derive-api-key", h, "").creds(t); d != c {
		t.Fatalf("derive %+v != create %+v", d, c)
	}
	// Our independent signer agrees with the capture for the same inputs.
	w := newWallet(t, priv0)
	if !strings.EqualFold(w.addr, fx.Address) || !strings.EqualFold(w.l1(fx.Timestamp, fx.Nonce).Get("POLY_SIGNATURE"), fx.Signature) {
		t.Fatal("test signer disagrees with the captured signature")
	}
}
