package sqlite

import (
	"context"
	"database/sql"
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
	buf     []any
	n       int
	errWrap func(error) error
}

func newBulk(ctx context.Context, tx *sql.Tx, head string, ncol int) *bulk {
	return &bulk{ctx: ctx, tx: tx, head: head, ncol: ncol,
		tuple: "(" + strings.TrimSuffix(strings.Repeat("?, ", ncol), ", ") + ")",
		buf:   make([]any, 0, ncol*bulkRows)}
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

// add buffers one row (exactly ncol values).
func (b *bulk) add(vals ...any) error {
	b.buf = append(b.buf, vals...)
	b.n++
	if b.n < bulkRows {
		return nil
	}
	if b.full == nil {
		s, err := b.tx.PrepareContext(b.ctx, b.query(bulkRows))
		if err != nil {
			return err
		}
		b.full = s
	}
	_, err := b.full.ExecContext(b.ctx, b.buf...)
	b.buf, b.n = b.buf[:0], 0
	return b.wrap(err)
}

// flush writes the buffered remainder.
func (b *bulk) flush() error {
	if b.n == 0 {
		return nil
	}
	_, err := b.tx.ExecContext(b.ctx, b.query(b.n), b.buf...)
	b.buf, b.n = b.buf[:0], 0
	return b.wrap(err)
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
