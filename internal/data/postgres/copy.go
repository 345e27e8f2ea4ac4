package postgres

import (
	"context"
	"database/sql"
	"fmt"
	"strings"

	"github.com/jackc/pgx/v5"

	"pmx/internal/pgsql"
)

// CopyTables moves every table of an embedded database file (src, a
// database/sql handle on it, already migrated to this binary's versions) into
// the migrated, empty PostgreSQL database at url, with COPY, in one
// transaction: the target has all of it or none of it. The migration
// version tables are the target's own. progress is called with rows copied
// so far and the total. Read nodes are told at commit (the ingest trigger).
func CopyTables(ctx context.Context, src *sql.DB, url string, progress func(done, total int64)) error {
	tables, err := srcTables(ctx, src)
	if err != nil {
		return err
	}
	var total int64
	counts := make([]int64, len(tables))
	for i, t := range tables {
		if err := src.QueryRowContext(ctx, `SELECT count(*) FROM `+t).Scan(&counts[i]); err != nil {
			return err
		}
		total += counts[i]
	}
	c, err := pgx.Connect(ctx, url)
	if err != nil {
		return &pgsql.Error{Err: err}
	}
	defer c.Close(context.Background())
	var applied int64
	if err := c.QueryRow(ctx, `SELECT applied FROM ingest WHERE id = 1`).Scan(&applied); err != nil {
		return fmt.Errorf("postgres: target not migrated (run 'pmx migrate'): %w", err)
	}
	var events int64
	if err := c.QueryRow(ctx, `SELECT count(*) FROM catalog_events`).Scan(&events); err != nil {
		return fmt.Errorf("postgres: target not migrated (run 'pmx migrate'): %w", err)
	}
	if applied != 0 || events != 0 {
		return fmt.Errorf("postgres: target is not empty (%d events applied, %d catalog events): copy into a fresh database", applied, events)
	}
	tx, err := c.Begin(ctx)
	if err != nil {
		return err
	}
	defer tx.Rollback(context.Background())
	var done int64
	for _, t := range tables {
		n, err := copyTable(ctx, src, tx, t, func(n int64) {
			if progress != nil {
				progress(done+n, total)
			}
		})
		if err != nil {
			return fmt.Errorf("postgres: copy %s: %w", t, err)
		}
		done += n
	}
	// COPY fires no UPDATE trigger: touch the watermark so read nodes refresh.
	if _, err := tx.Exec(ctx, `UPDATE ingest SET applied = applied WHERE id = 1`); err != nil {
		return err
	}
	if progress != nil {
		progress(total, total)
	}
	return tx.Commit(ctx)
}

// srcTables lists the file's tables but SQLite's own and the version tables.
func srcTables(ctx context.Context, src *sql.DB) ([]string, error) {
	rows, err := src.QueryContext(ctx, `SELECT name FROM sqlite_master WHERE type = 'table'
		AND name NOT LIKE 'sqlite_%' AND name NOT LIKE '%schema_version' ORDER BY name`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var n string
		if err := rows.Scan(&n); err != nil {
			return nil, err
		}
		out = append(out, n)
	}
	return out, rows.Err()
}

// copyTable replaces the target table's rows with the source's.
func copyTable(ctx context.Context, src *sql.DB, tx pgx.Tx, table string, progress func(int64)) (int64, error) {
	rows, err := src.QueryContext(ctx, `SELECT * FROM `+table)
	if err != nil {
		return 0, err
	}
	defer rows.Close()
	cols, err := rows.Columns()
	if err != nil {
		return 0, err
	}
	types := map[string]string{}
	trows, err := tx.Query(ctx, `SELECT column_name, data_type FROM information_schema.columns
		WHERE table_schema = current_schema() AND table_name = $1`, table)
	if err != nil {
		return 0, err
	}
	for trows.Next() {
		var c, t string
		if err := trows.Scan(&c, &t); err != nil {
			return 0, err
		}
		types[c] = t
	}
	if err := trows.Err(); err != nil {
		return 0, err
	}
	for _, c := range cols {
		if types[strings.ToLower(c)] == "" {
			return 0, fmt.Errorf("column %s is not in the target (schema versions differ?)", c)
		}
	}
	if _, err := tx.Exec(ctx, `DELETE FROM `+table); err != nil { // migrations' seed rows (ingest, catalog_meta)
		return 0, err
	}
	s := &rowSource{rows: rows, vals: make([]any, len(cols)), bytea: make([]bool, len(cols)), progress: progress}
	for i, c := range cols {
		s.bytea[i] = types[strings.ToLower(c)] == "bytea"
	}
	return tx.CopyFrom(ctx, pgx.Identifier{table}, cols, s)
}

// rowSource streams source rows into COPY.
type rowSource struct {
	rows     *sql.Rows
	vals     []any
	bytea    []bool
	n        int64
	progress func(int64)
	err      error
}

func (s *rowSource) Next() bool {
	if !s.rows.Next() {
		return false
	}
	ptrs := make([]any, len(s.vals))
	for i := range s.vals {
		ptrs[i] = &s.vals[i]
	}
	if s.err = s.rows.Scan(ptrs...); s.err != nil {
		return false
	}
	for i, v := range s.vals {
		if str, ok := v.(string); ok && s.bytea[i] {
			s.vals[i] = []byte(str)
		}
	}
	if s.n++; s.n%16384 == 0 {
		s.progress(s.n)
	}
	return true
}

func (s *rowSource) Values() ([]any, error) { return s.vals, nil }

func (s *rowSource) Err() error {
	if s.err != nil {
		return s.err
	}
	return s.rows.Err()
}
