package clobhttp_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"pmx/internal/clob/clob"
)

// milliOrder is a limit order of shares at a price in thousandths.
func milliOrder(token, side string, milli, shares int64) testOrder {
	size, coll := shares*1_000_000, shares*milli*1_000
	o := testOrder{V: 1, Token: token, Side: side, MakerAmt: coll, TakerAmt: size}
	if side == "SELL" {
		o.MakerAmt, o.TakerAmt = size, coll
	}
	return o
}

// TestTickSizeChangeReachesSocketsAndOrders: the operator changes market
// A's tick size (POST /admin/clob/tick-size). Followers of either token get
// tick_size_change and then the book on the new grid; GET /tick-size, the
// book, the CLOB market and the catalog's orderPriceMinTickSize follow;
// orders on the old grid but off the new one get the contract's tick size
// error; a resting order keeps its price and priority; the change is
// journaled (it survives a restart and a catalog sync).
func TestTickSizeChangeReachesSocketsAndOrders(t *testing.T) {
	dir, path := newVenuePaths(t)
	v := newFullVenue(t, dir, path)
	a, b := v.trader(t, priv0), v.trader(t, priv1)
	v.fund(t, a.w.addr, 100, 0)
	v.fund(t, b.w.addr, 100, 20)

	follow := func(token string) *wsClient {
		w := v.dial(t, "/ws/market")
		w.send(t, `{"assets_ids":["`+token+`"],"type":"market"}`)
		w.read(t) // the snapshot
		return w
	}
	mY, mN := follow(yesA), follow(noA)
	if r, _ := a.post(t, limitOrder(yesA, "BUY", 40, 10), "GTC", false); decode[orderResp](t, r).Status != "live" {
		t.Fatalf("resting bid: %s", r.body)
	}
	want(t, mY.next(t), map[string]any{"event_type": "price_change"})
	want(t, mN.next(t), map[string]any{"event_type": "price_change"})

	offGrid := func(milli int64, tick string) {
		t.Helper()
		r, id := a.post(t, milliOrder(yesA, "BUY", milli, 10), "GTC", false)
		e := clob.E(clob.ErrTickSize, id, fmt.Sprintf("0.%03d", milli), tick)
		r.wantError(t, e.Status(), e.Msg)
	}
	offGrid(405, "0.01")

	tickBody := func(cond, tick string) string {
		return `{"condition_id":"` + cond + `","tick_size":` + tick + `}`
	}
	for _, c := range []struct {
		name, body string
		code       clob.Code
	}{
		{"not a tick size", tickBody(condA, `"0.005"`), clob.ErrInvalidTickSize},
		{"no tick size", `{"condition_id":"` + condA + `"}`, clob.ErrInvalidTickSize},
		{"a tick size that is no number", tickBody(condA, `"fine"`), clob.ErrInvalidTickSize},
		{"unknown condition", tickBody("0x"+strings.Repeat("ab", 32), `"0.001"`), clob.ErrMarketNotFound},
		{"malformed condition", tickBody("0x12", `"0.001"`), clob.ErrInvalidMarket},
	} {
		e := clob.E(c.code)
		v.op(t, "/admin/clob/tick-size", c.body).wantError(t, e.Status(), e.Msg)
	}

	if r := v.op(t, "/admin/clob/tick-size", tickBody(condA, `"0.001"`)); r.status != 200 {
		t.Fatalf("tick size change: %d %s", r.status, r.body)
	}
	for token, w := range map[string]*wsClient{yesA: mY, noA: mN} {
		f := w.next(t)
		want(t, f, map[string]any{"event_type": "tick_size_change", "asset_id": token, "market": condA,
			"old_tick_size": "0.01", "new_tick_size": "0.001"})
		if ts, _ := f["timestamp"].(string); ts == "" || len(f) != 6 {
			t.Fatalf("tick_size_change frame %v", f)
		}
		want(t, w.next(t), map[string]any{"event_type": "book", "asset_id": token, "tick_size": "0.001"})
	}
	var ts map[string]any
	getJSON(t, v.srv.URL+"/tick-size?token_id="+yesA, &ts)
	getJSON(t, v.srv.URL+"/tick-size/"+noA, &ts)
	if fmt.Sprint(ts["minimum_tick_size"]) != "0.001" {
		t.Fatalf("/tick-size: %v", ts)
	}
	var mkt map[string]any
	getJSON(t, v.srv.URL+"/markets/"+condA, &mkt)
	if fmt.Sprint(mkt["minimum_tick_size"]) != "0.001" {
		t.Fatalf("/markets/{cond} minimum_tick_size %v", mkt["minimum_tick_size"])
	}
	eventuallyDoc(t, v.cat.URL+"/markets/9001", 10*time.Second, func(doc any) bool { return field(doc, "orderPriceMinTickSize") == "0.001" })

	// 0.405 is on the new grid; it trades, and the trade prints at 0.405.
	if r, _ := a.post(t, milliOrder(yesA, "BUY", 405, 10), "GTC", false); decode[orderResp](t, r).Status != "live" {
		t.Fatalf("bid at 0.405: %s", r.body)
	}
	want(t, mY.next(t), map[string]any{"event_type": "price_change"})
	mN.next(t)
	if r, _ := b.post(t, limitOrder(yesA, "SELL", 40, 5), "FAK", false); decode[orderResp](t, r).Status != "matched" {
		t.Fatalf("sell into 0.405: %s", r.body)
	}
	want(t, mY.next(t), map[string]any{"event_type": "last_trade_price", "asset_id": yesA, "price": "0.405", "size": "5"})
	want(t, mY.next(t), map[string]any{"event_type": "book", "last_trade_price": "0.405", "tick_size": "0.001"})

	// Back to 0.01: the resting 0.405 bid stays; a new 0.415 is refused.
	if r := v.op(t, "/admin/clob/tick-size", tickBody(condA, "0.01")); r.status != 200 {
		t.Fatalf("tick size back: %d %s", r.status, r.body)
	}
	want(t, mY.next(t), map[string]any{"event_type": "tick_size_change", "old_tick_size": "0.001", "new_tick_size": "0.01"})
	offGrid(415, "0.01")
	bookBids := func(url string) string {
		var bk struct {
			TickSize string `json:"tick_size"`
			Bids     []struct{ Price, Size string }
		}
		getJSON(t, url+"/book?token_id="+yesA, &bk)
		raw, _ := json.Marshal(bk.Bids)
		return bk.TickSize + " " + string(raw)
	}
	const wantBook = `0.01 [{"Price":"0.4","Size":"10"},{"Price":"0.405","Size":"5"}]`
	if got := bookBids(v.srv.URL); got != wantBook {
		t.Fatalf("book after the coarser tick: %s, want %s", got, wantBook)
	}

	// The change is journaled: a restart (whose catalog sync re-registers
	// the market at 0.01) keeps the grid and the book.
	if err := v.svc.Close(); err != nil {
		t.Fatal(err)
	}
	w := newExchange(t, dir, v.clk, "enforce")
	if got := bookBids(w.srv.URL); got != wantBook {
		t.Fatalf("book after a restart: %s, want %s", got, wantBook)
	}
	getJSON(t, w.srv.URL+"/tick-size/"+yesA, &ts)
	if fmt.Sprint(ts["minimum_tick_size"]) != "0.01" {
		t.Fatalf("/tick-size after a restart: %v", ts)
	}
}
