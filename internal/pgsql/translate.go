package pgsql

import (
	"fmt"
	"strconv"
	"strings"
)

// The stores' SQL is the SQLite spelling of statements both databases agree
// on. translate respells it for PostgreSQL; what it cannot respell is an
// error, never a guess:
//
//   - ? placeholders become $1, $2, ...;
//   - INSERT OR IGNORE becomes INSERT ... ON CONFLICT DO NOTHING, and
//     INSERT OR REPLACE INTO t (cols) an upsert on t's primary key (conflicts
//     lists them) that sets every other listed column;
//   - LIKE is ILIKE (SQLite's LIKE ignores ASCII case); LIMIT -1 is LIMIT ALL;
//     instr(a, b) is strpos(a, b);
//   - INTEGER is BIGINT (SQLite integers are 64-bit; CAST(? AS INTEGER) types
//     a parameter PostgreSQL cannot infer); in schema statements (CREATE/ALTER
//     TABLE) BLOB is BYTEA, TEXT sorts bytewise (COLLATE "C",
//     as SQLite's BINARY) and WITHOUT ROWID is dropped.
//
// String literals, quoted identifiers and -- comments pass through as they are.

// conflicts is the primary key of every table written with INSERT OR REPLACE.
var conflicts = map[string]string{
	"markets":               "mid",
	"tokens":                "tid",
	"wallets":               "wid",
	"positions":             "wid, tid",
	"combo_positions":       "wid, tid",
	"pnl_obs":               "wid, day",
	"builders":              "code",
	"catalog_market_tokens": "token_id",
}

type token struct {
	text string
	word bool // an identifier or keyword (compared case-insensitively)
}

// lex splits q into words, single characters and opaque runs (literals,
// quoted identifiers, comments, whitespace).
func lex(q string) []token {
	var out []token
	for i := 0; i < len(q); {
		c := q[i]
		j := i + 1
		switch {
		case c == '\'' || c == '"':
			for j < len(q) && q[j] != c {
				j++
			}
			j = min(j+1, len(q))
		case c == '-' && j < len(q) && q[j] == '-':
			for j < len(q) && q[j] != '\n' {
				j++
			}
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			for j < len(q) && (q[j] == ' ' || q[j] == '\t' || q[j] == '\n' || q[j] == '\r') {
				j++
			}
		case isWord(c):
			for j < len(q) && isWord(q[j]) {
				j++
			}
			out = append(out, token{q[i:j], true})
			i = j
			continue
		}
		out = append(out, token{q[i:j], false})
		i = j
	}
	return out
}

func isWord(c byte) bool {
	return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}

// Translate respells one SQLite statement (or a script of them, for
// migrations) for PostgreSQL.
func Translate(q string) (string, error) {
	toks := lex(q)
	ddl := false
	for i, t := range toks {
		if t.word && (strings.EqualFold(t.text, "TABLE")) && i >= 2 {
			if p := prevWord(toks, i); strings.EqualFold(p, "CREATE") || strings.EqualFold(p, "ALTER") {
				ddl = true
			}
		}
	}
	var b strings.Builder
	b.Grow(len(q) + 16)
	n := 0
	var suffix string // appended at the end of the INSERT statement
	for i := 0; i < len(toks); i++ {
		t := toks[i]
		if !t.word {
			switch {
			case t.text == "?":
				n++
				b.WriteString("$" + strconv.Itoa(n))
			case t.text == ";" && suffix != "":
				b.WriteString(suffix + ";")
				suffix = ""
			case t.text == "-" && strings.EqualFold(prevWord(toks, i), "LIMIT") && i+1 < len(toks) && toks[i+1].text == "1":
				b.WriteString("ALL")
				i++
			default:
				b.WriteString(t.text)
			}
			continue
		}
		switch u := strings.ToUpper(t.text); {
		case u == "INSERT" && nextWordIs(toks, i, "OR"):
			k := nextWord(toks, i)    // OR
			mode := nextWord(toks, k) // IGNORE / REPLACE
			into := nextWord(toks, mode)
			table := nextWord(toks, into)
			if into < 0 || table < 0 || !strings.EqualFold(toks[into].text, "INTO") {
				return "", fmt.Errorf("postgres: cannot translate INSERT OR: %.80q", q)
			}
			switch strings.ToUpper(toks[mode].text) {
			case "IGNORE":
				suffix = " ON CONFLICT DO NOTHING"
			case "REPLACE":
				s, err := upsert(toks, table)
				if err != nil {
					return "", err
				}
				suffix = s
			default:
				return "", fmt.Errorf("postgres: cannot translate INSERT OR %s", toks[mode].text)
			}
			b.WriteString("INSERT")
			i = mode // the "INTO" and the rest follow unchanged
		case u == "INSTR" && i+1 < len(toks) && toks[i+1].text == "(":
			b.WriteString("strpos")
		case u == "LIKE":
			b.WriteString("ILIKE")
		case u == "INTEGER":
			b.WriteString("BIGINT")
		case ddl && u == "BLOB":
			b.WriteString("BYTEA")
		case ddl && u == "TEXT":
			b.WriteString(`TEXT COLLATE "C"`)
		case ddl && u == "WITHOUT" && nextWordIs(toks, i, "ROWID"):
			i = nextWord(toks, i)
		default:
			b.WriteString(t.text)
		}
	}
	b.WriteString(suffix)
	return b.String(), nil
}

// upsert builds the ON CONFLICT clause of INSERT OR REPLACE INTO toks[table] (cols).
func upsert(toks []token, table int) (string, error) {
	name := strings.ToLower(toks[table].text)
	pk, ok := conflicts[name]
	if !ok {
		return "", fmt.Errorf("postgres: INSERT OR REPLACE into %s: primary key unknown (translate.go conflicts)", name)
	}
	i := table + 1
	for i < len(toks) && toks[i].text != "(" && !toks[i].word {
		i++
	}
	if i == len(toks) || toks[i].text != "(" {
		return "", fmt.Errorf("postgres: INSERT OR REPLACE into %s needs a column list", name)
	}
	keys := map[string]bool{}
	for _, k := range strings.Split(pk, ", ") {
		keys[k] = true
	}
	var set []string
	for i++; i < len(toks) && toks[i].text != ")"; i++ {
		if c := strings.ToLower(toks[i].text); toks[i].word && !keys[c] {
			set = append(set, c+" = EXCLUDED."+c)
		}
	}
	if len(set) == 0 {
		return " ON CONFLICT (" + pk + ") DO NOTHING", nil
	}
	return " ON CONFLICT (" + pk + ") DO UPDATE SET " + strings.Join(set, ", "), nil
}

func nextWord(toks []token, i int) int {
	if i < 0 {
		return -1
	}
	for j := i + 1; j < len(toks); j++ {
		if toks[j].word {
			return j
		}
		if strings.TrimSpace(toks[j].text) != "" {
			return -1
		}
	}
	return -1
}

func nextWordIs(toks []token, i int, w string) bool {
	j := nextWord(toks, i)
	return j >= 0 && strings.EqualFold(toks[j].text, w)
}

func prevWord(toks []token, i int) string {
	for j := i - 1; j >= 0; j-- {
		if toks[j].word {
			return toks[j].text
		}
		if strings.TrimSpace(toks[j].text) != "" && !strings.HasPrefix(toks[j].text, "--") {
			return ""
		}
	}
	return ""
}
