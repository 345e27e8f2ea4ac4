package pgsql

import "testing"

func TestTranslate_RespellsSQLiteForPostgreSQL(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"SELECT a FROM t WHERE b = ? AND c > ?", "SELECT a FROM t WHERE b = $1 AND c > $2"},
		{"SELECT '?' , \"?\" -- ?\n, ?", "SELECT '?' , \"?\" -- ?\n, $1"},
		{"INSERT OR IGNORE INTO catalog_event_tags (event_id, tag_id) VALUES (?,?)",
			"INSERT INTO catalog_event_tags (event_id, tag_id) VALUES ($1,$2) ON CONFLICT DO NOTHING"},
		{"INSERT OR REPLACE INTO builders (code, name) VALUES (?, ?), (?, ?)",
			"INSERT INTO builders (code, name) VALUES ($1, $2), ($3, $4) ON CONFLICT (code) DO UPDATE SET name = EXCLUDED.name"},
		{"INSERT OR REPLACE INTO pnl_obs (wid, day, ts) VALUES (?, ?, ?)",
			"INSERT INTO pnl_obs (wid, day, ts) VALUES ($1, $2, $3) ON CONFLICT (wid, day) DO UPDATE SET ts = EXCLUDED.ts"},
		{"SELECT mid FROM markets WHERE question LIKE '%' || ? || '%'", "SELECT mid FROM markets WHERE question ILIKE '%' || $1 || '%'"},
		{"SELECT id FROM t LIMIT -1 OFFSET 5", "SELECT id FROM t LIMIT ALL OFFSET 5"},
		{"SELECT CAST(? AS INTEGER)", "SELECT CAST($1 AS BIGINT)"},
		{"WHERE instr(lower(e.title), lower(?)) > 0", "WHERE strpos(lower(e.title), lower($1)) > 0"},
		{"CREATE TABLE x (a INTEGER PRIMARY KEY, b TEXT NOT NULL, c BLOB, PRIMARY KEY (a)) WITHOUT ROWID;",
			`CREATE TABLE x (a BIGINT PRIMARY KEY, b TEXT COLLATE "C" NOT NULL, c BYTEA, PRIMARY KEY (a)) ;`},
		{"ALTER TABLE builders ADD COLUMN profile_image TEXT NOT NULL DEFAULT '';",
			`ALTER TABLE builders ADD COLUMN profile_image TEXT COLLATE "C" NOT NULL DEFAULT '';`},
		{"SELECT text FROM t", "SELECT text FROM t"}, // TEXT is a type only in schema statements
	} {
		got, err := Translate(c.in)
		if err != nil {
			t.Fatalf("%q: %v", c.in, err)
		}
		if got != c.want {
			t.Errorf("Translate(%q)\n got %q\nwant %q", c.in, got, c.want)
		}
	}
}

func TestTranslate_RefusesWhatItCannotRespell(t *testing.T) {
	for _, q := range []string{
		"INSERT OR REPLACE INTO unknown_table (a) VALUES (?)",
		"INSERT OR ROLLBACK INTO builders (code) VALUES (?)",
		"INSERT OR REPLACE INTO builders VALUES (?)",
	} {
		if got, err := Translate(q); err == nil {
			t.Errorf("Translate(%q) = %q, want an error", q, got)
		}
	}
}

func FuzzTranslate(f *testing.F) {
	f.Add("INSERT OR REPLACE INTO wallets (wid, address) VALUES (?, ?)")
	f.Add("SELECT 'a''b' -- c\n FROM t WHERE x LIKE ? LIMIT -1")
	f.Fuzz(func(t *testing.T, q string) {
		_, _ = Translate(q) // never panics
	})
}
