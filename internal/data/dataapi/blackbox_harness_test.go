package dataapi_test

// The black-box harness: a real SQLite store in t.TempDir(), data entering
// only as NDJSON ledger text (ledger.ParseAll + Store.Apply), a real HTTP
// server over dataapi.New with an injected clock.Manual for "now", and plain
// net/http requests. Helpers named MustXxx fail the test on any surprise.

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"pmx/internal/clock"
	"pmx/internal/data/dataapi"
	"pmx/internal/data/ledger"
	"pmx/internal/data/sqlite"
	"pmx/internal/data/store"
	"pmx/internal/ratelimit"
)

// Now is the harness's fixed "now": 2026-09-15T12:00:00Z. Ledgers place
// their events relative to it.
var Now = time.Date(2026, 9, 15, 12, 0, 0, 0, time.UTC)

const day = int64(86400)

// now is Now in epoch seconds.
var now = Now.Unix()

// Wallets and ids of the hand-built ledgers, by role. Placeholders {A}, {B},
// ... in ledger text expand to these.
var vars = map[string]string{
	"{A}": "0x00000000000000000000000000000000000000a1",
	"{B}": "0x00000000000000000000000000000000000000b2",
	"{C}": "0x00000000000000000000000000000000000000c3",
	"{D}": "0x00000000000000000000000000000000000000d4",
	// {M1}.. are market condition ids; {X1} combo condition ids.
	"{M1}": "0x" + strings.Repeat("0", 63) + "1",
	"{M2}": "0x" + strings.Repeat("0", 63) + "2",
	"{M3}": "0x" + strings.Repeat("0", 63) + "3",
	"{M4}": "0x" + strings.Repeat("0", 63) + "4",
	"{X1}": "0x03" + strings.Repeat("0", 59) + "1",
}

// V expands a placeholder ("{A}") to its value.
func V(k string) string {
	v, ok := vars[k]
	if !ok {
		panic("unknown placeholder " + k)
	}
	return v
}

// placeholder matches {T}, {T-n}, {T+n} (now ± n seconds) and {Hn} (the
// n-th transaction hash).
var placeholder = regexp.MustCompile(`\{(T([+-]\d+)?|H\d+)\}`)

// expand replaces every {A}-style placeholder of vars, and {T±n} and {Hn}.
func expand(s string) string {
	for k, v := range vars {
		s = strings.ReplaceAll(s, k, v)
	}
	return placeholder.ReplaceAllStringFunc(s, func(tok string) string {
		tok = tok[1 : len(tok)-1]
		if tok[0] == 'H' {
			n, _ := strconv.Atoi(tok[1:])
			return fmt.Sprintf("0x%064x", n)
		}
		off, _ := strconv.ParseInt(strings.TrimPrefix(tok[1:], "+"), 10, 64)
		return strconv.FormatInt(now+off, 10)
	})
}

// World is one test's stack: store, clock and server.
type World struct {
	t     testing.TB
	DB    *sqlite.DB
	Clock *clock.Manual
	Srv   *httptest.Server
	Svc   *dataapi.Service
}

// generous is a per-client allowance no functional test reaches, so only the
// overload tests (which configure their own) ever see a 429 from it.
func generous() *ratelimit.Config {
	return &ratelimit.Config{Rules: []ratelimit.Rule{{Scope: "all", Limit: 1 << 30, Window: time.Second,
		Match: ratelimit.Match{Prefixes: []string{"/"}}}}}
}

// MustWorld opens a fresh store and serves it. tune may adjust the options
// (Store, Clock and CursorKey are set already).
// Tests run in parallel: each world is private.
func MustWorld(t testing.TB, tune ...func(*dataapi.Options)) *World {
	t.Helper()
	if tt, ok := t.(*testing.T); ok {
		tt.Parallel()
	}
	db, err := openStore(t, sqlite.Options{Clock: func() time.Time { return Now }})
	if err != nil {
		t.Fatal(err)
	}
	clock := clock.NewManual(Now)
	o := dataapi.Options{Store: db, CursorKey: []byte("blackbox-cursor-secret-0123456789"), Clock: clock, Limits: generous()}
	for _, f := range tune {
		f(&o)
	}
	svc := dataapi.New(o)
	srv := httptest.NewServer(svc)
	t.Cleanup(func() { srv.Close(); db.Close() })
	return &World{t: t, DB: db, Clock: clock, Srv: srv, Svc: svc}
}

// MustApply parses ledger text (after placeholder expansion) and applies it
// as one batch.
func (w *World) MustApply(ndjson string) {
	w.t.Helper()
	evs, err := ledger.ParseAll(strings.NewReader(expand(ndjson)))
	if err != nil {
		w.t.Fatalf("ledger: %v\n%s", err, expand(ndjson))
	}
	if _, err := w.DB.Apply(context.Background(), evs); err != nil {
		w.t.Fatalf("apply: %v", err)
	}
}

// Resp is one answer.
type Resp struct {
	Status int
	Header http.Header
	Body   []byte
}

// Do sends method path (path includes the query; placeholders expanded).
func (w *World) Do(method, path string) *Resp {
	w.t.Helper()
	req, err := http.NewRequest(method, w.Srv.URL+expand(path), nil)
	if err != nil {
		w.t.Fatal(err)
	}
	res, err := w.Srv.Client().Do(req)
	if err != nil {
		w.t.Fatal(err)
	}
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	if err != nil {
		w.t.Fatal(err)
	}
	return &Resp{Status: res.StatusCode, Header: res.Header, Body: b}
}

// Get sends GET path.
func (w *World) Get(path string) *Resp { w.t.Helper(); return w.Do(http.MethodGet, path) }

// MustGet expects 200 and decodes the body into dst (if non-nil).
func (w *World) MustGet(path string, dst any) *Resp {
	w.t.Helper()
	r := w.Get(path)
	if r.Status != http.StatusOK {
		w.t.Fatalf("GET %s: status %d: %s", expand(path), r.Status, r.Body)
	}
	MustTraceHeader(w.t, r)
	if dst != nil {
		if err := json.Unmarshal(r.Body, dst); err != nil {
			w.t.Fatalf("GET %s: decode: %v\n%s", path, err, r.Body)
		}
	}
	return r
}

// ErrBody is the contract's error body.
type ErrBody struct {
	Error     string  `json:"error"`
	Code      string  `json:"code"`
	Retryable *bool   `json:"retryable"`
	TraceID   string  `json:"trace_id"`
	Parameter *string `json:"parameter"`
}

// MustTraceHeader checks x-trace-id is present.
func MustTraceHeader(t testing.TB, r *Resp) string {
	t.Helper()
	id := r.Header.Get("x-trace-id")
	if id == "" {
		t.Fatalf("no x-trace-id header (status %d)", r.Status)
	}
	return id
}

// MustError expects an error answer with the status and code, the trace id
// equal to the header, the parameter (when param != "-"; "" = absent) and a
// message containing msg.
func (w *World) MustError(path string, status int, code, param, msg string) ErrBody {
	w.t.Helper()
	r := w.Get(path)
	return MustErrorResp(w.t, r, path, status, code, param, msg)
}

// MustErrorResp is MustError on an answer already received.
func MustErrorResp(t testing.TB, r *Resp, path string, status int, code, param, msg string) ErrBody {
	t.Helper()
	if r.Status != status {
		t.Fatalf("%s: status %d, want %d: %s", path, r.Status, status, r.Body)
	}
	var raw map[string]any
	if err := json.Unmarshal(r.Body, &raw); err != nil {
		t.Fatalf("%s: error body is not JSON: %s", path, r.Body)
	}
	for _, k := range []string{"error", "code", "retryable", "trace_id"} {
		if _, ok := raw[k]; !ok {
			t.Errorf("%s: error body lacks %q: %s", path, k, r.Body)
		}
	}
	var e ErrBody
	_ = json.Unmarshal(r.Body, &e)
	if e.Code != code {
		t.Errorf("%s: code %q, want %q (%s)", path, e.Code, code, r.Body)
	}
	if id := MustTraceHeader(t, r); e.TraceID != id {
		t.Errorf("%s: trace_id %q != x-trace-id %q", path, e.TraceID, id)
	}
	if param != "-" {
		got := ""
		if e.Parameter != nil {
			got = *e.Parameter
		}
		if got != param {
			t.Errorf("%s: parameter %q, want %q (%s)", path, got, param, r.Body)
		}
	}
	if !strings.Contains(e.Error, msg) {
		t.Errorf("%s: message %q does not contain %q", path, e.Error, msg)
	}
	if ct := r.Header.Get("Content-Type"); !strings.HasPrefix(ct, "application/json") {
		t.Errorf("%s: content-type %q", path, ct)
	}
	return e
}

// Pagination is the wire page object.
type Pagination struct {
	Limit      *int    `json:"limit"`
	Offset     *int    `json:"offset"`
	HasMore    *bool   `json:"has_more"`
	NextCursor *string `json:"next_cursor"`
}

// Page is a paged answer with raw rows.
type Page struct {
	Data       []map[string]any `json:"data"`
	Pagination *Pagination      `json:"pagination"`
}

// MustPage fetches one page and checks the page object's invariants.
func (w *World) MustPage(path string) Page {
	w.t.Helper()
	var p Page
	w.MustGet(path, &p)
	if p.Data == nil {
		w.t.Fatalf("%s: data is not a list", path)
	}
	pg := p.Pagination
	if pg == nil || pg.Limit == nil || pg.Offset == nil || pg.HasMore == nil {
		w.t.Fatalf("%s: incomplete pagination: %+v", path, pg)
	}
	if *pg.HasMore != (pg.NextCursor != nil) {
		w.t.Fatalf("%s: has_more=%v but next_cursor=%v", path, *pg.HasMore, pg.NextCursor)
	}
	if len(p.Data) > *pg.Limit {
		w.t.Fatalf("%s: %d rows over limit %d", path, len(p.Data), *pg.Limit)
	}
	return p
}

// MustWalk follows next_cursor from path (which has its filters and limit)
// to the end, re-sending extra (the anchors/filters) with each cursor, and
// returns every row in order. It checks the display offsets advance by the
// page sizes and the page size sticks.
func (w *World) MustWalk(path, extra string) []map[string]any {
	w.t.Helper()
	var rows []map[string]any
	p := w.MustPage(path)
	limit, base := *p.Pagination.Limit, *p.Pagination.Offset // base: a walk may start from a cursor
	for pages := 0; ; pages++ {
		if *p.Pagination.Offset != base+len(rows) {
			w.t.Fatalf("%s: page %d offset %d, want %d", path, pages, *p.Pagination.Offset, base+len(rows))
		}
		if *p.Pagination.Limit != limit {
			w.t.Fatalf("%s: page %d limit %d, want %d", path, pages, *p.Pagination.Limit, limit)
		}
		rows = append(rows, p.Data...)
		if p.Pagination.NextCursor == nil {
			return rows
		}
		if pages > 10_000 {
			w.t.Fatalf("%s: walk does not end", path)
		}
		route, _, _ := strings.Cut(path, "?")
		next := route + "?cursor=" + url.QueryEscape(*p.Pagination.NextCursor)
		if extra != "" {
			next += "&" + extra
		}
		p = w.MustPage(next)
	}
}

// Data decodes {"data": ...} of a 200.
func (w *World) Data(path string) map[string]any {
	w.t.Helper()
	var env struct {
		Data map[string]any `json:"data"`
	}
	w.MustGet(path, &env)
	return env.Data
}

// col extracts one field of every row as text (numbers in shortest form).
func col(rows []map[string]any, k string) []string {
	out := make([]string, len(rows))
	for i, r := range rows {
		out[i] = str(r[k])
	}
	return out
}

// str renders a decoded JSON value as text: strings as-is, numbers in
// shortest form, null as "null".
func str(v any) string {
	switch x := v.(type) {
	case nil:
		return "null"
	case string:
		return x
	case float64:
		b, _ := json.Marshal(x)
		return string(b)
	default:
		b, _ := json.Marshal(x)
		return string(b)
	}
}

// MustEqualRows compares a field of rows to want, in order.
func MustEqualRows(t testing.TB, what string, rows []map[string]any, k string, want ...string) {
	t.Helper()
	if got := col(rows, k); !slices.Equal(got, want) {
		t.Fatalf("%s: %s = %v, want %v", what, k, got, want)
	}
}

// MustFields checks row r's fields (named) against want values (as text).
func MustFields(t testing.TB, what string, r map[string]any, want map[string]string) {
	t.Helper()
	keys := make([]string, 0, len(want))
	for k := range want {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		v, ok := r[k]
		if !ok {
			t.Errorf("%s: no field %q", what, k)
			continue
		}
		if got := str(v); got != want[k] {
			t.Errorf("%s: %s = %s, want %s", what, k, got, want[k])
		}
	}
}

// find returns the row whose field k equals v.
func find(t testing.TB, rows []map[string]any, k, v string) map[string]any {
	t.Helper()
	for _, r := range rows {
		if str(r[k]) == v {
			return r
		}
	}
	t.Fatalf("no row with %s=%s among %d rows", k, v, len(rows))
	return nil
}

var _ = store.NoOutcome
