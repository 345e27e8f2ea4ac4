package clobhttp_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"pmx/internal/catalog/catalog"
	"pmx/internal/catalog/cataloghttp"
	"pmx/internal/catalog/catalogsql"
	"pmx/internal/clob/clobhttp"
	"pmx/internal/clob/clobsvc"
	"pmx/internal/clock"
	"pmx/internal/data/dataapi"
	"pmx/internal/data/ingest"
	"pmx/internal/data/sqlite"
	"pmx/internal/ratelimit"
)

// fullVenue is the venue as pmx serve wires it: the catalog (market A
// imported as a document), the data store and data service, the CLOB
// reading its markets from the catalog and feeding its fills, sets,
// resolutions and redemptions through the ingest pipeline, and the CLOB's
// operator routes on an admin server.
type fullVenue struct {
	*venueEnv
	db    *sqlite.DB
	cat   *httptest.Server
	admin *httptest.Server
	clk   *fixedClock
}

// newFullVenue opens the venue on dir (the CLOB journal) and path (the
// database file); more adjusts the CLOB service's options.
func newFullVenue(t *testing.T, dir, path string, more ...func(*clobsvc.Options)) *fullVenue {
	t.Helper()
	db, cs, p := openVenueStores(t, path)
	var events []catalog.Event
	if err := json.Unmarshal([]byte("["+catalogA+"]"), &events); err != nil {
		t.Fatal(err)
	}
	if err := p.ImportEvents(context.Background(), events); err != nil {
		t.Fatal(err)
	}
	clk := &fixedClock{t: time.Unix(now0, 0)}
	opts := append([]func(*clobsvc.Options){func(o *clobsvc.Options) {
		o.Markets, o.Ledger = clobsvc.CatalogMarkets(cs), p
	}}, more...)
	x := newExchangeGated(t, dir, clk, "enforce", nil, opts...)
	cat := httptest.NewServer(cataloghttp.NewHandler(cs, cataloghttp.Options{Live: venueLive(db, x.svc)}))
	t.Cleanup(cat.Close)
	data := httptest.NewServer(dataapi.New(dataapi.Options{Store: db, CursorKey: []byte("venue-test-cursor-key-0123456789"),
		Clock: clock.NewManual(time.Unix(now0+60, 0)), Limits: &ratelimit.Config{}}))
	t.Cleanup(data.Close)
	mux := http.NewServeMux()
	for pat, h := range clobhttp.AdminRoutes(x.svc) {
		mux.Handle(pat, h)
	}
	admin := httptest.NewServer(mux)
	t.Cleanup(admin.Close)
	return &fullVenue{venueEnv: &venueEnv{xenv: x, data: data}, db: db, cat: cat, admin: admin, clk: clk}
}

// openVenueStores opens the data store and the catalog on one database file
// at path, and the ingest pipeline that writes both, as pmx serve does.
func openVenueStores(t *testing.T, path string) (*sqlite.DB, *catalogsql.Store, *ingest.Pipeline) {
	t.Helper()
	db, err := sqlite.Open(path, sqlite.Options{Clock: func() time.Time { return time.Unix(now0, 0) }})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	pool, err := sqlite.OpenPool(path, 4)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { pool.Close() })
	cs, err := catalogsql.New(context.Background(), pool)
	if err != nil {
		t.Fatal(err)
	}
	p := &ingest.Pipeline{Data: db, Catalog: cs}
	return db, cs, p
}

// venueLive is the catalog's live source as pmx serve builds it.
func venueLive(db *sqlite.DB, svc *clobsvc.Service) catalog.LiveFields {
	l := &clobsvc.BookLive{Data: db}
	l.SetService(svc)
	return l
}

// op posts an operator command to the admin server.
func (v *fullVenue) op(t *testing.T, path, body string) reply {
	t.Helper()
	resp, err := http.Post(v.admin.URL+path, "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return reply{status: resp.StatusCode, body: b, header: resp.Header}
}

// get reads a JSON document from a server.
func getJSON(t *testing.T, url string, v any) int {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if err := json.Unmarshal(b, v); err != nil && resp.StatusCode == 200 {
		t.Fatalf("GET %s: %v: %s", url, err, b)
	}
	return resp.StatusCode
}

// eventuallyDoc polls url until ok accepts the decoded document; it fails
// after the deadline with the last answer.
func eventuallyDoc(t *testing.T, url string, within time.Duration, ok func(doc any) bool) any {
	t.Helper()
	var last any
	for deadline := time.Now().Add(within); ; time.Sleep(2 * time.Millisecond) {
		last = nil
		if getJSON(t, url, &last) == 200 && ok(last) {
			return last
		}
		if time.Now().After(deadline) {
			t.Fatalf("GET %s never matched within %v; last answer: %v", url, within, last)
		}
	}
}

// field reads a path of keys and indexes in a decoded document as text.
func field(doc any, path ...any) string {
	for _, p := range path {
		switch k := p.(type) {
		case string:
			m, _ := doc.(map[string]any)
			doc = m[k]
		case int:
			l, _ := doc.([]any)
			if k >= len(l) {
				return "<none>"
			}
			doc = l[k]
		}
	}
	return fmt.Sprint(doc)
}

func newVenuePaths(t *testing.T) (string, string) {
	return t.TempDir(), filepath.Join(t.TempDir(), "pmx.db")
}
