package perpsauth

import (
	"errors"
	"strings"
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

// Every signer is recovered, on a connection's repeat signer too: the
// hint no longer shortcuts anything (see Hint), and the stats say so.
func TestHintEverySignerRecovered(t *testing.T) {
	e := newHintEnv(t, Config{KnownKeys: 256})
	var h Hint
	for range 4 {
		if _, err := e.verify(e.a, &h); err != nil {
			t.Fatal(err)
		}
	}
	e.verify(e.b, nil)
	e.stats(5, 0)
}

// A connection's repeat signer whose proxy was revoked is refused on its
// next request: nothing about a signer outlives the request that named it.
func TestHintRevokedSignerStillRefused(t *testing.T) {
	e := newHintEnv(t, Config{})
	var h Hint
	e.verify(e.a, &h)
	e.verify(e.a, &h)
	e.linked = false
	if _, err := e.verify(e.a, &h); !errors.Is(err, ErrAccountNotFound) {
		t.Fatalf("revoked proxy: %v", err)
	}
	e.stats(3, 0)
}

// A bad signature gets the same answer on a connection with a history.
func TestHintBadSignatureSameAnswer(t *testing.T) {
	e := newHintEnv(t, Config{})
	var h Hint
	e.verify(e.a, &h)
	e.verify(e.a, &h)
	e.salt++
	r := signedCancel(t, e.a, 1, e.salt, uint64(now0.UnixMilli()), "")
	r.Sig = r.Sig[:10] + strings.Repeat("0", len(r.Sig)-12) + r.Sig[len(r.Sig)-2:]
	if _, err := e.v.VerifyOpHint(r, "cancelOrders", now0, e.resolve, &h); !errors.Is(err, ErrInvalidSignature) {
		t.Fatalf("zeroed signature: %v", err)
	}
}
