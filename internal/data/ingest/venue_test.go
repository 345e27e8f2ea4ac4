package ingest_test

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

	"pmx/internal/admin"
	"pmx/internal/catalog/cataloghttp"
	"pmx/internal/catalog/catalogsql"
	"pmx/internal/clock"
	"pmx/internal/data/dataapi"
	"pmx/internal/data/ingest"
	"pmx/internal/data/sqlite"
	"pmx/internal/ratelimit"
)

// venue is pmx serve's wiring of the data service, the catalog and the
// admin API over one SQLite file, each on its own httptest listener.
type venue struct {
	data, cat, admin *httptest.Server
}

var venueNow = time.Date(2026, 9, 15, 12, 0, 0, 0, time.UTC)

func newVenue(t *testing.T) *venue {
	t.Helper()
	path := filepath.Join(t.TempDir(), "pmx.db")
	db, err := sqlite.Open(path, sqlite.Options{Clock: func() time.Time { return venueNow }})
	if err != nil {
		t.Fatal(err)
	}
	pool, err := sqlite.OpenPool(path, 4)
	if err != nil {
		t.Fatal(err)
	}
	cs, err := catalogsql.New(context.Background(), pool)
	if err != nil {
		t.Fatal(err)
	}
	p := &ingest.Pipeline{Data: db, Catalog: cs}
	adm := &admin.Handler{Ledger: p, Lookup: db.Outcomes,
		Extra: map[string]http.Handler{"POST /admin/catalog": cataloghttp.ImportHandler(p)}}
	v := &venue{
		data: httptest.NewServer(dataapi.New(dataapi.Options{Store: db, CursorKey: []byte("venue-test-cursor-key-0123456789"),
			Clock: clock.NewManual(venueNow), Limits: &ratelimit.Config{}})),
		cat:   httptest.NewServer(cataloghttp.NewHandler(cs, cataloghttp.Options{Live: db})),
		admin: httptest.NewServer(adm.Routes()),
	}
	t.Cleanup(func() { v.data.Close(); v.cat.Close(); v.admin.Close(); pool.Close(); db.Close() })
	return v
}

func post(t *testing.T, url, body string) (int, string) {
	t.Helper()
	resp, err := http.Post(url, "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

func getJSON(t *testing.T, url string, out any) {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != 200 {
		t.Fatalf("GET %s: %d %s", url, resp.StatusCode, b)
	}
	if err := json.Unmarshal(b, out); err != nil {
		t.Fatalf("GET %s: %v", url, err)
	}
}

const (
	impCond = "0x9999999999999999999999999999999999999999999999999999999999999999"
	impA    = "0x00000000000000000000000000000000000000a1"
	impB    = "0x00000000000000000000000000000000000000b2"
)

// importedEvent is a production-format document: one event, one market with
// an order book (conditionId, clobTokenIds) and production's own figures.
const importedEvent = `{"id":"5000","slug":"imported-event","title":"Imported Event","category":"Crypto",
 "endDate":"2026-12-31T00:00:00Z","volume":1234.5,"volume24hr":12,
 "markets":[{"id":"5001","question":"Will the imported market trade?","conditionId":"` + impCond + `",
  "slug":"imported-market","outcomes":"[\"Up\", \"Down\"]","clobTokenIds":"[\"555\", \"556\"]",
  "endDate":"2026-12-31T00:00:00Z","active":true,"closed":false,"enableOrderBook":true,
  "volume":"1234.5","volumeNum":1234.5,"volume24hr":12,"lastTradePrice":0.5}]}`

// "A market imported through the catalog's admin import is a market of the
// venue": a ledger trade on one of its clobTokenIds is applied, the data
// service serves it with the catalog's slug, event slug and outcome, and the
// catalog market's and its event's live figures change.
func TestContract_MarketsImportedIntoTheCatalogTrade(t *testing.T) {
	v := newVenue(t)
	if st, body := post(t, v.admin.URL+"/admin/catalog", importedEvent); st != 200 {
		t.Fatalf("import: %d %s", st, body)
	}
	var before map[string]any
	getJSON(t, v.cat.URL+"/markets/5001", &before)

	ts := venueNow.Unix() - 600
	ledgerLines := fmt.Sprintf(`{"kind":"split","tx_hash":"0x%064x","log_index":0,"block_number":100,"timestamp":%d,"user":"%s","condition_id":"%s","amount":"100"}
{"kind":"trade","tx_hash":"0x%064x","log_index":0,"block_number":101,"timestamp":%d,"token_id":"555","maker":"%s","taker":"%s","side":"BUY","price":"0.62","size":"10"}
`, 1, ts-10, impB, impCond, 2, ts, impB, impA)
	if st, body := post(t, v.admin.URL+"/admin/ledger", ledgerLines); st != 200 {
		t.Fatalf("trade on an imported token: %d %s", st, body)
	}

	var trades struct {
		Data []map[string]any `json:"data"`
	}
	getJSON(t, v.data.URL+"/v2/trades?condition="+impCond, &trades)
	if len(trades.Data) != 1 {
		t.Fatalf("/v2/trades?condition=: %d rows: %v", len(trades.Data), trades.Data)
	}
	want := map[string]any{"slug": "imported-market", "event_slug": "imported-event", "outcome": "Up",
		"title": "Will the imported market trade?", "token_id": "555", "proxy_wallet": impA, "side": "BUY"}
	for k, w := range want {
		if trades.Data[0][k] != w {
			t.Errorf("trade row %s = %v, want %v", k, trades.Data[0][k], w)
		}
	}

	var after map[string]any
	getJSON(t, v.cat.URL+"/markets/5001", &after)
	// The venue's figures: 10 shares at 0.62 = 6.2 USDC, all in the last 24 h.
	for k, w := range map[string]any{"volumeNum": 6.2, "volume": "6.2", "volume24hr": 6.2, "lastTradePrice": 0.62} {
		if after[k] != w {
			t.Errorf("market %s = %v (before the trade %v), want %v", k, after[k], before[k], w)
		}
	}
	var ev map[string]any
	getJSON(t, v.cat.URL+"/events/5000", &ev)
	for k, w := range map[string]any{"volume": 6.2, "volume24hr": 6.2} {
		if ev[k] != w {
			t.Errorf("event %s = %v, want %v", k, ev[k], w)
		}
	}
}

// An imported market whose token already belongs to another venue market
// is refused whole (409) and nothing of the document is kept; one the
// ledger cannot describe (a single outcome) is a 400.
func TestImportedMarketsThatCannotTradeAreRefused(t *testing.T) {
	v := newVenue(t)
	if st, body := post(t, v.admin.URL+"/admin/catalog", importedEvent); st != 200 {
		t.Fatalf("import: %d %s", st, body)
	}
	clash := strings.NewReplacer(`"5000"`, `"6000"`, `"5001"`, `"6001"`, impCond, "0x"+strings.Repeat("88", 32),
		"imported-market", "other-market").Replace(importedEvent)
	if st, body := post(t, v.admin.URL+"/admin/catalog", clash); st != 409 || !strings.Contains(body, "token 555 already belongs to another market") {
		t.Errorf("token clash: %d %s", st, body)
	}
	resp, err := http.Get(v.cat.URL + "/events/6000")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 404 {
		t.Errorf("a refused import left event 6000 behind: %d", resp.StatusCode)
	}
	one := `{"id":"7000","title":"x","markets":[{"id":"7001","conditionId":"0x` + strings.Repeat("77", 32) +
		`","outcomes":"[\"Only\"]","clobTokenIds":"[\"701\"]"}]}`
	if st, body := post(t, v.admin.URL+"/admin/catalog", one); st != 400 || !strings.Contains(body, "event 7000 market 7001 cannot trade") {
		t.Errorf("one outcome: %d %s", st, body)
	}
}
