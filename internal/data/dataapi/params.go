package dataapi

import (
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"pmx/internal/amount"
)

// MaxListValues is the cap on distinct values of `condition`/`event_id` lists.
const MaxListValues = 20

// Query is a request's query string with every key in canonical form:
// camelCase folded to snake_case, then the route's aliases applied
// (conditionId → condition_id → condition). Parameters nobody asks for are
// ignored (every parameter of the contract is optional at the schema level,
// and clients send extras); `offset` is always a 400 (paging is cursor-only).
type Query struct {
	vals map[string][]string
}

// Aliases maps a snake_case spelling to the canonical parameter name.
type Aliases map[string]string

// commonAliases apply on every route.
var commonAliases = Aliases{"condition_id": "condition"}

// routeAliases are the named per-route aliases of data-api-v2.md §1.4.
var routeAliases = map[string]Aliases{
	"/v2/live-volume":     {"id": "event_id"},
	"/v2/builders/volume": {"time_period": "interval"},
	"/v2/user-pnl":        {"user_address": "user"},
	"/v2/tokens":          {"token_ids": "token_id"},
}

// ParseRequest is ParseQuery for a request, keyed by its path.
func ParseRequest(r *http.Request) (*Query, error) {
	return ParseQuery(r.URL.Path, r.URL.RawQuery)
}

// ParseQuery parses and canonicalises a raw query string for route (its
// path). Values keep their order of appearance across spellings.
func ParseQuery(route, rawQuery string) (*Query, error) {
	ra := routeAliases[route]
	q := &Query{vals: make(map[string][]string, 4)}
	for pair := range strings.SplitSeq(rawQuery, "&") {
		if pair == "" {
			continue
		}
		if strings.Contains(pair, ";") {
			return nil, Invalid("", "malformed query string")
		}
		k, v, _ := strings.Cut(pair, "=")
		k, err1 := url.QueryUnescape(k)
		v, err2 := url.QueryUnescape(v)
		if err1 != nil || err2 != nil {
			return nil, Invalid("", "malformed query string")
		}
		name := snake(k)
		if a, ok := ra[name]; ok {
			name = a
		} else if a, ok := commonAliases[name]; ok {
			name = a
		}
		q.vals[name] = append(q.vals[name], v)
	}
	if q.Sent("offset") {
		return nil, Invalid("offset", "offset is not supported: page with cursor (follow pagination.next_cursor)")
	}
	return q, nil
}

// snake folds camelCase to snake_case: sortBy → sort_by, eventId → event_id,
// conditionID → condition_id (an upper-case run is one word).
func snake(k string) string {
	upper := false
	for i := 0; i < len(k); i++ {
		if isUpper(k[i]) {
			upper = true
			break
		}
	}
	if !upper {
		return k
	}
	var b strings.Builder
	b.Grow(len(k) + 4)
	for i := 0; i < len(k); i++ {
		c := k[i]
		if isUpper(c) {
			if i > 0 && k[i-1] != '_' && (!isUpper(k[i-1]) || i+1 < len(k) && isLower(k[i+1])) {
				b.WriteByte('_')
			}
			c += 'a' - 'A'
		}
		b.WriteByte(c)
	}
	return b.String()
}

func isUpper(c byte) bool { return 'A' <= c && c <= 'Z' }
func isLower(c byte) bool { return 'a' <= c && c <= 'z' }

// Has reports whether the parameter was sent with a non-blank value.
func (q *Query) Has(name string) bool {
	for _, v := range q.vals[name] {
		if strings.TrimSpace(v) != "" {
			return true
		}
	}
	return false
}

// Sent reports whether the parameter was sent at all, even empty.
func (q *Query) Sent(name string) bool { return len(q.vals[name]) > 0 }

// Get returns the parameter's value, trimmed; "" when absent or blank. A
// parameter sent several times (under any spelling) must carry one value.
func (q *Query) Get(name string) (string, error) {
	vs := q.vals[name]
	if len(vs) == 0 {
		return "", nil
	}
	v := strings.TrimSpace(vs[0])
	for _, o := range vs[1:] {
		if strings.TrimSpace(o) != v {
			return "", Invalidf(name, "conflicting values for '%s'", name)
		}
	}
	return v, nil
}

// Cursor returns the cursor parameter ("" when absent).
func (q *Query) Cursor() (string, error) { return q.Get("cursor") }

// Limit parses `limit` as int32 in 0..max. Absent or 0 gives def (a zero-row
// page could never advance a walk); above max is a 400, never clamped.
func (q *Query) Limit(def, max int32) (int32, error) {
	s, err := q.Get("limit")
	if err != nil || s == "" {
		return def, err
	}
	n, err := strconv.ParseInt(s, 10, 32)
	if err != nil || n < 0 {
		return 0, Invalidf("limit", "limit must be an integer between 0 and %d", max)
	}
	if n > int64(max) {
		return 0, Invalidf("limit", "limit must be at most %d", max)
	}
	if n == 0 {
		return def, nil
	}
	return int32(n), nil
}

// Bool parses a boolean (true/false/1/0, any case); absent gives def.
func (q *Query) Bool(name string, def bool) (bool, error) {
	s, err := q.Get(name)
	if err != nil || s == "" {
		return def, err
	}
	switch strings.ToLower(s) {
	case "true", "1":
		return true, nil
	case "false", "0":
		return false, nil
	}
	return false, Invalidf(name, "%s must be true or false", name)
}

// Int64 parses an integer; ok is false when absent.
func (q *Query) Int64(name string) (v int64, ok bool, err error) {
	s, err := q.Get(name)
	if err != nil || s == "" {
		return 0, false, err
	}
	v, err = strconv.ParseInt(s, 10, 64)
	if err != nil {
		return 0, false, Invalidf(name, "%s must be an integer: %s", name, clip(s))
	}
	return v, true, nil
}

// Decimal parses a non-negative decimal amount (6 decimals); ok is false
// when absent.
func (q *Query) Decimal(name string) (v amount.Micro, ok bool, err error) {
	s, err := q.Get(name)
	if err != nil || s == "" {
		return 0, false, err
	}
	v, err = amount.Parse(s)
	if err != nil || v < 0 {
		return 0, false, Invalidf(name, "%s must be a non-negative number: %s", name, clip(s))
	}
	return v, true, nil
}

// List splits a comma-separated parameter (repeats concatenate), trims
// blanks, and dedupes preserving first appearance. No cap: see the typed
// list getters.
func (q *Query) List(name string) []string {
	var out []string
	var seen map[string]bool
	for _, v := range q.vals[name] {
		for part := range strings.SplitSeq(v, ",") {
			part = strings.TrimSpace(part)
			if part == "" || seen[part] {
				continue
			}
			if seen == nil {
				seen = map[string]bool{}
			}
			seen[part] = true
			out = append(out, part)
		}
	}
	return out
}

// Exclusive is a 400 when both parameters are present.
func (q *Query) Exclusive(a, b string) error {
	if q.Has(a) && q.Has(b) {
		return Invalidf(b, "'%s' and '%s' are mutually exclusive", a, b)
	}
	return nil
}

// clip bounds how much of a client's value an error message echoes.
func clip(s string) string {
	const n = 80
	if len(s) > n {
		return s[:n] + "…"
	}
	return s
}
