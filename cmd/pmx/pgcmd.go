package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"pmx/internal/catalog/catalogpg"
	"pmx/internal/clob/clobpg"
	"pmx/internal/clob/clobsql"
	"pmx/internal/config"
	"pmx/internal/data/postgres"
	"pmx/internal/data/sqlite"
	"pmx/internal/pgsql"
	"pmx/internal/progress"
	"pmx/internal/server"
)

// pmx migrate and pmx copy (docs/postgres.md).

// migrateCmd brings every store's schema on a PostgreSQL database up to this
// binary's versions (read nodes never migrate; writers do on start too).
func migrateCmd(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("migrate", flag.ContinueOnError)
	var url string
	config.StringVar(fs, os.Getenv, &url, "store", "", "postgres://... URL of the database to migrate")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if !pgsql.IsURL(url) {
		return errors.New("migrate: --store postgres://... is required (the embedded file migrates itself on open)")
	}
	return migratePG(ctx, url, stdout)
}

func migratePG(ctx context.Context, url string, stdout io.Writer) error {
	pool, err := pgsql.Pool(ctx, url, 4, 0)
	if err != nil {
		return err
	}
	defer pool.Close()
	db := pgsql.SQL(pool)
	defer db.Close()
	if err := postgres.Migrate(ctx, db); err != nil {
		return err
	}
	if _, err := catalogpg.New(ctx, db); err != nil {
		return err
	}
	if _, err := clobpg.New(ctx, db); err != nil {
		return err
	}
	fmt.Fprintln(stdout, "migrated: data, catalog and CLOB schemas are current")
	return nil
}

// copyCmd moves an embedded data dir's database into an empty PostgreSQL
// database: it migrates both to this binary's versions, then copies every
// table with COPY in one transaction.
func copyCmd(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("copy", flag.ContinueOnError)
	var from, to string
	fs.StringVar(&from, "from", "", "file:DATA-DIR, the embedded store to copy (no server may be running on it)")
	fs.StringVar(&to, "to", "", "postgres://... URL of an empty database")
	if err := fs.Parse(args); err != nil {
		return err
	}
	dir, ok := strings.CutPrefix(from, "file:")
	if !ok || dir == "" || !pgsql.IsURL(to) {
		return errors.New("copy: --from file:DATA-DIR --to postgres://... are required")
	}
	path := filepath.Join(dir, dbFile)
	if _, err := os.Stat(path); err != nil {
		return fmt.Errorf("copy: %w", err)
	}
	dd, err := server.OpenDataDir(dir)
	if err != nil {
		if errors.Is(err, server.ErrLocked) {
			return fmt.Errorf("%w: stop the server on %s first", err, dir)
		}
		return err
	}
	defer dd.Close()
	log := newLogger(stderr, "text")
	// Bring the source to this binary's versions (what serve would do).
	st, err := openStores(ctx, path, nil)
	if err != nil {
		return err
	}
	if _, err := clobsql.New(ctx, st.catPool); err != nil {
		st.Close()
		return err
	}
	st.Close()
	if err := migratePG(ctx, to, stdout); err != nil {
		return err
	}
	src, err := sqlite.OpenPool(path, 1)
	if err != nil {
		return err
	}
	defer src.Close()
	var bar *progress.Bar
	err = postgres.CopyTables(ctx, src, to, func(done, total int64) {
		if bar == nil {
			bar = progress.New("copy", total, stderr, log)
		}
		bar.Set(done)
	})
	if bar != nil {
		bar.Finish()
	}
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "copied %s into PostgreSQL\n", dir)
	return nil
}
