package perpsauth

import (
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"

	"pmx/internal/crypto/secp"
)

const otherKeyHex = "5de4111afa1a4b94908f83103eb1f1706367c2e68ca870fc3fb9a804cdab365a" // Anvil #2

// hintEnv is a verifier whose resolver links the two test keys (while
// linked is true) and a counter of salts.
type hintEnv struct {
	t      *testing.T
	v      *Verifier
	a, b   tKey
	linked bool
	salt   uint64
}

func newHintEnv(t *testing.T, cfg Config) *hintEnv {
	return &hintEnv{t: t, v: New(cfg), a: newKey(t, proxyKeyHex), b: newKey(t, otherKeyHex), linked: true}
}

func (e *hintEnv) resolve(s secp.Address, _ int64) (secp.Address, bool) {
	pa, _ := secp.ParseAddress(e.a.hex)
	pb, _ := secp.ParseAddress(e.b.hex)
	return s, e.linked && (s == pa || s == pb)
}

// verify signs a fresh cancel with k and verifies it on h, checking the
// answer equals the one a hint-less verifier gives for the same request.
func (e *hintEnv) verify(k tKey, h *Hint) (*Verified, error) {
	e.salt++
	r := signedCancel(e.t, k, 1, e.salt, uint64(now0.UnixMilli()), "")
	ref, refErr := New(Config{}).VerifyOp(r, "cancelOrders", now0, e.resolve)
	got, err := e.v.VerifyOpHint(r, "cancelOrders", now0, e.resolve, h)
	if !errors.Is(err, refErr) || (err == nil && (got.Signer != ref.Signer || got.Account != ref.Account)) {
		e.t.Fatalf("with hint: %+v, %v; without: %+v, %v", got, err, ref, refErr)
	}
	return got, err
}

func (e *hintEnv) stats(wantRecovered, wantKnown uint64) {
	e.t.Helper()
	if r, k := e.v.SignerStats(); r != wantRecovered || k != wantKnown {
		e.t.Fatalf("recovered %d known %d, want %d %d", r, k, wantRecovered, wantKnown)
	}
}

func TestHintKnownSignerSkipsRecovery(t *testing.T) {
	e := newHintEnv(t, Config{})
	var h Hint
	for range 5 {
		if _, err := e.verify(e.a, &h); err != nil {
			t.Fatal(err)
		}
	}
	e.stats(2, 3) // two recoveries teach the connection its signer
	// A second connection with the same signer reuses the built key (no
	// second build), but still needs two requests to adopt it.
	var h2 Hint
	e.verify(e.a, &h2)
	e.verify(e.a, &h2)
	e.verify(e.a, &h2)
	e.stats(4, 4)
	if k1, k2 := h.st.Load().key, h2.st.Load().key; k1 == nil || k1 != k2 {
		t.Fatalf("connections hold keys %p and %p, want one shared key", k1, k2)
	}
}

func TestHintRevokedSignerStillRefused(t *testing.T) {
	e := newHintEnv(t, Config{})
	var h Hint
	e.verify(e.a, &h)
	e.verify(e.a, &h)
	e.linked = false
	if _, err := e.verify(e.a, &h); !errors.Is(err, ErrAccountNotFound) {
		t.Fatalf("revoked proxy via known key: %v", err)
	}
	e.stats(2, 1)
}

func TestHintOtherSignerFallsBack(t *testing.T) {
	e := newHintEnv(t, Config{})
	var h Hint
	e.verify(e.a, &h)
	e.verify(e.a, &h)
	got, err := e.verify(e.b, &h) // misses a's key, recovered as b
	if err != nil || !strings.EqualFold(got.Signer.Hex(), e.b.hex) {
		t.Fatalf("got %+v, %v", got, err)
	}
	// Alternating keys never earn a key, so never pay for a miss.
	e.verify(e.a, &h)
	e.verify(e.b, &h)
	e.verify(e.a, &h)
	e.stats(6, 0)
}

func TestHintUnlinkedSignerBuildsNothing(t *testing.T) {
	e := newHintEnv(t, Config{})
	e.linked = false
	var h Hint
	for range 3 {
		if _, err := e.verify(e.a, &h); !errors.Is(err, ErrAccountNotFound) {
			t.Fatal(err)
		}
	}
	e.stats(3, 0)
	if len(e.v.keys.keys) != 0 {
		t.Fatal("built a key for a signer that resolves to nothing")
	}
}

func TestHintBadSignatureSameAnswer(t *testing.T) {
	e := newHintEnv(t, Config{})
	var h Hint
	e.verify(e.a, &h)
	e.verify(e.a, &h)
	for _, mutate := range []func(string) string{
		func(s string) string { return s[:len(s)-2] + "1b" },    // v forced to 27
		func(s string) string { return s[:len(s)-2] + "1c" },    // v forced to 28
		func(s string) string { return s[:10] + "00" + s[12:] }, // r damaged
	} {
		e.salt++
		r := signedCancel(t, e.a, 1, e.salt, uint64(now0.UnixMilli()), "")
		r.Sig = mutate(r.Sig)
		_, refErr := New(Config{}).VerifyOp(r, "cancelOrders", now0, e.resolve)
		_, err := e.v.VerifyOpHint(r, "cancelOrders", now0, e.resolve, &h)
		if !errors.Is(err, refErr) {
			t.Fatalf("sig %s: with hint %v, without %v", r.Sig, err, refErr)
		}
	}
}

func TestHintDisabled(t *testing.T) {
	e := newHintEnv(t, Config{KnownKeys: -1})
	var h Hint
	for range 4 {
		e.verify(e.a, &h)
	}
	e.stats(4, 0)
}

func TestKeyCacheBounded(t *testing.T) {
	c := newKeyCache(2)
	pub := newKey(t, proxyKeyHex).priv.PubKey()
	for i := range 5 {
		c.get(secp.Address{byte(i)}, pub)
	}
	if len(c.keys) != 2 {
		t.Fatalf("%d keys cached, max 2", len(c.keys))
	}
}

// TestHintConcurrentPosts: one hint used by concurrent posts (Hint promises
// it is safe, though no caller does it today) gives every post the same
// answer as recovery; run under -race.
func TestHintConcurrentPosts(t *testing.T) {
	e := newHintEnv(t, Config{})
	var h Hint
	reqs := make([]*Request, 40)
	for i := range reqs {
		k := e.a
		if i%7 == 3 {
			k = e.b
		}
		reqs[i] = signedCancel(t, k, 1, uint64(i+1), uint64(now0.UnixMilli()), "")
	}
	errs := make(chan error, len(reqs))
	var wg sync.WaitGroup
	for i, r := range reqs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			got, err := e.v.VerifyOpHint(r, "cancelOrders", now0, e.resolve, &h)
			want := e.a.hex
			if i%7 == 3 {
				want = e.b.hex
			}
			if err != nil || !strings.EqualFold(got.Signer.Hex(), want) {
				errs <- fmt.Errorf("post %d: %+v, %v (want signer %s)", i, got, err, want)
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}
