// Package sqlite is the embedded store.Store: SQLite through modernc.org/sqlite
// (no cgo) in WAL mode, one writer connection and a small read pool, schema
// from versioned migrations embedded in the binary. docs/store.md describes
// the schema and the derivation rules.
package sqlite

import (
	"context"
	"database/sql"
	"embed"
	"io/fs"
	"net/url"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	_ "modernc.org/sqlite" // registers the "sqlite" driver

	"pmx/internal/data/store"
	migrations "pmx/internal/migrate"
)

//go:embed migrations/*.sql
var migrationFS embed.FS

// DB is the SQLite store. It implements store.Store.
type DB struct {
	w *sql.DB // the single writer connection
	r *sql.DB // read pool

	mu       sync.Mutex // serializes Apply
	stmts    *stmtCache // Apply's statements on w (stmts.go); nil on a server store
	cat      atomic.Pointer[catalog]
	live     atomic.Pointer[liveCache] // catalog live fields (live.go)
	liveGen  atomic.Uint64             // numbers liveCaches (LiveGeneration)
	clock    func() time.Time
	progress func(done, total int)

	boards boardCache // memoised boards (boards.go)
	hot    hotModel   // in-memory wallet feeds (hot.go)
	dia    Dialect    // the database server's differences (dialect.go); zero for the file
}

var _ store.Store = (*DB)(nil)

// Options tunes Open. The zero value is the production setting.
type Options struct {
	ReadConns int              // read pool size; 0 = 4 per CPU, at least 8 (see docs/perf/store.md)
	Clock     func() time.Time // stamps Watermark.AppliedAt; nil = time.Now
	// Progress, if set, is called during Apply every 16,384 events with the
	// events processed so far and the batch size (for a progress bar), and
	// once more with done == total before the commit.
	Progress func(done, total int)
}

// dsnOf is the connection string every pool of the file uses.
//
// synchronous=NORMAL in WAL: a commit is durable against a process crash
// (it is in the WAL file) and the database can never be corrupted; only a
// power loss can roll back the last commits, which a re-ingest repairs.
// FULL would fsync the WAL on every commit for no gain in a derived store.
func dsnOf(path string) string {
	q := url.Values{}
	for _, p := range []string{"busy_timeout(10000)", "journal_mode(WAL)", "synchronous(NORMAL)",
		"foreign_keys(0)", "mmap_size(4294967296)"} {
		q.Add("_pragma", p)
	}
	return "file:" + path + "?" + q.Encode()
}

// OpenPool opens another connection pool on the same database file, for a
// store that keeps its own tables there (the catalog). Writers of all pools
// serialize on SQLite's file lock (busy_timeout waits for it).
func OpenPool(path string, conns int) (*sql.DB, error) {
	return openPool(path, "&_pragma=cache_size(-16384)&_txlock=immediate", conns)
}

// openPool opens a pool of exactly conns connections, kept open for the
// pool's life, on dsnOf(path) plus the pool's own pragmas.
func openPool(path, pragmas string, conns int) (*sql.DB, error) {
	p, err := sql.Open("sqlite", dsnOf(path)+pragmas)
	if err != nil {
		return nil, err
	}
	p.SetMaxOpenConns(conns)
	p.SetMaxIdleConns(conns)
	p.SetConnMaxLifetime(0)
	return p, nil
}

// Open opens (creating if needed) the database file at path and migrates it.
func Open(path string, opt Options) (*DB, error) {
	// The writer gets a 64 MiB page cache for bulk loads; readers 16 MiB each,
	// since they read through mmap.
	w, err := openPool(path, "&_pragma=cache_size(-65536)&_txlock=immediate", 1)
	if err != nil {
		return nil, err
	}
	if err := migrate(context.Background(), w); err != nil {
		w.Close()
		return nil, err
	}
	n := opt.ReadConns
	if n <= 0 {
		// Measured: a pool of 8 on 2 cores serves 1.5–4× the queries of a
		// pool of 2 (queries also wait on page faults, not only on CPU).
		n = max(4*runtime.NumCPU(), 8)
	}
	r, err := openPool(path, "&_pragma=cache_size(-16384)&_pragma=query_only(1)", n)
	if err != nil {
		w.Close()
		return nil, err
	}
	db, err := start(w, r, opt, Dialect{})
	if err == nil {
		db.stmts = newStmtCache()
	}
	return db, err
}

// start loads the catalog and, unless d.Follower, the hot read model of an
// open, migrated database; it owns (and closes on failure) both pools.
func start(w, r *sql.DB, opt Options, d Dialect) (*DB, error) {
	db := &DB{w: w, r: r, clock: opt.Clock, progress: opt.Progress, dia: d}
	if db.clock == nil {
		db.clock = time.Now
	}
	cat, err := loadCatalog(context.Background(), w)
	if err != nil {
		db.Close()
		return nil, err
	}
	db.cat.Store(cat)
	if d.Follower {
		return db, nil
	}
	if err := db.loadHot(context.Background()); err != nil {
		db.Close()
		return nil, err
	}
	return db, nil
}

// Close closes both pools.
func (db *DB) Close() error {
	if db.stmts != nil {
		db.stmts.close()
	}
	if db.w == db.r {
		return db.r.Close()
	}
	err1 := db.r.Close()
	err2 := db.w.Close()
	if err1 != nil {
		return err1
	}
	return err2
}

// migrate applies every embedded migration newer than schema_version, each
// with its version row in one transaction (internal/migrate; the table's
// name predates the other stores' prefixed ones and is kept for existing
// data dirs).
func migrate(ctx context.Context, w *sql.DB) error {
	files, err := fs.Sub(migrationFS, "migrations")
	if err != nil {
		return err
	}
	return migrations.Run(ctx, w, files, "schema_version")
}

// Generation implements dataapi.Generational: the published catalog's
// number. Every committed Apply publishes a new catalog (with the hot
// model, under its lock) before it returns, so the number moves after the
// batch is visible and never before.
func (db *DB) Generation() uint64 { return uint64(db.cat.Load().gen) }

// WalletGeneration implements dataapi.WalletGenerational: the generation of
// what a wallet's feeds (/v2/trades?user=, /v2/activity?user=) show. They
// are a function of the wallet's activity rows and profile (published with
// the wallet's gen, under the hot model's lock, by every Apply that touched
// the wallet) and of the market texts that enrich the rows (the catalog's
// textsGen), so the larger of the two moves exactly when such a page can
// change, and never before the change is visible. Marks do not enter the
// feeds, so other wallets' trades leave it alone.
//
// A read node (no hot model, a catalog reloaded on every writer commit)
// answers the store's generation for all three scoped generations.
func (db *DB) WalletGeneration(addr string) uint64 {
	if db.dia.Follower {
		return db.Generation()
	}
	h := &db.hot
	h.mu.RLock()
	defer h.mu.RUnlock()
	g := db.cat.Load().textsGen
	if hw := h.byAddr[addr]; hw != nil && hw.gen > g {
		g = hw.gen
	}
	return uint64(g)
}

// PositionsGeneration implements dataapi.ScopedGenerational: the generation
// of a wallet's /v2/positions and /v2/value pages. They read the wallet's
// positions and profile (its gen), the texts and resolutions of markets
// (textsGen) and the marks of the markets it has positions in (their mark
// gen; the set of those markets changes only with the wallet's gen), so the
// largest of these moves exactly when such a page can change. Other
// wallets' trades in other markets leave it alone.
func (db *DB) PositionsGeneration(addr string) uint64 {
	if db.dia.Follower {
		return db.Generation()
	}
	h := &db.hot
	h.mu.RLock()
	defer h.mu.RUnlock()
	cat := db.cat.Load()
	g := cat.textsGen
	if hw := h.byAddr[addr]; hw != nil {
		g = max(g, hw.gen)
		for i := range hw.pos {
			g = max(g, cat.markGen(hw.pos[i].mid))
		}
	}
	return uint64(g)
}

// HoldersGeneration implements dataapi.ScopedGenerational: the generation of
// /v2/holders for these markets (condition ids): the texts (textsGen), and
// per market its marks and its holdings (any position in it, or the profile
// of a wallet with one; catalog.mgen). An unknown condition id reads as
// textsGen: a market appears only by a market event, which moves textsGen.
func (db *DB) HoldersGeneration(conds []string) uint64 {
	if db.dia.Follower {
		return db.Generation()
	}
	cat := db.cat.Load()
	g := cat.textsGen
	for _, c := range conds {
		if m := cat.byCond[c]; m != nil {
			g = max(g, cat.holdersGen(m.mid))
		}
	}
	return uint64(g)
}
