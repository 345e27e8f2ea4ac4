package clobsql_test

import (
	"context"
	"database/sql"
	"errors"
	"path/filepath"
	"testing"
	"time"

	"pmx/internal/clob/clob"
	"pmx/internal/clob/clobsql"
	"pmx/internal/crypto/eip712"
	"pmx/internal/crypto/secp"

	"pmx/internal/data/sqlite"
	"pmx/internal/pgsql/pgtest"
)

func openDB(t *testing.T) *sql.DB {
	t.Helper()
	// The pool pmx serve opens (cmd/pmx openStores), so tests run the
	// production connection settings.
	if pgtest.Store() == "postgres" { // the same suite on PostgreSQL (scripts/test.sh)
		return pgtest.SQL(t, 4)
	}
	db, err := sqlite.OpenPool(filepath.Join(t.TempDir(), "pmx.db"), 4)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

func TestStore(t *testing.T) {
	ctx := context.Background()
	db := openDB(t)
	s, err := clobsql.New(ctx, db)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := clobsql.New(ctx, db); err != nil { // migrating twice is a no-op
		t.Fatal(err)
	}
	a := secp.Address{1}
	b := secp.Address{2}
	n0, n1 := eip712.Uint256From64(0), eip712.Uint256From64(1)
	t0 := time.UnixMilli(1_800_000_000_000)
	key := func(id string, addr secp.Address, n eip712.Uint256, gen uint32, at time.Time) clob.Key {
		return clob.Key{APIKey: id, Address: addr, Nonce: n, Generation: gen, CreatedAt: at}
	}

	if _, ok, err := s.Latest(ctx, a, n0); ok || err != nil {
		t.Fatalf("latest on empty store: %v %v", ok, err)
	}
	k1 := key("k1", a, n0, 0, t0)
	if err := s.Insert(ctx, k1); err != nil {
		t.Fatal(err)
	}
	conflicts := []struct {
		name string
		k    clob.Key
	}{
		{"same api key", key("k1", b, n1, 0, t0)},
		{"pair already active", key("k2", a, n0, 1, t0)},
		{"generation reused", key("k2", a, n0, 0, t0)},
	}
	for _, c := range conflicts {
		if err := s.Insert(ctx, c.k); !errors.Is(err, clob.ErrKeyExists) {
			t.Errorf("%s: %v", c.name, err)
		}
	}
	if got, ok, err := s.Get(ctx, "k1"); !ok || err != nil || got != k1 {
		t.Fatalf("get: %+v %v %v", got, ok, err)
	}
	if err := s.Insert(ctx, key("k3", a, n1, 0, t0.Add(time.Second))); err != nil {
		t.Fatal(err)
	}
	if err := s.Insert(ctx, key("k4", b, n0, 0, t0)); err != nil {
		t.Fatal(err)
	}
	active := func(addr secp.Address) (ids []string) {
		ks, err := s.Active(ctx, addr)
		if err != nil {
			t.Fatal(err)
		}
		for _, k := range ks {
			ids = append(ids, k.APIKey)
		}
		return ids
	}
	if got := active(a); len(got) != 2 || got[0] != "k1" || got[1] != "k3" {
		t.Fatalf("active %v", got)
	}

	if ok, err := s.Revoke(ctx, "k1", t0); !ok || err != nil {
		t.Fatalf("revoke: %v %v", ok, err)
	}
	if ok, err := s.Revoke(ctx, "k1", t0); ok || err != nil {
		t.Fatalf("second revoke: %v %v", ok, err)
	}
	if ok, _ := s.Revoke(ctx, "nope", t0); ok {
		t.Fatal("revoked an unknown key")
	}
	if got, ok, _ := s.Get(ctx, "k1"); !ok || !got.Revoked {
		t.Fatalf("revoked key reads %+v", got)
	}
	if got := active(a); len(got) != 1 || got[0] != "k3" {
		t.Fatalf("active after revoke %v", got)
	}
	// The pair is free again, at the next generation only.
	if err := s.Insert(ctx, key("k5", a, n0, 0, t0)); !errors.Is(err, clob.ErrKeyExists) {
		t.Fatalf("generation 0 reused after revoke: %v", err)
	}
	if err := s.Insert(ctx, key("k5", a, n0, 1, t0)); err != nil {
		t.Fatal(err)
	}
	if got, ok, _ := s.Latest(ctx, a, n0); !ok || got.APIKey != "k5" || got.Generation != 1 || got.Revoked {
		t.Fatalf("latest %+v", got)
	}
}
