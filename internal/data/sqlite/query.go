package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"strconv"
	"strings"
	"time"
)

// walletID resolves an address; ok is false for a wallet never seen.
func (db *DB) walletID(ctx context.Context, addr string) (int64, bool, error) {
	var wid int64
	err := db.r.QueryRowContext(ctx, `SELECT wid FROM wallets WHERE address = ?`, addr).Scan(&wid)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, false, nil
	}
	return wid, err == nil, err
}

// where accumulates SQL conditions and their arguments.
type where struct {
	conds []string
	args  []any
}

func (w *where) add(cond string, args ...any) {
	w.conds = append(w.conds, cond)
	w.args = append(w.args, args...)
}

// in adds "col IN (?, …)" for a non-empty list.
func (w *where) in(col string, vals []int64) {
	var b strings.Builder
	b.WriteString(col)
	b.WriteString(" IN (")
	for i, v := range vals {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(strconv.FormatInt(v, 10)) // integers only: safe to inline, and the planner sees them
	}
	b.WriteString(")")
	w.conds = append(w.conds, b.String())
}

func (w *where) sql() string { return strings.Join(w.conds, " AND ") }

func rfc3339(ts int64) string { return time.Unix(ts, 0).UTC().Format(time.RFC3339) }

// endDate renders a market end date as YYYY-MM-DD (1970-01-01 when unknown).
func endDate(s string) string {
	if len(s) >= 10 {
		return s[:10]
	}
	return "1970-01-01"
}
