package clobsql

import (
	"context"
	"database/sql"

	"pmx/internal/amount"
	"pmx/internal/clob/clob"
)

// BookTops is the clob_book_tops table: the writer publishes the book
// figures of its markets, read nodes read them (docs/postgres.md).
type BookTops struct{ db *sql.DB }

// NewBookTops uses db, whose clob_ tables are migrated (New or clobpg.New).
func NewBookTops(db *sql.DB) *BookTops { return &BookTops{db: db} }

// Write upserts tops and moves the version, in one transaction.
func (b *BookTops) Write(ctx context.Context, tops []clob.BookTop) error {
	tx, err := b.db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	for _, t := range tops {
		quoted := 0
		if t.Quoted {
			quoted = 1
		}
		if _, err := tx.ExecContext(ctx, `INSERT INTO clob_book_tops (condition_id, best_bid, best_ask, liquidity, tick, quoted)
			VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (condition_id) DO UPDATE SET best_bid = excluded.best_bid,
			best_ask = excluded.best_ask, liquidity = excluded.liquidity, tick = excluded.tick, quoted = excluded.quoted`,
			t.Cond, int64(t.BestBid), int64(t.BestAsk), int64(t.Liquidity), int64(t.Tick), quoted); err != nil {
			return err
		}
	}
	if _, err := tx.ExecContext(ctx, `UPDATE clob_book_meta SET version = version + 1 WHERE id = 1`); err != nil {
		return err
	}
	return tx.Commit()
}

// Version is the publish counter.
func (b *BookTops) Version(ctx context.Context) (int64, error) {
	var v int64
	err := b.db.QueryRowContext(ctx, `SELECT version FROM clob_book_meta WHERE id = 1`).Scan(&v)
	return v, err
}

// Read returns every row, keyed by condition id, and the version read
// before them (a publish in between shows as a newer version next time).
func (b *BookTops) Read(ctx context.Context) (int64, map[string]clob.BookTop, error) {
	v, err := b.Version(ctx)
	if err != nil {
		return 0, nil, err
	}
	rows, err := b.db.QueryContext(ctx, `SELECT condition_id, best_bid, best_ask, liquidity, tick, quoted FROM clob_book_tops`)
	if err != nil {
		return 0, nil, err
	}
	defer rows.Close()
	out := map[string]clob.BookTop{}
	for rows.Next() {
		var t clob.BookTop
		var bid, ask, liq, tick, quoted int64
		if err := rows.Scan(&t.Cond, &bid, &ask, &liq, &tick, &quoted); err != nil {
			return 0, nil, err
		}
		t.BestBid, t.BestAsk, t.Liquidity, t.Tick, t.Quoted = amount.Micro(bid), amount.Micro(ask), amount.Micro(liq), amount.Micro(tick), quoted != 0
		out[t.Cond] = t
	}
	return v, out, rows.Err()
}
