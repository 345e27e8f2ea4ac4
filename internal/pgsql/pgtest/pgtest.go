// Package pgtest gives tests a fresh PostgreSQL database on the throwaway
// cluster the test command starts (scripts/pgcluster.sh exports its admin URL
// as PMX_TEST_POSTGRES). Without it a test fails under CI=true and is
// skipped with the command to run otherwise.
package pgtest

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"net/url"
	"os"
	"testing"

	"github.com/jackc/pgx/v5"

	"pmx/internal/pgsql"
)

// Env is the variable holding the cluster's admin URL.
const Env = "PMX_TEST_POSTGRES"

// Admin returns the admin URL, failing (CI) or skipping when there is none.
func Admin(t testing.TB) string {
	t.Helper()
	u := os.Getenv(Env)
	if u == "" {
		if os.Getenv("CI") != "" {
			t.Fatalf("%s is not set: the test command starts PostgreSQL (scripts/pgcluster.sh); CI must run it", Env)
		}
		t.Skipf("no PostgreSQL: run under scripts/pgcluster.sh (sets %s)", Env)
	}
	return u
}

// DB creates an empty database for this test, dropped at cleanup, and
// returns its URL.
func DB(t testing.TB) string {
	t.Helper()
	admin := Admin(t)
	var b [6]byte
	_, _ = rand.Read(b[:])
	name := "t_" + hex.EncodeToString(b[:])
	exec(t, admin, "CREATE DATABASE "+name)
	t.Cleanup(func() { exec(t, admin, "DROP DATABASE IF EXISTS "+name+" WITH (FORCE)") })
	u, err := url.Parse(admin)
	if err != nil {
		t.Fatal(err)
	}
	u.Path = "/" + name
	return u.String()
}

func exec(t testing.TB, dsn, q string) {
	t.Helper()
	ctx := context.Background()
	c, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Fatalf("pgtest: %v", err)
	}
	defer c.Close(ctx)
	if _, err := c.Exec(ctx, q); err != nil {
		t.Fatalf("pgtest: %s: %v", q, err)
	}
}

// Store names the store the parameterised suites run against:
// PMX_TEST_STORE=postgres, else the embedded file ("sqlite").
func Store() string {
	if s := os.Getenv("PMX_TEST_STORE"); s != "" {
		return s
	}
	return "sqlite"
}

// SQL is a translating handle (pgsql.SQL) of conns connections on a fresh
// database, closed at cleanup.
func SQL(t testing.TB, conns int) *sql.DB {
	t.Helper()
	p, err := pgsql.Pool(context.Background(), DB(t), conns, 0)
	if err != nil {
		t.Fatal(err)
	}
	db := pgsql.SQL(p)
	t.Cleanup(func() { db.Close(); p.Close() })
	return db
}
