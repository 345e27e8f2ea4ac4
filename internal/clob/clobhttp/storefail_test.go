package clobhttp_test

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
	"time"

	"pmx/internal/clob/clob"
	"pmx/internal/crypto/eip712"
	"pmx/internal/crypto/secp"
)

// brokenStore is a working store until broken is set; then Latest, Active
// and Revoke fail as a database would (Get keeps working, so L2 passes and
// the route's own store call is what fails).
type brokenStore struct {
	clob.Store
	broken atomic.Bool
}

var errDisk = errors.New("sqlite: disk I/O error")

func (s *brokenStore) Latest(ctx context.Context, a secp.Address, n eip712.Uint256) (clob.Key, bool, error) {
	if s.broken.Load() {
		return clob.Key{}, false, errDisk
	}
	return s.Store.Latest(ctx, a, n)
}

func (s *brokenStore) Active(ctx context.Context, a secp.Address) ([]clob.Key, error) {
	if s.broken.Load() {
		return nil, errDisk
	}
	return s.Store.Active(ctx, a)
}

func (s *brokenStore) Revoke(ctx context.Context, k string, at time.Time) (bool, error) {
	if s.broken.Load() {
		return false, errDisk
	}
	return s.Store.Revoke(ctx, k, at)
}

// TestStoreFailures: a failing store gives each route the contract's
// status and message (interface.md "CLOB errors"), never the internal text.
func TestStoreFailures(t *testing.T) {
	st := &brokenStore{Store: newStore(t)}
	e := newEnvWith(t, st)
	w := newWallet(t, priv0)
	c := e.do(t, "POST", "/auth/api-key", w.l1(now0, 0), "").creds(t)

	st.broken.Store(true)
	e.do(t, "POST", "/auth/api-key", w.l1(now0, 1), "").wantError(t, 400, msg(clob.ErrCreateAPIKey))
	e.do(t, "GET", "/auth/derive-api-key", w.l1(now0, 0), "").wantError(t, 400, msg(clob.ErrDeriveAPIKey))
	e.listKeys(t, w.addr, c).wantError(t, 500, msg(clob.ErrRetrieveAPIKeys))
	e.do(t, "DELETE", "/auth/api-key", l2(w.addr, c, now0, "DELETE", "/auth/api-key", ""), "").wantError(t, 500, msg(clob.ErrDeleteAPIKey))

	// Healthy again: nothing was deleted.
	st.broken.Store(false)
	if got := keysOf(t, e.listKeys(t, w.addr, c)); len(got) != 1 || got[0] != c.APIKey {
		t.Fatalf("keys after the failures %v", got)
	}
}
