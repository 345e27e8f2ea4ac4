// Package catalogsql stores the catalog (events, markets, tags, series) in
// SQLite on a *sql.DB it is handed (the data store's database), with its own
// migrations and version table so the two schemas never collide. Every
// table is prefixed catalog_.
package catalogsql

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
// catalog_schema_version.
func migrateDB(ctx context.Context, db *sql.DB) error {
	files, err := fs.Sub(migrations, "migrations")
	if err != nil {
		return err
	}
	return migrate.Run(ctx, db, files, "catalog_schema_version")
}
