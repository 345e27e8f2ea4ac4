// Package catalogpg is the catalog store on PostgreSQL: catalogsql's store
// (same queries, same generation row that invalidates every node's decoded
// cache) on a translating pgx handle (internal/pgsql), its migrations run
// under the migration lock so nodes starting together do not race.
package catalogpg

import (
	"context"
	"database/sql"

	"pmx/internal/catalog/catalogsql"
	"pmx/internal/pgsql"
)

// New migrates the catalog tables on db (a pgsql.SQL handle of at least two
// connections) and returns the store.
func New(ctx context.Context, db *sql.DB) (*catalogsql.Store, error) {
	var s *catalogsql.Store
	err := pgsql.Locked(ctx, db, func() (err error) {
		s, err = catalogsql.New(ctx, db)
		return err
	})
	return s, err
}
