package postgres

import (
	"context"
	"log/slog"
	"time"

	"github.com/jackc/pgx/v5"
)

// follow keeps a read node's in-memory catalog current: it LISTENs on
// pmx_data (the ingest trigger notifies at every writer commit) and
// refreshes on each notification. After (re)connecting it refreshes once, so
// a notification missed while disconnected is never lost; the bound on
// staleness is one notification's delivery plus one catalog load, or the
// reconnect backoff (at most 1 s) while the server is unreachable.
func (db *DB) follow(ctx context.Context, url string) {
	defer close(db.done)
	backoff := 50 * time.Millisecond
	for ctx.Err() == nil {
		err := db.listen(ctx, url)
		if ctx.Err() != nil {
			return
		}
		slog.Warn("postgres: read node lost its notification connection", "err", err)
		select {
		case <-ctx.Done():
			return
		case <-time.After(backoff):
		}
		backoff = min(2*backoff, time.Second)
	}
}

func (db *DB) listen(ctx context.Context, url string) error {
	c, err := pgx.Connect(ctx, url)
	if err != nil {
		return err
	}
	defer c.Close(context.Background())
	if _, err := c.Exec(ctx, "LISTEN pmx_data"); err != nil {
		return err
	}
	if err := db.Refresh(ctx); err != nil {
		return err
	}
	for {
		if _, err := c.WaitForNotification(ctx); err != nil {
			return err
		}
		if err := db.Refresh(ctx); err != nil {
			return err
		}
	}
}
