package sqlite

import (
	"context"
	"database/sql"
	"slices"
	"strings"
)

// bulkRows is how many rows one multi-row INSERT carries: per-statement
// overhead (database/sql and the driver) dominates single-row inserts.
const bulkRows = 64

// bulk buffers rows for one table and writes them bulkRows at a time.
type bulk struct {
	ctx     context.Context
	tx      *sql.Tx
	head    string // "INSERT ... INTO t (cols) VALUES "
	tuple   string // "(?, ?, ...)"
	ncol    int
	full    *sql.Stmt
	prep    func(q string) (*sql.Stmt, error) // applier.stmt; nil: tx.PrepareContext
	cached  bool                              // prep hits a statement cache: flush in power-of-two chunks
	buf     []any
	n       int
	errWrap func(error) error

	// COPY mode (Dialect.Copy): rows are kept until copyChunk of them, or
	// the final flush, and written by one COPY; a table's batch under
	// copyMin rows that never reached a chunk goes out as multi-row INSERTs.
	copy    func(table string, cols []string, upsert bool, rows [][]any) error
	copyMin int
	rows    [][]any
	copied  bool
}

// copyChunk bounds the rows one COPY carries (and bulk keeps in memory).
const copyChunk = 16384

func newBulk(ctx context.Context, tx *sql.Tx, head string, ncol int) *bulk {
	return &bulk{ctx: ctx, tx: tx, head: head, ncol: ncol,
		tuple: "(" + strings.TrimSuffix(strings.Repeat("?, ", ncol), ", ") + ")"}
}

// newBulk is newBulk in a's transaction, through a's statement cache.
func (a *applier) newBulk(head string, ncol int) *bulk {
	b := newBulk(a.ctx, a.tx, head, ncol)
	b.prep, b.cached = a.stmt, a.stmts != nil
	return b
}

func (b *bulk) query(rows int) string {
	var s strings.Builder
	s.WriteString(b.head)
	for i := 0; i < rows; i++ {
		if i > 0 {
			s.WriteString(", ")
		}
		s.WriteString(b.tuple)
	}
	return s.String()
}

// copyMode switches b to COPY through cp for batches of min rows or more.
func (b *bulk) copyMode(cp func(table string, cols []string, upsert bool, rows [][]any) error, min int) {
	b.copy, b.copyMin = cp, max(min, 1)
}

// add buffers one row (exactly ncol values; b keeps a copy).
func (b *bulk) add(vals ...any) error {
	if b.copy != nil {
		b.rows = append(b.rows, slices.Clone(vals))
		if len(b.rows) >= copyChunk {
			return b.copyOut()
		}
		return nil
	}
	b.buf = append(b.buf, vals...)
	b.n++
	if b.n < bulkRows {
		return nil
	}
	if b.full == nil {
		s, err := b.prepare(bulkRows)
		if err != nil {
			return err
		}
		b.full = s
	}
	_, err := b.full.ExecContext(b.ctx, b.buf...)
	b.buf, b.n = b.buf[:0], 0
	return b.wrap(err)
}

// copyOut writes the kept rows with one COPY.
func (b *bulk) copyOut() error {
	// head is "INSERT [OR REPLACE] INTO t (cols) VALUES ": the statement's
	// own table and columns.
	into := b.head[strings.Index(b.head, "INTO ")+5:]
	table := strings.TrimSpace(into[:strings.Index(into, "(")])
	cols := strings.Split(into[strings.Index(into, "(")+1:strings.Index(into, ")")], ",")
	for i := range cols {
		cols[i] = strings.TrimSpace(cols[i])
	}
	err := b.copy(table, cols, strings.Contains(b.head, "OR REPLACE"), b.rows)
	b.rows, b.copied = b.rows[:0], true
	return b.wrap(err)
}

// flush writes the buffered remainder.
func (b *bulk) flush() error {
	if b.copy != nil && len(b.rows) > 0 {
		if b.copied || len(b.rows) >= b.copyMin {
			return b.copyOut()
		}
		rows := b.rows
		b.copy, b.rows = nil, nil // a small batch: multi-row INSERTs
		for _, r := range rows {
			if err := b.add(r...); err != nil {
				return err
			}
		}
	}
	if b.n == 0 {
		return nil
	}
	if !b.cached {
		_, err := b.tx.ExecContext(b.ctx, b.query(b.n), b.buf...)
		b.buf, b.n = b.buf[:0], 0
		return b.wrap(err)
	}
	// With a statement cache, the remainder goes out in chunks of 32, 16,
	// ..., 1 rows: six cached statements per table instead of one to parse
	// for each of the 63 possible remainders.
	vals := b.buf
	for size := bulkRows / 2; size > 0; size /= 2 {
		if b.n&size == 0 {
			continue
		}
		s, err := b.prepare(size)
		if err == nil {
			_, err = s.ExecContext(b.ctx, vals[:size*b.ncol]...)
		}
		if err != nil {
			b.buf, b.n = b.buf[:0], 0
			return b.wrap(err)
		}
		vals = vals[size*b.ncol:]
	}
	b.buf, b.n = b.buf[:0], 0
	return nil
}

// prepare is the statement of a chunk of rows.
func (b *bulk) prepare(rows int) (*sql.Stmt, error) {
	if b.prep != nil {
		return b.prep(b.query(rows))
	}
	return b.tx.PrepareContext(b.ctx, b.query(rows))
}

func (b *bulk) wrap(err error) error {
	if err != nil && b.errWrap != nil {
		return b.errWrap(err)
	}
	return err
}

func (b *bulk) close() {
	if b.full != nil {
		b.full.Close()
	}
}
