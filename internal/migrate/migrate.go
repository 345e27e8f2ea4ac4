// Package migrate applies a store's versioned SQL migrations, embedded in the
// binary, to a database/sql handle. Each store keeps its own version table, so
// several stores can share one database file without their schemas colliding.
package migrate

import (
	"context"
	"database/sql"
	"fmt"
	"io/fs"
	"sort"
	"strconv"
	"strings"
)

// Run applies, in version order, every file NNNN_name.sql at the root of
// files whose version is above the highest recorded in table (created if
// absent). Each migration and its version row commit in one transaction, so
// a crash leaves the schema at a whole version.
func Run(ctx context.Context, db *sql.DB, files fs.FS, table string) error {
	if _, err := db.ExecContext(ctx, `CREATE TABLE IF NOT EXISTS `+table+` (version INTEGER NOT NULL)`); err != nil {
		return err
	}
	var have int
	if err := db.QueryRowContext(ctx, `SELECT COALESCE(MAX(version), 0) FROM `+table).Scan(&have); err != nil {
		return err
	}
	names, err := fs.Glob(files, "*.sql")
	if err != nil {
		return err
	}
	sort.Strings(names)
	for _, name := range names {
		v, err := strconv.Atoi(strings.SplitN(name, "_", 2)[0])
		if err != nil {
			return fmt.Errorf("migrate: migration name %q has no version", name)
		}
		if v <= have {
			continue
		}
		body, err := fs.ReadFile(files, name)
		if err != nil {
			return err
		}
		if err := apply(ctx, db, table, name, string(body), v); err != nil {
			return err
		}
	}
	return nil
}

func apply(ctx context.Context, db *sql.DB, table, name, body string, v int) error {
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if _, err := tx.ExecContext(ctx, body); err != nil {
		return fmt.Errorf("migrate: %s: %w", name, err)
	}
	if _, err := tx.ExecContext(ctx, `INSERT INTO `+table+` (version) VALUES (?)`, v); err != nil {
		return err
	}
	return tx.Commit()
}
