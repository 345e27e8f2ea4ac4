package clobhttp_test

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"pmx/internal/catalog/cataloghttp"
	"pmx/internal/clob/clobsvc"
)

// catalogA is market A as a catalog document with an order book.
const catalogA = `{"id":"9000","slug":"a-event","title":"A Event","endDate":"2027-12-31T00:00:00Z",
 "markets":[{"id":"9001","question":"Will A?","conditionId":"` + condA + `","slug":"will-a",
  "outcomes":"[\"Yes\", \"No\"]","clobTokenIds":"[\"` + yesA + `\", \"` + noA + `\"]","endDate":"2027-12-31T00:00:00Z",
  "active":true,"closed":false,"enableOrderBook":true,"acceptingOrders":true,"orderPriceMinTickSize":0.01,"orderMinSize":5}]}`

// TestCLOBTradesMoveTheCatalog: as pmx serve wires them (the CLOB's
// markets read from the catalog, its fills fed through the ingest
// pipeline), a trade on the CLOB moves the catalog market's
// lastTradePrice and volume.
func TestCLOBTradesMoveTheCatalog(t *testing.T) {
	db, cs, p := openVenueStores(t, filepath.Join(t.TempDir(), "pmx.db"))
	imp := httptest.NewServer(cataloghttp.ImportHandler(p))
	t.Cleanup(imp.Close)
	resp, err := http.Post(imp.URL, "application/json", strings.NewReader(catalogA))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Fatalf("catalog import: %d", resp.StatusCode)
	}
	cat := httptest.NewServer(cataloghttp.NewHandler(cs, cataloghttp.Options{Live: db, ResponseCacheBytes: -1}))
	t.Cleanup(cat.Close)

	x := newExchangeGated(t, "", &fixedClock{t: time.Unix(now0, 0)}, "enforce", nil, func(o *clobsvc.Options) {
		o.Markets, o.Ledger = clobsvc.CatalogMarkets(cs), p
	})
	a, b := x.trader(t, priv0), x.trader(t, priv1)
	x.fund(t, a.w.addr, 100, 0)
	x.fund(t, b.w.addr, 100, 20)
	a.post(t, limitOrder(yesA, "BUY", 45, 10), "GTC", false)
	if r, _ := b.post(t, limitOrder(yesA, "SELL", 45, 10), "GTC", false); decode[orderResp](t, r).Status != "matched" {
		t.Fatalf("taker: %s", r.body)
	}
	// 10 shares at 0.45: 4.5 USDC of volume.
	want := map[string]any{"lastTradePrice": 0.45, "volumeNum": 4.5, "volume": "4.5", "volume24hr": 4.5}
	var last map[string]any
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) {
		resp, err := http.Get(cat.URL + "/markets/9001")
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		last = nil
		_ = json.Unmarshal(body, &last)
		ok := resp.StatusCode == 200
		for k, w := range want {
			ok = ok && last[k] == w
		}
		if ok {
			return
		}
	}
	t.Fatalf("catalog market never showed %v; last %v", want, last)
}
