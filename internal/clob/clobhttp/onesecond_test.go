package clobhttp_test

import (
	"encoding/json"
	"strings"
	"testing"
	"time"
)

// TestCLOBFillReachesEveryViewWithinOneSecond: two crossing signed orders,
// then, within one second of the taker's answer, the fill is in both
// wallets' /v2/trades and /v2/activity, their /v2/positions and /v2/value,
// the market's /v2/holders and the token's /v2/prices-history, and the
// catalog market's lastTradePrice, volume, bestBid and bestAsk (the book
// after the fill: the maker's remaining bid and the taker's resting ask),
// and the frames on the maker's user socket and the market socket.
func TestCLOBFillReachesEveryViewWithinOneSecond(t *testing.T) {
	dir, path := newVenuePaths(t)
	v := newFullVenue(t, dir, path)
	a, b := v.trader(t, priv0), v.trader(t, priv1)
	A, B := strings.ToLower(a.w.addr), strings.ToLower(b.w.addr)
	v.fund(t, a.w.addr, 100, 0)
	v.fund(t, b.w.addr, 100, 20)
	// The sockets: a market subscriber and the maker's user channel.
	mkt, ua := v.dial(t, "/ws/market"), v.dial(t, "/ws/user")
	mkt.send(t, `{"assets_ids":["`+yesA+`"],"type":"market"}`)
	mkt.read(t) // the snapshot
	ua.userSub(t, a.c)
	if r, _ := a.post(t, limitOrder(yesA, "BUY", 40, 15), "GTC", false); decode[orderResp](t, r).Status != "live" {
		t.Fatalf("maker: %s", r.body)
	}
	b.post(t, limitOrder(yesA, "SELL", 70, 5), "GTC", false) // rests: the ask after the fill
	r, _ := b.post(t, limitOrder(yesA, "SELL", 40, 10), "GTC", false)
	answered := time.Now()
	var resp struct {
		Status   string   `json:"status"`
		TxHashes []string `json:"transactionsHashes"`
	}
	if err := json.Unmarshal(r.body, &resp); err != nil || resp.Status != "matched" || len(resp.TxHashes) != 1 {
		t.Fatalf("taker: %s", r.body)
	}
	tx := resp.TxHashes[0]
	deadline := answered.Add(raceSlowdown * time.Second)

	// The frames: the maker's order events and trade on its user socket,
	// the trade's last price on the market socket, within the same bound.
	want(t, ua.next(t), map[string]any{"event_type": "order", "type": "PLACEMENT", "status": "LIVE"})
	want(t, ua.next(t), map[string]any{"event_type": "order", "type": "UPDATE", "status": "LIVE", "size_matched": "10"}) // 5 of 15 still rest
	want(t, ua.next(t), map[string]any{"event_type": "trade", "status": "MATCHED", "trader_side": "MAKER", "price": "0.4"})
	for i := 0; ; i++ {
		f := mkt.next(t)
		if f["event_type"] == "last_trade_price" {
			want(t, f, map[string]any{"asset_id": yesA, "price": "0.4", "size": "10", "transaction_hash": tx})
			break
		}
		if i == 8 {
			t.Fatalf("no last_trade_price frame; last %v", f)
		}
	}
	if late := time.Since(deadline); late > 0 {
		t.Fatalf("the socket frames arrived %v after the bound", late)
	}

	rows := func(path string, want ...map[string]any) func(any) bool {
		return func(d any) bool {
			var page []map[string]any
			if m, ok := d.(map[string]any); ok {
				b, _ := json.Marshal(m["data"])
				_ = json.Unmarshal(b, &page)
			}
			for _, w := range want {
				if !has(page, w) {
					return false
				}
			}
			return true
		}
	}
	doc := func(want map[string]string) func(any) bool {
		return func(d any) bool {
			for k, w := range want {
				var path []any
				for _, p := range strings.Split(k, ".") {
					path = append(path, p)
				}
				if field(d, path...) != w {
					return false
				}
			}
			return true
		}
	}
	checks := []struct {
		url string
		ok  func(any) bool
	}{
		{v.data.URL + "/v2/trades?user=" + B, rows("", map[string]any{"side": "SELL", "token_id": yesA, "price": 0.4, "size": 10, "transaction_hash": tx})},
		{v.data.URL + "/v2/trades?taker_only=false&user=" + A, rows("", map[string]any{"side": "BUY", "price": 0.4, "size": 10, "transaction_hash": tx})},
		{v.data.URL + "/v2/activity?user=" + A, rows("", map[string]any{"type": "TRADE", "side": "BUY", "usdc_size": 4, "transaction_hash": tx})},
		{v.data.URL + "/v2/activity?user=" + B, rows("", map[string]any{"type": "TRADE", "side": "SELL", "usdc_size": 4, "transaction_hash": tx})},
		{v.data.URL + "/v2/positions?user=" + A, rows("", map[string]any{"token_id": yesA, "current_size": 10, "avg_price": 0.4})},
		{v.data.URL + "/v2/positions?user=" + B, rows("", map[string]any{"token_id": yesA, "current_size": 10}, map[string]any{"token_id": noA, "current_size": 20})},
		{v.data.URL + "/v2/value?user=" + A, doc(map[string]string{"data.value": "4"})},
		{v.data.URL + "/v2/holders?condition=" + condA, func(d any) bool {
			s, _ := json.Marshal(d)
			return strings.Contains(string(s), A) && strings.Contains(string(s), B)
		}},
		{v.data.URL + "/v2/prices-history?token_id=" + yesA + "&interval=all", func(d any) bool {
			s, _ := json.Marshal(d)
			return strings.Contains(string(s), `"p":0.4`) || strings.Contains(string(s), `"price":0.4`)
		}},
		{v.cat.URL + "/markets/9001", doc(map[string]string{"lastTradePrice": "0.4", "volume": "4", "volumeNum": "4",
			"bestBid": "0.4", "bestAsk": "0.7", "spread": "0.3"})},
	}
	// One second of wall time (ten under the race detector, which slows
	// every part of the venue several times over).
	for _, c := range checks {
		eventuallyDoc(t, c.url, time.Until(deadline), c.ok)
	}
}
