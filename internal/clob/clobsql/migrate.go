// Package clobsql stores the CLOB's records (for now API keys) in SQLite on a
// *sql.DB it is handed (the data store's database file), with its own
// migrations and version table. Every table is prefixed clob_.
package clobsql

import (
	"context"
	"database/sql"
	"embed"
	"io/fs"

	"pmx/internal/migrate"
)

//go:embed migrations/*.sql
var migrations embed.FS

// migrateDB applies the embedded migrations not yet recorded in
// clob_schema_version.
func migrateDB(ctx context.Context, db *sql.DB) error {
	files, err := fs.Sub(migrations, "migrations")
	if err != nil {
		return err
	}
	return migrate.Run(ctx, db, files, "clob_schema_version")
}
