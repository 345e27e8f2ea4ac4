package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"io/fs"
)

// The store's SQL is written so that SQLite and PostgreSQL agree on it (the
// server's driver translates the spelling: placeholders, INSERT OR REPLACE,
// column types; internal/data/postgres). The few things that differ by more
// than spelling are a Dialect, so every derivation rule exists once, here.

// Dialect is what a database server changes about the store. The zero value
// is the embedded file.
type Dialect struct {
	// IndexesSQL lists (name, CREATE statement) of the secondary indexes of
	// activity and positions, which a bulk Apply drops and rebuilds.
	IndexesSQL string
	// ApplyLock runs first in every Apply's transaction: it makes a second
	// writer on the same database wait instead of interleaving.
	ApplyLock string
	// Follower opens a read node: Apply is refused, there is no hot read
	// model (the wallet feeds and positions read SQL, the same answers) and
	// Refresh reloads the catalog when a writer commits.
	Follower bool
	// Copy, when set, writes Apply's bulk rows with the server's COPY on
	// the transaction's connection c instead of multi-row INSERTs, for a
	// table once its batch has CopyMin rows (bulk.go): rows are inserted,
	// or with upsert replace the row of the same primary key ("INSERT OR
	// REPLACE"). Values are int64, amount.Micro, int, bool, string or nil.
	Copy func(ctx context.Context, c *sql.Conn, table string, cols []string, upsert bool, rows [][]any) error
	// CopyMin is the fewest rows of one upserted table worth a COPY (which
	// stages them in a temporary table); inserted tables always COPY.
	CopyMin int
}

// ErrFollower is Apply on a read node.
var ErrFollower = errors.New("store: read node: ingest on the writer")

// Migrations are the store's schema migrations (NNNN_name.sql), for a
// server dialect to translate and apply under the same version numbers.
func Migrations() fs.FS {
	f, err := fs.Sub(migrationFS, "migrations")
	if err != nil {
		panic(err) // the embedded directory exists: a build error otherwise
	}
	return f
}

// OpenOn starts the store on already-migrated pools of a database server:
// w for Apply (one connection is enough), r for reads. On a follower w may
// be r. The store owns both pools from here on (Close closes them).
func OpenOn(w, r *sql.DB, opt Options, d Dialect) (*DB, error) {
	return start(w, r, opt, d)
}

// Refresh makes a read node see what writers committed: it reloads the
// catalog (markets, tokens, marks) and publishes it as a new generation,
// which also drops the boards, market-route and live-field caches keyed by
// it. Rows read through SQL are current without it.
func (db *DB) Refresh(ctx context.Context) error {
	cat, err := loadCatalog(ctx, db.r)
	if err != nil {
		return err
	}
	h := &db.hot
	h.mu.Lock()
	defer h.mu.Unlock()
	cat.gen = db.cat.Load().gen + 1
	db.cat.Store(cat)
	h.enr = newHotEnrich(cat)
	return nil
}
