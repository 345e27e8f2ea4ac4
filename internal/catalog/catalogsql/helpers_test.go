package catalogsql_test

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"pmx/internal/catalog/catalog"
	"pmx/internal/catalog/cataloghttp"
	"pmx/internal/catalog/catalogsql"
	"pmx/internal/data/ledger"

	"pmx/internal/data/sqlite"
	"pmx/internal/pgsql/pgtest"
)

// env is a catalog listener over a real SQLite file, seeded with the full
// production-format fixture and a small demo-like world from ledger lines.
type env struct {
	srv   *httptest.Server
	store *catalogsql.Store
	db    *sql.DB
	live  *mutableLive
}

// mutableLive stands in for the data store: tests change it as if a trade
// had been ingested.
// Its generation moves on every set, so the handler's response cache is
// exercised by every route test.
type mutableLive struct {
	mu  sync.Mutex
	m   catalog.StaticLive
	gen uint64
}

func (l *mutableLive) LiveGeneration() uint64 {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.gen
}

func (l *mutableLive) Live(ctx context.Context, ids []string) (map[string]catalog.Live, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.m.Live(ctx, ids)
}

func (l *mutableLive) set(cond string, v catalog.Live) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.m[cond] = v
	l.gen++
}

func openDB(t testing.TB) *sql.DB {
	t.Helper()
	// The pool pmx serve opens (cmd/pmx openStores), so tests run the
	// production connection settings.
	if pgtest.Store() == "postgres" { // the same suite on PostgreSQL (scripts/test.sh)
		return pgtest.SQL(t, 4)
	}
	db, err := sqlite.OpenPool(filepath.Join(t.TempDir(), "pmx.db"), 4)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

func newEnv(t testing.TB) *env {
	t.Helper()
	db := openDB(t)
	st, err := catalogsql.New(context.Background(), db)
	if err != nil {
		t.Fatal(err)
	}
	live := &mutableLive{m: catalog.StaticLive{}}
	mux := http.NewServeMux()
	mux.Handle("/", cataloghttp.NewHandler(st, cataloghttp.Options{Live: live}))
	mux.Handle("/admin/catalog", cataloghttp.ImportHandler(st))
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	e := &env{srv: srv, store: st, db: db, live: live}
	e.importFile(t, "testdata/event_full.json")
	for _, ev := range demoMarkets() {
		if err := st.UpsertFromLedgerMarket(context.Background(), ev); err != nil {
			t.Fatal(err)
		}
	}
	return e
}

func (e *env) importFile(t testing.TB, name string) {
	t.Helper()
	body, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := http.Post(e.srv.URL+"/admin/catalog", "application/json", bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != 200 {
		b, _ := io.ReadAll(resp.Body)
		t.Fatalf("import: %d %s", resp.StatusCode, b)
	}
}

func bp(b bool) *bool { return &b }

func cond(b byte) string {
	s := "0x"
	for range 32 {
		s += string("0123456789abcdef"[b>>4]) + string("0123456789abcdef"[b&15])
	}
	return s
}

// demoMarkets: event 101 (Crypto, two markets), 102 (Sports, closed), 103
// (Crypto, one market with an explicit market id).
func demoMarkets() []ledger.Event {
	m := func(c byte, ev int64, slug, evSlug, title, cat string, toks []string, closed bool, end string) ledger.Event {
		return ledger.Event{Kind: ledger.KindMarket, ConditionID: cond(c), Question: title + " " + slug + "?",
			Slug: slug, EventID: ev, EventSlug: evSlug, EventTitle: title, Category: cat,
			Outcomes: []string{"Yes", "No"}, TokenIDs: toks, EndDate: end, Icon: "https://img.example/" + slug + ".png",
			Active: bp(true), Closed: bp(closed)}
	}
	x := m(0x13, 103, "eth-5k", "eth-2026", "ETH above 5k", "Crypto", []string{"501", "502"}, false, "2026-10-01T00:00:00Z")
	x.MarketID = 42
	return []ledger.Event{
		m(0x11, 101, "btc-100k", "btc-2026", "Bitcoin price", "Crypto", []string{"101", "102"}, false, "2026-12-31T00:00:00Z"),
		m(0x12, 101, "btc-150k", "btc-2026", "Bitcoin price", "Crypto", []string{"103", "104"}, false, "2026-12-31T00:00:00Z"),
		m(0x21, 102, "finals", "nba-finals", "NBA finals", "Sports", []string{"201", "202"}, true, "2026-06-30T00:00:00Z"),
		x,
	}
}

// get fetches path and decodes JSON into out, returning the status.
func (e *env) get(t testing.TB, path string, out any) int {
	t.Helper()
	resp, err := http.Get(e.srv.URL + path)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	if ct := resp.Header.Get("Content-Type"); ct != "application/json" {
		t.Fatalf("GET %s: content type %q", path, ct)
	}
	if out != nil {
		dec := json.NewDecoder(bytes.NewReader(b))
		dec.UseNumber()
		if err := dec.Decode(out); err != nil {
			t.Fatalf("GET %s: %v in %s", path, err, b)
		}
	}
	return resp.StatusCode
}

func newRecorder() *httptest.ResponseRecorder { return httptest.NewRecorder() }

func mustReq(path string) *http.Request { return httptest.NewRequest(http.MethodGet, path, nil) }
