package catalogsql_test

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"testing"

	"pmx/internal/amount"
	"pmx/internal/catalog/catalog"
	"pmx/internal/catalog/cataloghttp"
	"pmx/internal/data/ledger"
)

// cachePaths cover every cached route shape, with query orders that
// canonicalise to one key and some that do not.
var cachePaths = []string{
	"/events?limit=20", "/events?offset=1&limit=2", "/events?limit=2&offset=1", "/events?order=volume&ascending=false",
	"/events/keyset?limit=2", "/events/keyset?limit=20&tag_slug=crypto", "/events?include_markets=false",
	"/events/101", "/events/103", "/events/101/tags", "/events/slug/btc-2026", "/events/999",
	"/markets?limit=20", "/markets/keyset?limit=2", "/markets?id=42&id=1", "/markets?id=1&id=42", "/markets/42",
	"/markets/slug/eth-5k", "/markets/42/tags", "/markets?volume_num_min=100", "/markets/abc",
	"/tags", "/tags/1", "/series", "/events?limit=-1",
}

// snapshot requests every path twice from h (the second answer is a cache
// hit when h caches) and returns status and body per path.
func snapshot(t *testing.T, h http.Handler) map[string]string {
	t.Helper()
	out := map[string]string{}
	for _, p := range cachePaths {
		for i := range 2 {
			w := httptest.NewRecorder()
			h.ServeHTTP(w, httptest.NewRequest(http.MethodGet, p, nil))
			got := fmt.Sprintf("%d %s %s", w.Code, w.Header().Get("Content-Type"), w.Body.Bytes())
			if i == 1 && got != out[p] {
				t.Fatalf("%s: second answer differs from the first:\n%s\n%s", p, out[p], got)
			}
			out[p] = got
			if cl := w.Header().Get("Content-Length"); cl != "" && cl != fmt.Sprint(w.Body.Len()) {
				t.Fatalf("%s: Content-Length %s for %d bytes", p, cl, w.Body.Len())
			}
		}
	}
	return out
}

// TestResponseCacheMatchesUncached: a caching handler and one with the cache
// off answer byte for byte the same, before and after imports, ledger
// market lines and live-figure changes (as after a trade).
func TestResponseCacheMatchesUncached(t *testing.T) {
	e := newEnv(t)
	cached := cataloghttp.NewHandler(e.store, cataloghttp.Options{Live: e.live})
	plain := cataloghttp.NewHandler(e.store, cataloghttp.Options{Live: e.live, ResponseCacheBytes: -1})
	mic := func(s string) *amount.Micro { v := amount.MustParse(s); return &v }
	steps := []struct {
		name string
		do   func()
	}{
		{"initial", func() {}},
		{"trade", func() {
			e.live.set(cond(0x13), catalog.Live{Volume: mic("125.5"), Volume24hr: mic("25"), LastTradePrice: mic("0.62"),
				OutcomePrices: []amount.Micro{amount.MustParse("0.62"), amount.MustParse("0.38")}})
		}},
		{"second trade", func() { e.live.set(cond(0x11), catalog.Live{Volume: mic("7")}) }},
		{"ledger market", func() {
			ev := demoMarkets()[0]
			ev.Question, ev.Slug = "Renamed?", "btc-100k-renamed"
			if err := e.store.UpsertFromLedgerMarket(context.Background(), ev); err != nil {
				t.Fatal(err)
			}
		}},
		{"new event", func() {
			ev := ledger.Event{Kind: ledger.KindMarket, ConditionID: cond(0x31), Question: "New?", Slug: "new-m",
				EventID: 104, EventSlug: "new-ev", EventTitle: "New", Category: "Crypto", Outcomes: []string{"Yes", "No"},
				TokenIDs: []string{"601", "602"}, Active: bp(true), Closed: bp(false)}
			if err := e.store.UpsertFromLedgerMarket(context.Background(), ev); err != nil {
				t.Fatal(err)
			}
		}},
		{"import", func() { e.importFile(t, "testdata/event_full.json") }},
	}
	prev := map[string]string{}
	changed := 0
	for _, s := range steps {
		s.do()
		want := snapshot(t, plain)
		got := snapshot(t, cached)
		for _, p := range cachePaths {
			if got[p] != want[p] {
				t.Fatalf("after %s, %s: cached and uncached differ:\n%s", s.name, p, firstDiff(got[p], want[p]))
			}
			if prev[p] != "" && prev[p] != got[p] {
				changed++
			}
		}
		prev = got
	}
	if changed == 0 {
		t.Fatal("no answer changed across the steps: the test proves nothing")
	}
}

// TestResponseCacheHeadAndGet: a HEAD answered first does not leave an
// empty body for a later GET.
func TestResponseCacheHeadAndGet(t *testing.T) {
	e := newEnv(t)
	h := cataloghttp.NewHandler(e.store, cataloghttp.Options{Live: e.live})
	w := httptest.NewRecorder()
	h.ServeHTTP(w, httptest.NewRequest(http.MethodHead, "/markets/42", nil))
	w2 := httptest.NewRecorder()
	h.ServeHTTP(w2, httptest.NewRequest(http.MethodGet, "/markets/42", nil))
	if w2.Code != 200 || !bytes.Contains(w2.Body.Bytes(), []byte(`"id":"42"`)) {
		t.Fatalf("GET after HEAD: %d %s", w2.Code, w2.Body.Bytes())
	}
}

// firstDiff shows both strings around their first difference.
func firstDiff(a, b string) string {
	i := 0
	for i < len(a) && i < len(b) && a[i] == b[i] {
		i++
	}
	lo := max(0, i-80)
	return fmt.Sprintf("at byte %d:\n  %q\n  %q", i, a[lo:min(len(a), i+80)], b[lo:min(len(b), i+80)])
}

// TestResponseCacheConcurrent: many clients on one key while the live
// figures move; under -race this checks the cache's locking, and every
// answer must be a whole 200 body.
func TestResponseCacheConcurrent(t *testing.T) {
	e := newEnv(t)
	h := cataloghttp.NewHandler(e.store, cataloghttp.Options{Live: e.live})
	done := make(chan struct{})
	go func() {
		defer close(done)
		for i := range 50 {
			v := amount.Micro(i * 1_000_000)
			e.live.set(cond(0x13), catalog.Live{Volume: &v})
		}
	}()
	errs := make(chan string, 16)
	for range 16 {
		go func() {
			for range 30 {
				w := httptest.NewRecorder()
				h.ServeHTTP(w, httptest.NewRequest(http.MethodGet, "/events?limit=20", nil))
				if w.Code != 200 || !bytes.HasSuffix(w.Body.Bytes(), []byte("]\n")) {
					errs <- fmt.Sprintf("%d %.80s", w.Code, w.Body.Bytes())
					return
				}
			}
			errs <- ""
		}()
	}
	for range 16 {
		if s := <-errs; s != "" {
			t.Fatal(s)
		}
	}
	<-done
}
