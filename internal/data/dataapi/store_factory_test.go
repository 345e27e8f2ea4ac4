package dataapi_test

import (
	"context"
	"path/filepath"
	"testing"

	"pmx/internal/data/postgres"
	"pmx/internal/data/sqlite"
	"pmx/internal/pgsql/pgtest"
)

// The black-box suites run against either store: the embedded file by
// default, PostgreSQL (a fresh database on the test command's throwaway
// cluster) with PMX_TEST_STORE=postgres. scripts/test.sh runs both.

// testStore names the store under test.
var testStore = pgtest.Store()

// openStore opens an empty store of the kind under test, closed at cleanup
// (callers may close it again).
func openStore(t testing.TB, opt sqlite.Options) (*sqlite.DB, error) {
	t.Helper()
	switch testStore {
	case "sqlite":
		return sqlite.Open(filepath.Join(t.TempDir(), "pmx.db"), opt)
	case "postgres":
		db, err := postgres.Open(context.Background(), pgtest.DB(t), postgres.Options{Options: opt})
		if err != nil {
			return nil, err
		}
		t.Cleanup(func() { db.Close() })
		return db.DB, nil
	}
	t.Fatalf("PMX_TEST_STORE=%q: want sqlite or postgres", testStore)
	return nil, nil
}
