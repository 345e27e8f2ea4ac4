// Package clobpg is the CLOB's key records on PostgreSQL: clobsql's store
// (the one-active-key rule is the same partial unique index) on a
// translating pgx handle (internal/pgsql), migrated under the migration lock.
package clobpg

import (
	"context"
	"database/sql"

	"pmx/internal/clob/clobsql"
	"pmx/internal/pgsql"
)

// New migrates the CLOB tables on db (a pgsql.SQL handle of at least two
// connections) and returns the store.
func New(ctx context.Context, db *sql.DB) (*clobsql.Store, error) {
	var s *clobsql.Store
	err := pgsql.Locked(ctx, db, func() (err error) {
		s, err = clobsql.New(ctx, db)
		return err
	})
	return s, err
}
