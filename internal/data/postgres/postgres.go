// Package postgres runs the data store on PostgreSQL: the same store
// (internal/data/sqlite's derivation, queries and caches, so every answer is
// the same) on pgx pools, its SQL respelled by a translating database/sql
// connection (driver.go, translate.go), its migrations the store's own under
// the same version numbers plus this package's (migrations/), and read nodes
// that follow a writer through LISTEN/NOTIFY (follow.go). docs/postgres.md.
package postgres

import (
	"context"
	"database/sql"
	"embed"
	"fmt"
	"io/fs"
	"runtime"
	"strings"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"pmx/internal/data/sqlite"
	"pmx/internal/migrate"
)

//go:embed migrations/*.sql
var migrationFS embed.FS

// IsURL tells a PostgreSQL connection string from a data directory.
func IsURL(s string) bool {
	return strings.HasPrefix(s, "postgres://") || strings.HasPrefix(s, "postgresql://")
}

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
}

// DB is the data store on PostgreSQL.
type DB struct {
	*sqlite.DB
	w, r *pgxpool.Pool
	stop context.CancelFunc
	done chan struct{}

	refreshed atomic.Int64 // refreshes after a notification (tests wait on it)
}

// ApplyLockKey is the advisory lock every Apply takes: two writers on one
// database serialize instead of interleaving.
const ApplyLockKey = 0x706d78_00_01 // "pmx", data store, 1

// indexesSQL lists the secondary indexes of activity and positions (not the
// primary keys), for the bulk Apply's drop-and-rebuild.
const indexesSQL = `SELECT indexname, indexdef FROM pg_indexes i
	WHERE schemaname = current_schema() AND tablename IN ('activity', 'positions')
	AND NOT EXISTS (SELECT 1 FROM pg_constraint c WHERE c.conname = i.indexname)`

// Pool opens a pgx pool of conns connections on url with statement_timeout
// set (unless the URL sets it) and checks the server answers.
func Pool(ctx context.Context, url string, conns int, stmtTimeout time.Duration) (*pgxpool.Pool, error) {
	cfg, err := pgxpool.ParseConfig(url)
	if err != nil {
		return nil, fmt.Errorf("postgres: %w", err)
	}
	cfg.MaxConns = int32(conns)
	if _, ok := cfg.ConnConfig.RuntimeParams["statement_timeout"]; !ok && stmtTimeout > 0 {
		cfg.ConnConfig.RuntimeParams["statement_timeout"] = fmt.Sprint(stmtTimeout.Milliseconds())
	}
	p, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("postgres: %w", err)
	}
	if err := p.Ping(ctx); err != nil {
		p.Close()
		return nil, &Error{err}
	}
	return p, nil
}

// Migrate brings the data store's schema on url up to date: the store's
// migrations (translated, recorded in schema_version like the file's) and
// this package's (pg_schema_version). Concurrent callers serialize on an
// advisory lock.
func Migrate(ctx context.Context, db *sql.DB) error {
	return locked(ctx, db, func() error {
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

// migrateLockKey serializes migrations of every pmx store on one database.
const migrateLockKey = 0x706d78_00_00

// locked runs f holding the migration lock. migrate.Run takes a pool, so the
// lock is a session lock on a connection set aside for its duration; f's own
// statements run on other connections of db (it needs at least two).
func locked(ctx context.Context, db *sql.DB, f func() error) error {
	c, err := db.Conn(ctx)
	if err != nil {
		return err
	}
	defer c.Close()
	if _, err := c.ExecContext(ctx, `SELECT pg_advisory_lock(?)`, migrateLockKey); err != nil {
		return err
	}
	defer c.ExecContext(context.Background(), `SELECT pg_advisory_unlock(?)`, migrateLockKey)
	return f()
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
	w, err := Pool(ctx, url, 2, 0)
	if err != nil {
		return nil, err
	}
	r, err := Pool(ctx, url, n, st)
	if err != nil {
		w.Close()
		return nil, err
	}
	wdb, rdb := SQL(w), SQL(r)
	fail := func(err error) (*DB, error) {
		wdb.Close()
		rdb.Close()
		w.Close()
		r.Close()
		return nil, err
	}
	if err := Migrate(ctx, wdb); err != nil {
		return fail(err)
	}
	d := sqlite.Dialect{IndexesSQL: indexesSQL, ApplyLock: fmt.Sprintf("SELECT pg_advisory_xact_lock(%d)", ApplyLockKey),
		Follower: opt.Follower}
	s, err := sqlite.OpenOn(wdb, rdb, opt.Options, d)
	if err != nil {
		w.Close()
		r.Close()
		return nil, err
	}
	db := &DB{DB: s, w: w, r: r}
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
