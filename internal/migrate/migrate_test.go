package migrate_test

import (
	"context"
	"database/sql"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"

	"pmx/internal/migrate"

	_ "modernc.org/sqlite"
)

func open(t *testing.T) *sql.DB {
	t.Helper()
	db, err := sql.Open("sqlite", "file:"+filepath.Join(t.TempDir(), "m.db"))
	if err != nil {
		t.Fatal(err)
	}
	db.SetMaxOpenConns(1)
	t.Cleanup(func() { db.Close() })
	return db
}

func TestAppliesNewVersionsInOrderOnce(t *testing.T) {
	db := open(t)
	ctx := context.Background()
	files := fstest.MapFS{
		"0002_b.sql": {Data: []byte(`INSERT INTO t VALUES (2);`)},
		"0001_a.sql": {Data: []byte(`CREATE TABLE t (v INTEGER); INSERT INTO t VALUES (1);`)},
	}
	for i := 0; i < 2; i++ { // the second run finds nothing to do
		if err := migrate.Run(ctx, db, files, "x_schema_version"); err != nil {
			t.Fatal(err)
		}
	}
	var n, max int
	if err := db.QueryRow(`SELECT COUNT(*), MAX(v) FROM t`).Scan(&n, &max); err != nil || n != 2 || max != 2 {
		t.Fatalf("rows %d max %d err %v", n, max, err)
	}
	files["0003_c.sql"] = &fstest.MapFile{Data: []byte(`INSERT INTO t VALUES (3);`)}
	if err := migrate.Run(ctx, db, files, "x_schema_version"); err != nil {
		t.Fatal(err)
	}
	if err := db.QueryRow(`SELECT COUNT(*) FROM t`).Scan(&n); err != nil || n != 3 {
		t.Fatalf("after 0003: %d rows", n)
	}
}

func TestAFailingMigrationLeavesTheSchemaAtTheLastWholeVersion(t *testing.T) {
	db := open(t)
	ctx := context.Background()
	files := fstest.MapFS{
		"0001_a.sql": {Data: []byte(`CREATE TABLE t (v INTEGER);`)},
		"0002_b.sql": {Data: []byte(`INSERT INTO t VALUES (1); SELECT * FROM missing;`)},
	}
	err := migrate.Run(ctx, db, files, "y_schema_version")
	if err == nil || !strings.Contains(err.Error(), "0002_b.sql") {
		t.Fatalf("err = %v, want one naming 0002_b.sql", err)
	}
	var v, n int
	db.QueryRow(`SELECT MAX(version) FROM y_schema_version`).Scan(&v)
	db.QueryRow(`SELECT COUNT(*) FROM t`).Scan(&n)
	if v != 1 || n != 0 {
		t.Fatalf("version %d rows %d: the failed migration was half applied", v, n)
	}
}

func TestBadFileNameIsAnError(t *testing.T) {
	if err := migrate.Run(context.Background(), open(t), fstest.MapFS{"init.sql": {Data: []byte(`SELECT 1`)}}, "z"); err == nil {
		t.Fatal("want error")
	}
}
