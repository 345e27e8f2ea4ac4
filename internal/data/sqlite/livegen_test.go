package sqlite_test

import (
	"context"
	"database/sql"
	"fmt"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"

	"pmx/internal/catalog/cataloghttp"
	"pmx/internal/catalog/catalogsql"
	"pmx/internal/data/ledger"
	"pmx/internal/data/sqlite"
)

// TestCatalogResponseCacheFollowsLive: with the data store as LiveFields, a
// caching catalog handler answers byte for byte as an uncached one across
// trades and minute turns (the 24-hour window moves; injected clock), and
// LiveGeneration moves exactly when Live's answers may change.
func TestCatalogResponseCacheFollowsLive(t *testing.T) {
	var now atomic.Int64
	now.Store(fixedClock().Unix())
	db, err := sqlite.Open(filepath.Join(t.TempDir(), "pmx.db"),
		sqlite.Options{Clock: func() time.Time { return time.Unix(now.Load(), 0) }})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	catDB, err := sql.Open("sqlite", "file:"+filepath.Join(t.TempDir(), "cat.db")+"?_pragma=journal_mode(WAL)")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { catDB.Close() })
	cat, err := catalogsql.New(ctx, catDB)
	if err != nil {
		t.Fatal(err)
	}
	markets := []ledger.Event{binary(1, 10, false), binary(2, 10, false)}
	markets[0].MarketID, markets[1].MarketID = 501, 502
	mustApply(t, db, markets...)
	for _, ev := range markets {
		if err := cat.UpsertFromLedgerMarket(context.Background(), ev); err != nil {
			t.Fatal(err)
		}
	}
	cached := cataloghttp.NewHandler(cat, cataloghttp.Options{Live: db})
	plain := cataloghttp.NewHandler(cat, cataloghttp.Options{Live: db, ResponseCacheBytes: -1})
	paths := []string{"/events/10", "/events?limit=20", "/events/keyset?limit=20", "/markets?limit=20",
		"/markets/keyset?limit=20", "/markets?order=volume24hr&ascending=false"}
	snap := func(h http.Handler) string {
		var s string
		for _, p := range paths {
			for range 2 { // the second answer is a hit when h caches
				w := httptest.NewRecorder()
				h.ServeHTTP(w, httptest.NewRequest(http.MethodGet, p, nil))
				s += fmt.Sprintf("%s %d %s\n", p, w.Code, w.Body.Bytes())
			}
		}
		return s
	}
	check := func(step string) string {
		t.Helper()
		want, got := snap(plain), snap(cached)
		if got != want {
			t.Fatalf("after %s: cached and uncached answers differ", step)
		}
		return got
	}

	b := newBuilder(now.Load() - 3600)
	s0 := check("initial")
	g0 := db.LiveGeneration()
	mustApply(t, db, b.env(userEv("split", 1, 1, "100"), 1), b.env(trade("11", 1, 2, "BUY", "0.4", "10", ""), 1))
	s1 := check("trade")
	g1 := db.LiveGeneration()
	if s1 == s0 || g1 == g0 {
		t.Fatalf("a trade changed neither the answers nor the live generation (%d, %d)", g0, g1)
	}
	// Within the minute nothing moves.
	now.Store(now.Load() - now.Load()%60 + 59)
	if check("same minute") != s1 || db.LiveGeneration() != g1 {
		t.Fatal("answers or generation moved within one minute")
	}
	// The trade leaves the 24-hour window when the minute turns.
	now.Store(b.ts + 86400 + 60)
	s2 := check("minute turn")
	if s2 == s1 || db.LiveGeneration() == g1 {
		t.Fatal("the 24-hour volume did not move out of the window")
	}
	mustApply(t, db, b.env(trade("11", 1, 2, "BUY", "0.5", "10", ""), 1))
	if check("second trade") == s2 {
		t.Fatal("a second trade changed nothing")
	}
}
