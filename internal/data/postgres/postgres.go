// Package postgres runs the data store on PostgreSQL: the same store
// (internal/data/sqlite's derivation, queries and caches, so every answer is
// the same) on pgx pools, its SQL respelled by a translating database/sql
// connection (driver.go, translate.go), its migrations the store's own under
// the same version numbers plus this package's (migrations/), and read nodes
// that follow a writer through LISTEN/NOTIFY (follow.go). docs/postgres.md.
package postgres

import (
	"cmp"
	"context"
	"database/sql"
	"embed"
	"fmt"
	"io/fs"
	"log/slog"
	"runtime"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"pmx/internal/data/ledger"
	"pmx/internal/data/sqlite"
	"pmx/internal/migrate"
	"pmx/internal/pgsql"
)

//go:embed migrations/*.sql
var migrationFS embed.FS

// Options tunes Open. The zero value is a writer with the production pools.
type Options struct {
	sqlite.Options
	// Follower opens a read node (see sqlite.Dialect.Follower): no Apply,
	// no hot model, the catalog refreshed when a writer commits.
	Follower bool
	// StatementTimeout bounds every read statement on the server (503
	// request_timeout when it fires); 0 = 10 s, the data service's request
	// budget. A statement_timeout in the URL wins.
	StatementTimeout time.Duration
	// CopyMin is the fewest rows of one upserted table (wallets,
	// positions, observations) that Apply writes with COPY through a
	// staging table rather than multi-row upserts (0: DefaultCopyMin;
	// negative: no COPY at all, not even for the activity rows).
	CopyMin int
}

// DefaultCopyMin: a staging table costs a catalog write per Apply, which
// makes COPY slower than multi-row upserts for small batches
// (docs/perf/postgres.md, "Live ingest").
const DefaultCopyMin = 1000

// DB is the data store on PostgreSQL.
type DB struct {
	*sqlite.DB
	w, r *pgxpool.Pool
	wsql *sql.DB // the store's writer handle over w (database/sql holds w's connections)
	stop context.CancelFunc
	done chan struct{}
}

// ApplyLockKey is the advisory lock every Apply takes: two writers on one
// database serialize instead of interleaving.
const ApplyLockKey = 0x706d78_00_01 // "pmx", data store, 1

// indexesSQL lists the secondary indexes of activity and positions (not the
// primary keys), for the bulk Apply's drop-and-rebuild.
const indexesSQL = `SELECT indexname, indexdef FROM pg_indexes i
	WHERE schemaname = current_schema() AND tablename IN ('activity', 'positions')
	AND NOT EXISTS (SELECT 1 FROM pg_constraint c WHERE c.conname = i.indexname)`

// Migrate brings the data store's schema on url up to date: the store's
// migrations (translated, recorded in schema_version like the file's) and
// this package's (pg_schema_version). Concurrent callers serialize on an
// advisory lock.
func Migrate(ctx context.Context, db *sql.DB) error {
	return pgsql.Locked(ctx, db, func() error {
		if err := migrate.Run(ctx, db, sqlite.Migrations(), "schema_version"); err != nil {
			return err
		}
		own, err := fs.Sub(migrationFS, "migrations")
		if err != nil {
			return err
		}
		return migrate.Run(ctx, db, own, "pg_schema_version")
	})
}

// Current checks the schema is at this binary's versions (what a read
// node, which never migrates, needs).
func Current(ctx context.Context, db *sql.DB) error {
	own, err := fs.Sub(migrationFS, "migrations")
	if err != nil {
		return err
	}
	for _, m := range []struct {
		files fs.FS
		table string
	}{{sqlite.Migrations(), "schema_version"}, {own, "pg_schema_version"}} {
		names, err := fs.Glob(m.files, "*.sql")
		if err != nil || len(names) == 0 {
			return fmt.Errorf("postgres: no migrations: %v", err)
		}
		want, _ := strconv.Atoi(strings.SplitN(names[len(names)-1], "_", 2)[0])
		var have int
		if err := db.QueryRowContext(ctx, `SELECT COALESCE(MAX(version), 0) FROM `+m.table).Scan(&have); err != nil || have != want {
			return fmt.Errorf("postgres: %s is at version %d, this binary needs %d: run 'pmx migrate' (%v)", m.table, have, want, err)
		}
	}
	return nil
}

// Open connects to url, migrates (a writer) or checks the schema is there
// (a follower), and starts the store.
func Open(ctx context.Context, url string, opt Options) (*DB, error) {
	n := opt.ReadConns
	if n <= 0 {
		n = max(2*runtime.NumCPU(), 4) // the server's cores bound it, not Go (docs/postgres.md)
	}
	st := opt.StatementTimeout
	if st == 0 {
		st = 10 * time.Second
	}
	w, err := pgsql.Pool(ctx, url, 2, 0)
	if err != nil {
		return nil, err
	}
	r, err := pgsql.Pool(ctx, url, n, st)
	if err != nil {
		w.Close()
		return nil, err
	}
	wdb, rdb := pgsql.SQL(w), pgsql.SQL(r)
	fail := func(err error) (*DB, error) {
		wdb.Close()
		rdb.Close()
		w.Close()
		r.Close()
		return nil, err
	}
	if opt.Follower { // a read node writes nothing, not even the schema
		err = Current(ctx, wdb)
	} else {
		err = Migrate(ctx, wdb)
	}
	if err != nil {
		return fail(err)
	}
	d := sqlite.Dialect{IndexesSQL: indexesSQL, ApplyLock: fmt.Sprintf("SELECT pg_advisory_xact_lock(%d)", ApplyLockKey),
		Follower: opt.Follower}
	if opt.CopyMin >= 0 {
		d.Copy, d.CopyMin = pgsql.Copy, cmp.Or(opt.CopyMin, DefaultCopyMin)
	}
	s, err := sqlite.OpenOn(wdb, rdb, opt.Options, d)
	if err != nil {
		w.Close()
		r.Close()
		return nil, err
	}
	db := &DB{DB: s, w: w, r: r, wsql: wdb}
	if opt.Follower {
		fctx, cancel := context.WithCancel(context.Background())
		db.stop, db.done = cancel, make(chan struct{})
		go db.follow(fctx, url)
	}
	return db, nil
}

// Close stops following and closes the store and its pools.
func (db *DB) Close() error {
	if db.stop != nil {
		db.stop()
		<-db.done
	}
	err := db.DB.Close()
	db.w.Close()
	db.r.Close()
	return err
}

// analyzeAfter is the batch size after which Apply refreshes the planner's
// statistics: a bulk load into fresh tables otherwise leaves estimates of
// one row, and the planner walks the global trade index for a wallet's feed
// until autovacuum gets round to it (measured: 40 ms instead of 0.1 ms).
const analyzeAfter = 5_000

// Apply is the store's Apply, then ANALYZE after a batch that is large and
// at least a quarter of what the statistics last counted (so a load in
// chunks analyzes a logarithmic number of times; autovacuum keeps up after).
func (db *DB) Apply(ctx context.Context, events []ledger.Event) (int, error) {
	n, err := db.DB.Apply(ctx, events)
	if err != nil || n < analyzeAfter {
		return n, err
	}
	var counted float64
	if qerr := db.wsql.QueryRowContext(ctx, `SELECT reltuples FROM pg_class WHERE relname = 'activity' AND relkind = 'r'`).
		Scan(&counted); qerr != nil || counted < 0 || float64(n)*4 >= counted {
		if _, aerr := db.wsql.ExecContext(ctx, `ANALYZE`); aerr != nil {
			slog.Warn("postgres: ANALYZE after a bulk apply", "err", aerr)
		}
	}
	return n, nil
}
