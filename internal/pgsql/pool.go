package pgsql

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
)

// IsURL tells a PostgreSQL connection string from a data directory.
func IsURL(s string) bool {
	return strings.HasPrefix(s, "postgres://") || strings.HasPrefix(s, "postgresql://")
}

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

// migrateLockKey serializes migrations of every pmx store on one database.
const migrateLockKey = 0x706d78_00_00

// Locked runs f holding the migration lock. migrate.Run takes a pool, so the
// lock is a session lock on a connection set aside for its duration; f's own
// statements run on other connections of db (it needs at least two).
func Locked(ctx context.Context, db *sql.DB, f func() error) error {
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
