package clobhttp_test

import (
	"crypto/sha1"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"pmx/internal/clob/clobengine"
)

func decode[T any](t testing.TB, r reply) T {
	t.Helper()
	var v T
	if r.status != 200 {
		t.Fatalf("status %d: %s", r.status, r.body)
	}
	if err := json.Unmarshal(r.body, &v); err != nil {
		t.Fatalf("%s: %v", r.body, err)
	}
	return v
}

type orderResp struct {
	Success  bool     `json:"success"`
	ErrorMsg string   `json:"errorMsg"`
	OrderID  string   `json:"orderID"`
	Status   string   `json:"status"`
	Making   string   `json:"makingAmount"`
	Taking   string   `json:"takingAmount"`
	TradeIDs []string `json:"tradeIDs"`
}

func newClocked(t testing.TB) (*xenv, *fixedClock) {
	clk := &fixedClock{t: time.Unix(now0, 0)}
	return newExchange(t, "", clk, "enforce"), clk
}

// TestOrderLifecycle: a V1 and a V2 order rest, are listed and fetched,
// one is canceled; a crossing SELL trades at the maker's price, balances
// move, and the trade walks MATCHED -> MINED -> CONFIRMED on the chain
// delay.
func TestOrderLifecycle(t *testing.T) {
	x, clk := newClocked(t)
	a, b := x.trader(t, priv0), x.trader(t, priv1)
	x.fund(t, a.w.addr, 100, 0)
	x.fund(t, b.w.addr, 100, 20)

	r, id1 := a.post(t, limitOrder(yesA, "BUY", 40, 10), "GTC", false)
	if o := decode[orderResp](t, r); !o.Success || o.Status != "live" || o.OrderID != id1 {
		t.Fatalf("v1 post: %s", r.body)
	}
	v2 := limitOrder(yesA, "BUY", 41, 10)
	v2.V, v2.Stamp = 2, now0*1000
	r, id2 := a.post(t, v2, "GTC", false)
	if o := decode[orderResp](t, r); o.OrderID != id2 || o.Status != "live" {
		t.Fatalf("v2 post: %s", r.body)
	}
	page := decode[struct {
		NextCursor string            `json:"next_cursor"`
		Data       []json.RawMessage `json:"data"`
	}](t, a.call(t, "GET", "/data/orders?next_cursor=MA%3D%3D", ""))
	if page.NextCursor != "LTE=" || len(page.Data) != 2 {
		t.Fatalf("orders page %+v", page)
	}
	got := decode[map[string]any](t, a.call(t, "GET", "/data/order/"+id1, ""))
	if got["id"] != id1 || got["status"] != "LIVE" || got["original_size"] != "10" || got["price"] != "0.4" || got["outcome"] != "Yes" {
		t.Fatalf("get order %v", got)
	}
	// Another key cannot see or cancel it.
	b.call(t, "GET", "/data/order/"+id1, "").wantError(t, 404, "Order not found")
	c := decode[map[string]any](t, b.call(t, "DELETE", "/order", `{"orderID":"`+id1+`"}`))
	if fmt.Sprint(c["canceled"]) != "[]" {
		t.Fatalf("foreign cancel %v", c)
	}
	c = decode[map[string]any](t, a.call(t, "DELETE", "/order", `{"orderID":"`+id1+`"}`))
	if fmt.Sprint(c["canceled"]) != "["+id1+"]" {
		t.Fatalf("cancel %v", c)
	}
	// b sells 10 at 0.39 into a's 0.41 bid: trades at 0.41.
	r, _ = b.post(t, limitOrder(yesA, "SELL", 39, 10), "GTC", false)
	o := decode[orderResp](t, r)
	if o.Status != "matched" || o.Making != "10" || o.Taking != "4.1" || len(o.TradeIDs) != 1 {
		t.Fatalf("cross: %s", r.body)
	}
	bal := func(tr *trader, q string) string {
		return decode[map[string]any](t, tr.call(t, "GET", "/balance-allowance?"+q, ""))["balance"].(string)
	}
	if bal(a, "asset_type=COLLATERAL") != "95900000" || bal(a, "asset_type=CONDITIONAL&token_id="+yesA) != "10000000" ||
		bal(b, "asset_type=COLLATERAL") != "84100000" || bal(b, "asset_type=CONDITIONAL&token_id="+yesA) != "10000000" {
		t.Fatal("balances after the trade")
	}
	status := func() string {
		tr := decode[struct {
			Data []map[string]any `json:"data"`
		}](t, a.call(t, "GET", "/data/trades", ""))
		if len(tr.Data) != 1 {
			t.Fatalf("trades %v", tr.Data)
		}
		return tr.Data[0]["status"].(string)
	}
	// The chain: MATCHED until the next block, MINED in it, CONFIRMED
	// Confirmations blocks deep (the default chain: 2 s blocks, 3 deep).
	ch, at := x.svc.Chain(), clk.Now().UnixMilli()
	for _, c := range []struct {
		now  int64
		want string
	}{{at, "MATCHED"}, {ch.MinedAt(at) - 1, "MATCHED"}, {ch.MinedAt(at), "MINED"}, {ch.ConfirmedAt(at) - 1, "MINED"},
		{ch.ConfirmedAt(at), "CONFIRMED"}} {
		clk.set(time.UnixMilli(c.now))
		if s := status(); s != c.want {
			t.Fatalf("trade status at %d %s, want %s", c.now, s, c.want)
		}
	}
	if ch.ConfirmedAt(at)-ch.MinedAt(at) != 4000 {
		t.Fatalf("default chain: confirmed %d ms after mined", ch.ConfirmedAt(at)-ch.MinedAt(at))
	}
}

// TestBookSummaryHash: /book serves best-last sides in the token's own
// terms (the NO book mirrors the YES book at 1-p) and a SHA-1 hash of its
// own compact JSON with hash "".
func TestBookSummaryHash(t *testing.T) {
	x, _ := newClocked(t)
	a := x.trader(t, priv0)
	x.fund(t, a.w.addr, 100, 50)
	for _, c := range []int64{48, 49} {
		a.post(t, limitOrder(yesA, "BUY", c, 10), "GTC", false)
	}
	for _, c := range []int64{52, 53} {
		a.post(t, limitOrder(yesA, "SELL", c, 10), "GTC", false)
	}
	r := x.do(t, "GET", "/book?token_id="+yesA, nil, "")
	var b map[string]any
	if err := json.Unmarshal(r.body, &b); err != nil {
		t.Fatal(err)
	}
	blank := strings.Replace(string(r.body), `"hash":"`+b["hash"].(string)+`"`, `"hash":""`, 1)
	sum := sha1.Sum([]byte(blank))
	if hex.EncodeToString(sum[:]) != b["hash"] {
		t.Fatalf("hash %v of %s", b["hash"], r.body)
	}
	if !strings.Contains(string(r.body), `"bids":[{"price":"0.48","size":"10"},{"price":"0.49","size":"10"}],"asks":[{"price":"0.53","size":"10"},{"price":"0.52","size":"10"}],"min_order_size":"5","tick_size":"0.01","neg_risk":false`) {
		t.Fatalf("book %s", r.body)
	}
	no := string(x.do(t, "GET", "/book?token_id="+noA, nil, "").body)
	if !strings.Contains(no, `"bids":[{"price":"0.47","size":"10"},{"price":"0.48","size":"10"}],"asks":[{"price":"0.52","size":"10"},{"price":"0.51","size":"10"}]`) {
		t.Fatalf("NO book %s", no)
	}
	for q, want := range map[string]string{
		"/price?token_id=" + yesA + "&side=BUY":  `{"price":"0.49"}`,
		"/price?token_id=" + yesA + "&side=SELL": `{"price":"0.52"}`,
		"/midpoint?token_id=" + yesA:             `{"mid":"0.505"}`,
		"/spread?token_id=" + yesA:               `{"spread":"0.03"}`,
		"/tick-size?token_id=" + yesB:            `{"minimum_tick_size":0.001}`,
		"/neg-risk?token_id=" + yesB:             `{"neg_risk":true}`,
		"/fee-rate/" + yesA:                      `{"base_fee":0}`,
		"/last-trade-price?token_id=" + yesA:     `{"price":"0.5","side":""}`,
	} {
		if r := x.do(t, "GET", q, nil, ""); r.status != 200 || string(r.body) != want {
			t.Errorf("%s: %d %s, want %s", q, r.status, r.body, want)
		}
	}
}

// TestMarketRoutes: the catalog's order-book markets are listed (paged,
// end LTE=), found by condition id and by token, and 404 otherwise.
func TestMarketRoutes(t *testing.T) {
	x, _ := newClocked(t)
	for _, path := range []string{"/markets", "/simplified-markets", "/sampling-markets", "/sampling-simplified-markets"} {
		p := decode[struct {
			NextCursor string           `json:"next_cursor"`
			Data       []map[string]any `json:"data"`
		}](t, x.do(t, "GET", path+"?next_cursor=MA%3D%3D", nil, ""))
		if p.NextCursor != "LTE=" || len(p.Data) < 3 || p.Data[0]["condition_id"] != condA {
			t.Fatalf("%s: %+v", path, p)
		}
	}
	m := decode[map[string]any](t, x.do(t, "GET", "/markets/"+condB, nil, ""))
	if m["neg_risk"] != true || m["minimum_tick_size"] != 0.001 || m["minimum_order_size"] != 1.0 {
		t.Fatalf("market %v", m)
	}
	x.do(t, "GET", "/markets/0x"+strings.Repeat("0", 64), nil, "").wantError(t, 404, "market not found")
	x.do(t, "GET", "/markets/nope", nil, "").wantError(t, 400, "Invalid market")
	if r := x.do(t, "GET", "/markets-by-token/"+noA, nil, ""); !strings.Contains(string(r.body), `"primary_token_id":"`+yesA) {
		t.Fatalf("by token %s", r.body)
	}
	if r := x.do(t, "GET", "/clob-markets/"+condA, nil, ""); !strings.Contains(string(r.body), `"mts":0.01`) {
		t.Fatalf("clob-markets %s", r.body)
	}
}

// TestHeartbeatCancels: once a key has sent a heartbeat, 10 s without one
// cancels its orders.
func TestHeartbeatCancels(t *testing.T) {
	x, clk := newClocked(t)
	a := x.trader(t, priv0)
	x.fund(t, a.w.addr, 100, 0)
	_, id := a.post(t, limitOrder(yesA, "BUY", 40, 10), "GTC", false)
	hb := decode[map[string]string](t, a.call(t, "POST", "/v1/heartbeats", `{"heartbeat_id":null}`))
	if hb["heartbeat_id"] == "" {
		t.Fatal("no heartbeat id")
	}
	clk.set(clk.Now().Add(10 * time.Second))
	x.svc.Tick()
	if got := decode[map[string]any](t, a.call(t, "GET", "/data/order/"+id, "")); got["status"] != "LIVE" {
		t.Fatalf("canceled at exactly 10 s: %v", got)
	}
	clk.set(clk.Now().Add(time.Millisecond))
	x.svc.Tick()
	if got := decode[map[string]any](t, a.call(t, "GET", "/data/order/"+id, "")); got["status"] != "CANCELED" {
		t.Fatalf("not canceled after 10 s: %v", got)
	}
}

// TestGTDExpires: a GTD order leaves the book at its expiration.
func TestGTDExpires(t *testing.T) {
	x, clk := newClocked(t)
	a := x.trader(t, priv0)
	x.fund(t, a.w.addr, 100, 0)
	o := limitOrder(yesA, "BUY", 40, 10)
	o.Expiration = now0 + 120
	r, id := a.post(t, o, "GTD", false)
	if r.status != 200 {
		t.Fatalf("%s", r.body)
	}
	clk.set(time.Unix(now0+120, 0))
	x.svc.Tick()
	if got := decode[map[string]any](t, a.call(t, "GET", "/data/order/"+id, "")); got["status"] != "CANCELED" {
		t.Fatalf("GTD at expiration: %v", got)
	}
	if b := decode[map[string]any](t, a.call(t, "GET", "/balance-allowance?asset_type=COLLATERAL", "")); b["balance"] != "100000000" {
		t.Fatalf("reservation not released: %v", b)
	}
}

var _ = clobengine.OpTick
