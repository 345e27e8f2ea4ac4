package perpshttp

import (
	"encoding/json"
	"strings"
	"testing"
	"time"
)

func TestInfoRoutes(t *testing.T) {
	e := newEnv(t, Options{})
	e.instrument()
	e.adminPost("/admin/perps/instruments", `{"symbol":"ETH-USD","category":"crypto","price_decimals":2,"quantity_decimals":3,"max_leverage":10}`)
	e.adminPost("/admin/perps/index", `{"instrument_id":1,"price":"50000"}`)
	a, b := e.trader(1, "100000"), e.trader(2, "100000")
	a.placeOK(ord{iid: 1, buy: true, p: "49990", qty: "0.5"})
	a.placeOK(ord{iid: 1, buy: true, p: "49980", qty: "1"})
	b.placeOK(ord{iid: 1, buy: false, p: "50010", qty: "0.25"})
	b.placeOK(ord{iid: 1, buy: false, p: "49990", qty: "0.1", tif: "ioc"}) // trades
	e.advance(2 * time.Minute)
	b.placeOK(ord{iid: 1, buy: false, p: "49990", qty: "0.1", tif: "ioc"})

	var m map[string]any
	if code, body := e.get("/v1/info/ping", &m); code != 200 || m["status"] != "ok" {
		t.Fatalf("ping %d %s", code, body)
	}
	var tm struct{ Time int64 }
	if e.get("/v1/info/time", &tm); tm.Time != e.ms.Load() {
		t.Errorf("time %d", tm.Time)
	}
	e.get("/v1/info/exchange", &m)
	if m["name"] != "Polymarket" || m["chain_id"] != 137.0 || m["contract"] != "0xDCa4af75705dbB50f62437045afF9921947917d2" {
		t.Errorf("exchange %v", m)
	}
	var assets []map[string]any
	if e.get("/v1/info/assets", &assets); len(assets) != 1 || assets[0]["decimals"] != 6.0 {
		t.Errorf("assets %v", assets)
	}
	var ins []map[string]any
	e.get("/v1/info/instruments", &ins)
	if len(ins) != 2 || ins[0]["symbol"] != "BTC-USD" || ins[0]["price_decimals"] != 1.0 || ins[0]["funding_interval"] != "1h" ||
		ins[0]["min_notional"] != "1" || ins[1]["max_leverage"] != 10.0 {
		t.Errorf("instruments %v", ins)
	}
	if e.get("/v1/info/instruments?instrument_id=2", &ins); len(ins) != 1 || ins[0]["instrument_id"] != 2.0 {
		t.Errorf("instrument filter %v", ins)
	}
	if code, _ := e.get("/v1/info/instruments?category=stocks", nil); code != 400 {
		t.Errorf("bad category %d", code)
	}
	var tk []map[string]any
	if e.get("/v1/info/tickers?instrument_id=1", &tk); len(tk) != 1 || tk[0]["last_price"] != "49990" ||
		tk[0]["index_price"] != "50000" || tk[0]["open_interest"] != "0.2" || tk[0]["mid_price"] != "50000" {
		t.Errorf("tickers %v", tk)
	}
	if e.get("/v1/info/tickers", &tk); len(tk) != 2 {
		t.Errorf("tickers all %v", tk)
	}
	var bbo []map[string]any
	if e.get("/v1/info/bbo?instrument_id=1", &bbo); len(bbo) != 1 || bbo[0]["bid_price"] != "49990" || bbo[0]["ask_quantity"] != "0.25" {
		t.Errorf("bbo %v", bbo)
	}
	var bk struct {
		Bids, Asks [][2]string
		Sequence   uint64
	}
	if e.get("/v1/info/book?instrument_id=1&depth=10", &bk); len(bk.Bids) != 2 || bk.Bids[0] != [2]string{"49990", "0.3"} || len(bk.Asks) != 1 {
		t.Errorf("book %+v", bk)
	}
	if code, _ := e.get("/v1/info/book?instrument_id=1&depth=7", nil); code != 400 {
		t.Errorf("depth 7: %d", code)
	}
	if code, body := e.get("/v1/info/book", nil); code != 400 || !strings.Contains(body, "instrument_id") {
		t.Errorf("book without id: %d %s", code, body)
	}
	if code, body := e.get("/v1/info/book?instrument_id=9", nil); code != 404 {
		t.Errorf("unknown book: %d %s", code, body)
	}
	var tr struct {
		Data []map[string]any
		More bool
	}
	if e.get("/v1/info/trades?instrument_id=1", &tr); len(tr.Data) != 2 || tr.Data[0]["side"] != "short" ||
		tr.Data[0]["timestamp"].(float64) <= tr.Data[1]["timestamp"].(float64) || tr.Data[0]["hash"] != "0x" {
		t.Errorf("trades (newest first) %v", tr)
	}
	var kl struct {
		Data [][]any
	}
	e.get("/v1/info/klines?instrument_id=1&interval=1m&start_timestamp=0", &kl)
	if len(kl.Data) != 2 || kl.Data[0][0].(float64) >= kl.Data[1][0].(float64) || kl.Data[0][1] != "49990" || kl.Data[0][6] != 1.0 {
		t.Errorf("klines (oldest first) %v", kl.Data)
	}
	if e.get("/v1/info/klines?instrument_id=1&interval=1h&start_timestamp=0", &kl); len(kl.Data) != 1 || kl.Data[0][5] != "0.2" {
		t.Errorf("klines 1h %v", kl.Data)
	}
	if code, _ := e.get("/v1/info/klines?instrument_id=1&interval=1m", nil); code != 400 {
		t.Errorf("klines without start: %d", code)
	}
	var fees struct {
		FeeSchedule []map[string]any `json:"fee_schedule"`
	}
	if e.get("/v1/info/fees", &fees); len(fees.FeeSchedule) != 4 || fees.FeeSchedule[3]["taker_fee_rate"] != "0.0004" {
		t.Errorf("fees %v", fees)
	}
	var lt []map[string]any
	if e.get("/v1/info/limit-tiers", &lt); len(lt) == 0 || lt[0]["open_orders_limit"] != 1000.0 {
		t.Errorf("limit tiers %v", lt)
	}
	if code, _ := e.get("/v1/info/nothing", nil); code != 404 {
		t.Errorf("unknown route %d", code)
	}
	// Admin list matches the public one.
	var adm []json.RawMessage
	e.do("GET", e.admin.URL+"/admin/perps/instruments", nil, nil, &adm)
	if len(adm) != 2 {
		t.Errorf("admin instruments %d", len(adm))
	}
}

// TestQueryWindowErrors: start_timestamp and end_timestamp must be
// non-negative integers on every route that takes a time window; start is
// checked first.
func TestQueryWindowErrors(t *testing.T) {
	e := newEnv(t, Options{})
	e.instrument()
	a := e.trader(1, "")
	routes := map[string]func(path string) (int, string){
		"/v1/info/trades?instrument_id=1&":             func(p string) (int, string) { return e.get(p, nil) },
		"/v1/info/klines?instrument_id=1&interval=1m&": func(p string) (int, string) { return e.get(p, nil) },
		"/v1/account/orders?":                          func(p string) (int, string) { return a.read(p, nil) },
		"/v1/account/fills?":                           func(p string) (int, string) { return a.read(p, nil) },
	}
	for route, get := range routes {
		for _, tc := range []struct{ query, want string }{
			{"start_timestamp=x", "invalid query parameters: start_timestamp: invalid digit found in string"},
			{"start_timestamp=-1", "invalid query parameters: start_timestamp: invalid digit found in string"},
			{"start_timestamp=0&end_timestamp=1.5", "invalid query parameters: end_timestamp: invalid digit found in string"},
			{"start_timestamp=y&end_timestamp=z", "invalid query parameters: start_timestamp: invalid digit found in string"},
		} {
			if code, body := get(route + tc.query); code != 400 || !strings.Contains(body, `"error":"`+tc.want+`"`) {
				t.Errorf("%s%s: %d %s", route, tc.query, code, body)
			}
		}
		if code, body := get(route + "start_timestamp=0&end_timestamp=1"); code != 200 {
			t.Errorf("%s with a valid window: %d %s", route, code, body)
		}
	}
}
