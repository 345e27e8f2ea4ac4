package perpshttp

import (
	"strings"
	"testing"
	"time"

	"pmx/internal/perps/perps"
)

type fillRow struct {
	TradeID   uint64 `json:"trade_id"`
	OrderID   uint64 `json:"order_id"`
	Side      string `json:"side"`
	Price     string `json:"price"`
	Quantity  string `json:"quantity"`
	Taker     bool   `json:"taker"`
	Fee       string `json:"fee"`
	FeeAsset  string `json:"fee_asset"`
	PrevSize  string `json:"previous_size"`
	PrevEntry string `json:"previous_entry_price"`
	PnL       string `json:"pnl"`
	Timestamp int64  `json:"timestamp"`
}

func TestAccountQueries(t *testing.T) {
	e := newEnv(t, Options{})
	e.instrument()
	a, b := e.trader(1, "10000"), e.trader(2, "10000")
	bid := a.placeOK(ord{iid: 1, buy: true, p: "100", qty: "10", c: "11111111111111111111111111111111"})
	e.advance(time.Second)
	sell := b.placeOK(ord{iid: 1, buy: false, p: "100", qty: "4", tif: "ioc"}) // b short 4 @100, a long 4
	e.advance(time.Second)
	a.placeOK(ord{iid: 1, buy: false, p: "110", qty: "1"})
	b.placeOK(ord{iid: 1, buy: true, p: "110", qty: "1", tif: "ioc"}) // a sells 1 @110: +10 pnl; b closes 1 @110: -10

	var fills struct {
		Data []fillRow
		More bool
	}
	a.read("/v1/account/fills", &fills)
	if len(fills.Data) != 2 || fills.Data[0].Price != "110" || fills.Data[1].Price != "100" {
		t.Fatalf("a fills (newest first) %+v", fills)
	}
	f := fills.Data[1]
	// Maker fee 0.000125 × 400 = 0.05.
	if f.OrderID != bid || f.Side != "long" || f.Taker || f.Fee != "0.05" || f.FeeAsset != "pUSD" || f.PrevSize != "0" || f.PnL != "0" {
		t.Errorf("a maker fill %+v", f)
	}
	f = fills.Data[0]
	// Maker fee 0.000125 × 110 = 0.01375; realized (110-100)×1 = 10.
	if f.Side != "short" || f.Taker || f.Fee != "0.01375" || f.PrevSize != "4" || f.PrevEntry != "100" || f.PnL != "10" {
		t.Errorf("a closing fill %+v", f)
	}
	b.read("/v1/account/fills", &fills)
	// Taker fee 0.0004 × 400 = 0.16; b was short 4 at 100 and bought 1 at 110: -10.
	if len(fills.Data) != 2 || fills.Data[1].OrderID != sell || !fills.Data[1].Taker || fills.Data[1].Fee != "0.16" ||
		fills.Data[0].PnL != "-10" || fills.Data[0].PrevSize != "-4" {
		t.Errorf("b fills %+v", fills)
	}
	var bal []map[string]string
	// a: 10000 - 0.05 - 0.01375 + 10 = 10009.93625
	if a.read("/v1/account/balances", &bal); len(bal) != 1 || bal[0]["asset"] != "pUSD" || bal[0]["balance"] != "10009.93625" {
		t.Errorf("a balances %v", bal)
	}
	// b: 10000 - 0.16 - 0.044 - 10 = 9989.796
	if b.read("/v1/account/balances", &bal); bal[0]["balance"] != "9989.796" {
		t.Errorf("b balances %v", bal)
	}
	var orders []orderRow
	a.read("/v1/account/orders", &orders)
	if len(orders) != 2 || orders[1].OrderID != bid || orders[1].Status != "partial" || orders[1].Resting != "6" ||
		orders[1].Filled != "4" || orders[1].COID != "11111111111111111111111111111111" || orders[0].Status != "filled" {
		t.Errorf("orders (newest first) %+v", orders)
	}
	if a.read("/v1/account/orders?client_order_id=11111111111111111111111111111111", &orders); len(orders) != 1 {
		t.Errorf("orders by coid %+v", orders)
	}
	if a.read("/v1/account/open-orders", &orders); len(orders) != 1 || orders[0].OrderID != bid || orders[0].TIF != "gtc" {
		t.Errorf("open orders %+v", orders)
	}
	var cfg []map[string]any
	if a.read("/v1/account/config", &cfg); len(cfg) != 1 || cfg[0]["leverage"] != 20.0 || cfg[0]["cross"] != false {
		t.Errorf("config %v", cfg)
	}
	var st map[string]string
	// a's maker volume: 400 + 110.
	if a.read("/v1/account/stats", &st); st["maker_volume_7d"] != "510" || st["taker_volume_7d"] != "0" || st["volume_7d"] != "510" ||
		st["account_maker_share_7d"] != "1" {
		t.Errorf("stats %v", st)
	}
	if code, body := a.read("/v1/account/orders?order_id=x", nil); code != 400 || !strings.Contains(body, "order_id") {
		t.Errorf("bad order_id %d %s", code, body)
	}
	var tk []map[string]any
	if e.get("/v1/info/tickers?instrument_id=1", &tk); tk[0]["open_interest"] != "3" {
		t.Errorf("open interest %v", tk)
	}
}

// Orders, balances and positions survive a clean restart, and the state is
// the same (hash) as before it.
func TestRestartRecovers(t *testing.T) {
	e := newEnv(t, Options{SnapshotEvery: 5})
	e.instrument()
	a, b := e.trader(1, "10000"), e.trader(2, "10000")
	var ids []uint64
	for i := 0; i < 8; i++ {
		ids = append(ids, a.placeOK(ord{iid: 1, buy: true, p: "100", qty: "1"}))
	}
	b.placeOK(ord{iid: 1, buy: false, p: "100", qty: "2.5", tif: "ioc"})
	// The fill makes a liquidation sweep due, which the service's poll
	// submits on its own: wait for it, or it may land between the hash
	// and the stop (a later state, not a replay that differs).
	deadline := time.Now().Add(30 * time.Second)
	for due := true; due; {
		if err := e.srv.svc.View(func(m *perps.Machine) { due = m.SweepDue() }); err != nil {
			t.Fatal(err)
		}
		if due && time.Now().After(deadline) {
			t.Fatal("the sweep the fill made due never ran")
		}
		time.Sleep(5 * time.Millisecond)
	}
	before, _, _ := e.srv.eng.Hash()
	var bal1, bal2 []map[string]string
	a.read("/v1/account/balances", &bal1)
	e.restart()
	after, _, _ := e.srv.eng.Hash()
	if before != after {
		t.Error("state hash differs after restart")
	}
	var open []orderRow
	if a.read("/v1/account/open-orders", &open); len(open) != 6 {
		t.Errorf("open after restart %d", len(open))
	}
	if a.read("/v1/account/balances", &bal2); bal1[0]["balance"] != bal2[0]["balance"] {
		t.Errorf("balance %v vs %v", bal1, bal2)
	}
	// New orders continue the id sequence.
	if id := a.placeOK(ord{iid: 1, buy: true, p: "99", qty: "1"}); id <= ids[len(ids)-1] {
		t.Errorf("oid %d reused", id)
	}
}

func TestPortfolio(t *testing.T) {
	e := newEnv(t, Options{})
	e.instrument()
	a, b := e.trader(1, "10000"), e.trader(2, "10000")
	a.placeOK(ord{iid: 1, buy: true, p: "100", qty: "10"})
	b.placeOK(ord{iid: 1, buy: false, p: "100", qty: "4", tif: "ioc"}) // a long 4 @100, 6 still bid at 100
	b.placeOK(ord{iid: 1, buy: false, p: "110", qty: "1"})
	// The risk engine's mark: median(index 105, median(bid 100, ask 110, last 100), 105) = 105.
	e.adminPost("/admin/perps/index", `{"instrument_id":1,"price":"105"}`)
	var p struct {
		Positions     []map[string]any
		Margin        map[string]string
		Withdrawable  string
		InLiquidation bool `json:"in_liquidation"`
		FeeTier       int  `json:"fee_tier"`
		Timestamp     int64
	}
	if code, body := a.read("/v1/account/portfolio", &p); code != 200 {
		t.Fatal(code, body)
	}
	if len(p.Positions) != 1 {
		t.Fatalf("positions %+v", p.Positions)
	}
	pos := p.Positions[0]
	// value 4×105 = 420, upnl +20, IM 420/20 = 21, open bid 6×100/20 = 30.
	if pos["size"] != "4" || pos["entry_price"] != "100" || pos["position_value"] != "420" || pos["unrealized_pnl"] != "20" ||
		pos["initial_margin"] != "21" || pos["leverage"] != 20.0 || pos["return_on_equity"] != "0.95238095" {
		t.Errorf("position %v", pos)
	}
	// balance 10000 - maker fee 0.05 = 9999.95; TAV 10019.95; IM 51.
	// Withdrawable is risk.Withdrawable: cross equity 10019.95 less the
	// requirement of the worst case at the risk engine's mark 105 (long 4
	// plus the bid's 6 = 10 × 105 / 20 = 52.5), at most the collateral
	// 9999.95: unrealized profit backs margin but is never paid out.
	if p.Margin["total_account_value"] != "10019.95" || p.Margin["total_initial_margin"] != "51" ||
		p.Margin["available_order_margin"] != "9968.95" || p.Withdrawable != "9967.45" || p.Timestamp != e.ms.Load() {
		t.Errorf("margin %+v withdrawable %s", p.Margin, p.Withdrawable)
	}
	b.read("/v1/account/portfolio", &p)
	// MM ⌈420 × 0.5/20⌉ = 10.5; the short (equity 9,999.84 − 20) reaches it at
	// 40 × (−9,979.84 − 420)/(40 × −4 − 4) = 2,536.55…, rounded up.
	if p.Positions[0]["size"] != "-4" || p.Positions[0]["unrealized_pnl"] != "-20" ||
		p.Positions[0]["maintenance_margin"] != "10.5" || p.Positions[0]["liquidation_price"] != "2536.6" {
		t.Errorf("short %v", p.Positions[0])
	}
}
