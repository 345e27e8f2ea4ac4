package pgsql

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"fmt"
	"strings"

	"github.com/jackc/pgx/v5"
)

// Copy writes rows into table's cols with COPY on c, inside whatever
// transaction c has open. With upsert each row replaces the row of the same
// primary key, as the stores' INSERT OR REPLACE does: the rows are copied
// into a temporary table of the same columns (dropped at commit) and merged
// with one INSERT ... ON CONFLICT DO UPDATE. Booleans go in as 0/1 and
// driver.Valuers as their values, as through the translating connection.
func Copy(ctx context.Context, c *sql.Conn, table string, cols []string, upsert bool, rows [][]any) error {
	if len(rows) == 0 {
		return nil
	}
	for _, r := range rows {
		for i, v := range r {
			switch x := v.(type) {
			case bool:
				r[i] = int64(0)
				if x {
					r[i] = int64(1)
				}
			case driver.Valuer:
				y, err := x.Value()
				if err != nil {
					return err
				}
				r[i] = y
			}
		}
	}
	return c.Raw(func(dc any) error {
		pc := dc.(*conn).c.Conn()
		target := table
		if upsert {
			key, ok := conflicts[table]
			if !ok {
				return fmt.Errorf("pgsql: copy: no primary key known for %s", table)
			}
			target = "pmx_copy_" + table
			// ON COMMIT DROP: the stage lives for this transaction only.
			if _, err := pc.Exec(ctx, `CREATE TEMP TABLE IF NOT EXISTS `+target+` ON COMMIT DROP AS SELECT `+
				strings.Join(cols, ", ")+` FROM `+table+` WITH NO DATA`); err != nil {
				return wrap(err)
			}
			defer func() { _, _ = pc.Exec(ctx, `TRUNCATE `+target) }()
			if _, err := pc.CopyFrom(ctx, pgx.Identifier{target}, cols, pgx.CopyFromRows(rows)); err != nil {
				return wrap(err)
			}
			set := make([]string, 0, len(cols))
			for _, col := range cols {
				if !strings.Contains(", "+key+", ", ", "+col+", ") {
					set = append(set, col+" = EXCLUDED."+col)
				}
			}
			list := strings.Join(cols, ", ")
			_, err := pc.Exec(ctx, `INSERT INTO `+table+` (`+list+`) SELECT `+list+` FROM `+target+
				` ON CONFLICT (`+key+`) DO UPDATE SET `+strings.Join(set, ", "))
			return wrap(err)
		}
		_, err := pc.CopyFrom(ctx, pgx.Identifier{target}, cols, pgx.CopyFromRows(rows))
		return wrap(err)
	})
}
