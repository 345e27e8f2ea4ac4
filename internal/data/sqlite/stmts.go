package sqlite

import (
	"context"
	"database/sql"
	"maps"
	"slices"
	"sync"
)

// stmtCache keeps Apply's statements prepared on the embedded file's one
// writer connection. The SQLite driver has no statement cache of its own:
// parsing the same dozen statements again was about half of what a batch of
// one trade (the CLOB's live feed on an idle venue) cost. A statement is
// parsed in the transaction the first time and prepared on the writer after
// that Apply returned the connection (the pool holds only that one, so it
// cannot be prepared while a transaction has it); from then on
// Tx.StmtContext hands the transaction the connection's prepared statement.
// A server store (OpenOn) has none: its driver caches statements itself.
type stmtCache struct {
	mu     sync.Mutex
	m      map[string]*sql.Stmt
	missed map[string]struct{} // seen in a transaction, to prepare after it
}

func newStmtCache() *stmtCache {
	return &stmtCache{m: map[string]*sql.Stmt{}, missed: map[string]struct{}{}}
}

// get returns q's writer statement, or nil (and remembers q).
func (c *stmtCache) get(q string) *sql.Stmt {
	c.mu.Lock()
	defer c.mu.Unlock()
	s := c.m[q]
	if s == nil {
		c.missed[q] = struct{}{}
	}
	return s
}

// prepareMissed prepares on w what transactions missed. The caller holds
// the writer (DB.mu) and w's connection is idle. A failure only leaves the
// statement to be parsed per use, as before.
func (c *stmtCache) prepareMissed(ctx context.Context, w *sql.DB) {
	c.mu.Lock()
	qs := slices.Collect(maps.Keys(c.missed))
	clear(c.missed)
	c.mu.Unlock()
	for _, q := range qs { // without the lock: a prepare is a call into SQLite
		if s, err := w.PrepareContext(ctx, q); err == nil {
			c.mu.Lock()
			c.m[q] = s
			c.mu.Unlock()
		}
	}
}

// close closes the cached statements (before the pool closes).
func (c *stmtCache) close() {
	c.mu.Lock()
	defer c.mu.Unlock()
	for q, s := range c.m {
		s.Close()
		delete(c.m, q)
	}
}

// stmt is q for the transaction: the cached writer statement when there is
// one (no parse), else prepared in the transaction (closed at its end).
func (a *applier) stmt(q string) (*sql.Stmt, error) {
	if a.stmts != nil {
		if s := a.stmts.get(q); s != nil {
			return a.tx.StmtContext(a.ctx, s), nil
		}
	}
	return a.tx.PrepareContext(a.ctx, q)
}

// exec runs q in the transaction through the statement cache.
func (a *applier) exec(q string, args ...any) (sql.Result, error) {
	if a.stmts == nil {
		return a.tx.ExecContext(a.ctx, q, args...)
	}
	s, err := a.stmt(q)
	if err != nil {
		return nil, err
	}
	return s.ExecContext(a.ctx, args...)
}

// query runs q in the transaction through the statement cache.
func (a *applier) query(q string, args ...any) (*sql.Rows, error) {
	if a.stmts == nil {
		return a.tx.QueryContext(a.ctx, q, args...)
	}
	s, err := a.stmt(q)
	if err != nil {
		return nil, err
	}
	return s.QueryContext(a.ctx, args...)
}

// queryRow is QueryRowContext through the statement cache.
func (a *applier) queryRow(q string, args ...any) *sql.Row {
	if a.stmts != nil {
		if s, err := a.stmt(q); err == nil {
			return s.QueryRowContext(a.ctx, args...)
		}
	}
	return a.tx.QueryRowContext(a.ctx, q, args...)
}
