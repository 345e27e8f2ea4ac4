package clobhttp_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"pmx/internal/clob/clob"
	"pmx/internal/clob/clobengine"
)

// unreachable lists the catalogue entries no request can trigger in pmx,
// with the reason (docs/clob.md "Errors"). Every other entry must be
// reached by TestErrorContract; adding a code without a trigger or an
// entry here fails the test.
var unreachable = map[clob.Code]string{
	clob.ErrCrossesBook:      "pmx reports a crossing post-only order as 'invalid post-only order: order crosses book'",
	clob.ErrOrderTimedOut:    "an order is journaled before its answer; there is no deadline after which it is dropped",
	clob.ErrNoMatchingOrders: "the engine matches in one step against its own book; a match cannot lose its makers",
	clob.ErrFOKKilled:        "an unfillable FOK is refused before the book (order couldn't be fully filled)",
	clob.ErrRounding:         "fills are exact integers (collateral held at 1e-10)",
	clob.ErrTakerPrice:       "the taker always trades at the resting maker's price",
	clob.ErrInternal:         "only internal failures; TestWriteError covers the mapping",
	clob.ErrContextCanceled:  "a client that hangs up; TestWriteError covers the mapping",
	clob.ErrRetrieveAPIKeys:  "store failures; TestStoreFailures covers them",
	clob.ErrDeleteAPIKey:     "store failures; TestStoreFailures covers them",
	clob.ErrBuilderCreate:    "store failures only",
	clob.ErrBuilderGet:       "store failures only",
	clob.ErrBuilderRevoke:    "store failures only",
	clob.ErrBuilderTrades:    "internal failures only",
	clob.ErrTooEarly:         "TestTooEarlyDuringReplay",
	// TestBuilderKeys reaches these three.
	clob.ErrBuilderRevokeBody:    "TestBuilderKeys",
	clob.ErrBuilderRevokeHeaders: "TestBuilderKeys",
	clob.ErrBuilderTradeParams:   "TestBuilderKeys",
	// The operator's resolution entries: TestMarketResolvesAndRedeems.
	clob.ErrMarketResolved:    "TestMarketResolvesAndRedeems",
	clob.ErrMarketNotResolved: "TestMarketResolvesAndRedeems",
	clob.ErrInvalidPayouts:    "TestMarketResolvesAndRedeems",
	clob.ErrNothingToRedeem:   "TestMarketResolvesAndRedeems",
	clob.ErrInvalidTickSize:   "TestTickSizeChangeReachesSocketsAndOrders",
}

// TestErrorContract reaches every reachable message of the contract's
// CLOB error table through the real handler, with its status (after the
// override rule) and its exact text.
func TestErrorContract(t *testing.T) {
	x, clk := newClocked(t)
	a, b := x.trader(t, priv0), x.trader(t, priv1)
	x.fund(t, a.w.addr, 1000, 100)
	x.fund(t, b.w.addr, 1000, 100)
	reached := map[clob.Code]bool{}
	want := func(c clob.Code, r reply, args ...any) {
		t.Helper()
		e := clob.E(c, args...)
		r.wantError(t, e.Status(), e.Msg)
		reached[c] = true
	}
	post := func(tr *trader, o testOrder, typ string) reply {
		r, _ := tr.post(t, o, typ, false)
		return r
	}
	ids := func(n int) string {
		s := make([]string, n)
		for i := range s {
			s[i] = fmt.Sprintf(`"0x%064x"`, i+1)
		}
		return "[" + strings.Join(s, ",") + "]"
	}

	// Authentication.
	want(clob.ErrUnauthorized, x.do(t, "GET", "/data/orders", nil, ""))
	want(clob.ErrInvalidL1, x.do(t, "POST", "/auth/api-key", nil, ""))
	want(clob.ErrDeriveAPIKey, x.do(t, "GET", "/auth/derive-api-key", newWallet(t, priv2).l1(now0, 0), ""))
	want(clob.ErrCreateAPIKey, x.do(t, "POST", "/auth/api-key", a.w.l1(now0, 0), ""))
	want(clob.ErrNotFound, x.do(t, "GET", "/nope", nil, ""))

	// Market data.
	want(clob.ErrInvalidTokenID, x.do(t, "GET", "/book?token_id=abc", nil, ""))
	want(clob.ErrNoOrderbook, x.do(t, "GET", "/book?token_id=999", nil, ""))
	want(clob.ErrInvalidPayload, x.do(t, "POST", "/books", nil, "{"))
	want(clob.ErrPayloadLimit, x.do(t, "POST", "/last-trades-prices", nil, strings.Repeat(`{"token_id":"1"},`, 500)[:0]+"["+strings.TrimSuffix(strings.Repeat(`{"token_id":"1"},`, 501), ",")+"]"))
	want(clob.ErrInvalidSide, x.do(t, "GET", "/price?token_id="+yesA+"&side=UP", nil, ""))
	want(clob.ErrInvalidMarket, x.do(t, "GET", "/markets/0x12", nil, ""))
	want(clob.ErrMarketNotFound, x.do(t, "GET", "/tick-size?token_id=999", nil, ""))
	want(clob.ErrHistoryFilter, x.do(t, "GET", "/prices-history?market=x", nil, ""), "market")
	want(clob.ErrOhlcStartTs, x.do(t, "GET", "/ohlc?asset_id="+yesA, nil, ""))
	want(clob.ErrOhlcAssetID, x.do(t, "GET", "/ohlc?startTs=1", nil, ""))
	want(clob.ErrOhlcFidelity, x.do(t, "GET", "/ohlc?startTs=1&asset_id="+yesA+"&fidelity=2m", nil, ""))
	want(clob.ErrOhlcLimit, x.do(t, "GET", "/ohlc?startTs=1&asset_id="+yesA+"&limit=1001", nil, ""))

	// Order payloads and identities.
	want(clob.ErrInvalidOrderPayload, a.call(t, "POST", "/order", "{"))
	wire, _ := a.w.sign(limitOrder(yesA, "BUY", 40, 10))
	want(clob.ErrOwnerMismatch, a.call(t, "POST", "/order", `{"order":`+wire+`,"owner":"`+b.c.APIKey+`","orderType":"GTC"}`))
	want(clob.ErrSignerMismatch, b.call(t, "POST", "/order", `{"order":`+wire+`,"owner":"`+b.c.APIKey+`","orderType":"GTC"}`))
	want(clob.ErrTooManyOrders, a.call(t, "POST", "/orders", "["+strings.TrimSuffix(strings.Repeat(`{"order":{},"owner":"x","orderType":"GTC"},`, 16), ",")+"]"), 16, 15)

	// Order processing.
	off := limitOrder(yesA, "BUY", 40, 10)
	off.MakerAmt++
	_, offID := a.w.sign(off)
	_ = offID
	r := post(a, off, "GTC")
	if !strings.Contains(string(r.body), "breaks minimum tick size rule: 0.01") {
		t.Fatalf("tick: %s", r.body)
	}
	reached[clob.ErrTickSize] = r.status == 400
	r = post(a, limitOrder(yesA, "BUY", 40, 1), "GTC")
	if r.status != 400 || !strings.Contains(string(r.body), "Size (1) lower than the minimum: 5") {
		t.Fatalf("min size: %d %s", r.status, r.body)
	}
	reached[clob.ErrMinSize] = true
	want(clob.ErrNotEnoughBalance, post(a, limitOrder(yesA, "BUY", 40, 100000), "GTC"))
	gtd := limitOrder(yesA, "BUY", 40, 10)
	gtd.Expiration = now0 + 30
	want(clob.ErrInvalidExpiration, post(a, gtd, "GTD"))
	nonce := limitOrder(yesA, "BUY", 40, 10)
	nonce.Nonce = 1
	want(clob.ErrNonceCanceled, post(a, nonce, "GTC"))
	want(clob.ErrFOKUnfilled, post(a, limitOrder(yesA, "BUY", 40, 10), "FOK"))
	want(clob.ErrFAKNoMatch, post(a, limitOrder(yesA, "BUY", 40, 10), "FAK"))
	want(clob.ErrMarketNotReady, post(a, limitOrder(yesD, "BUY", 40, 10), "GTC"))
	dup := limitOrder(yesA, "BUY", 30, 10)
	dup.Salt = 777
	if r := post(a, dup, "GTC"); r.status != 200 {
		t.Fatalf("first: %s", r.body)
	}
	_, dupID := a.w.sign(dup)
	want(clob.ErrDuplicated, post(a, dup, "GTC"), dupID)
	post(b, limitOrder(yesA, "SELL", 60, 10), "GTC")
	r, _ = a.post(t, limitOrder(yesA, "BUY", 60, 10), "GTC", true)
	want(clob.ErrPostOnlyCrosses, r)
	// Market C delays matching by 3 s: a crossing FOK is refused, a
	// crossing GTC waits and then trades.
	x.must(t, clobengine.Command{Op: clobengine.OpSplit, Addr: strings.ToLower(b.w.addr), Cond: condC, Amount: 50_000_000})
	if r := post(b, limitOrder(yesC, "SELL", 50, 10), "GTC"); r.status != 200 {
		t.Fatalf("C ask: %s", r.body)
	}
	want(clob.ErrMatchDelayed, post(a, limitOrder(yesC, "BUY", 50, 10), "FOK"))
	r = post(a, limitOrder(yesC, "BUY", 50, 10), "GTC")
	if o := decode[orderResp](t, r); o.Status != "delayed" {
		t.Fatalf("delayed: %s", r.body)
	}
	clk.set(clk.Now().Add(3 * time.Second))
	x.svc.Tick()
	if tr := decode[map[string]any](t, a.call(t, "GET", "/data/trades?market="+condC, "")); tr["count"] != 1.0 {
		t.Fatalf("delayed order did not trade: %v", tr)
	}

	// Cancels and queries.
	want(clob.ErrInvalidOrderID, a.call(t, "DELETE", "/order", `{"orderID":"0x1"}`))
	want(clob.ErrTooManyCancels, a.call(t, "DELETE", "/orders", ids(1001)), 1000)
	want(clob.ErrOrderNotFound, a.call(t, "GET", "/data/order/"+fmt.Sprintf("0x%064x", 5), ""))
	want(clob.ErrInvalidOrderParams, a.call(t, "GET", "/data/orders?market=zz", ""))
	want(clob.ErrInvalidTradeParams, a.call(t, "GET", "/data/trades?before=x", ""))
	want(clob.ErrInvalidAssetType, a.call(t, "GET", "/balance-allowance?asset_type=GOLD", ""))
	want(clob.ErrInvalidSignatureType, a.call(t, "GET", "/balance-allowance?asset_type=COLLATERAL&signature_type=4", ""))

	// Operator stand-ins: addresses and modes.
	admin := func(c clobengine.Command) { x.must(t, c) }
	admin(clobengine.Command{Op: clobengine.OpAddress, Addr: strings.ToLower(a.w.addr), Status: clobengine.StatusBanned})
	want(clob.ErrAddressBanned, post(a, limitOrder(yesA, "BUY", 40, 10), "GTC"), strings.ToLower(a.w.addr))
	admin(clobengine.Command{Op: clobengine.OpAddress, Addr: strings.ToLower(a.w.addr), Status: clobengine.StatusClosedOnly})
	want(clob.ErrClosedOnly, post(a, limitOrder(yesA, "BUY", 40, 10), "GTC"), strings.ToLower(a.w.addr))
	if r := post(a, limitOrder(yesA, "SELL", 90, 10), "GTC"); r.status != 200 {
		t.Fatalf("closed-only SELL: %s", r.body)
	}
	admin(clobengine.Command{Op: clobengine.OpAddress, Addr: strings.ToLower(a.w.addr), Status: clobengine.StatusNormal})
	admin(clobengine.Command{Op: clobengine.OpMode, Mode: clobengine.ModeCancelOnly})
	want(clob.ErrCancelOnly, post(a, limitOrder(yesA, "BUY", 40, 10), "GTC"))
	if r := a.call(t, "DELETE", "/cancel-all", ""); r.status != 200 {
		t.Fatalf("cancel in cancel-only: %s", r.body)
	}
	admin(clobengine.Command{Op: clobengine.OpMode, Mode: clobengine.ModeHalted})
	want(clob.ErrTradingDisabled, post(a, limitOrder(yesA, "BUY", 40, 10), "GTC"))
	want(clob.ErrTradingDisabled, a.call(t, "DELETE", "/cancel-all", ""))
	admin(clobengine.Command{Op: clobengine.OpMode, Mode: clobengine.ModePostOnly, Retry: 30})
	r = post(a, limitOrder(yesA, "BUY", 40, 10), "GTC")
	if r.status != 503 || r.header.Get("Retry-After") != "30" ||
		string(r.body) != `{"error":"Trading is currently post-only. Only post-only orders and cancels are allowed.","code":"post_only_mode","retry_after_seconds":30}` {
		t.Fatalf("post-only mode: %d %s %v", r.status, r.body, r.header)
	}
	reached[clob.ErrPostOnlyMode] = true
	admin(clobengine.Command{Op: clobengine.OpMode, Mode: clobengine.ModeNormal})

	// Rate limits: the Standard order bucket holds 60.
	for i := 0; ; i++ {
		r := post(b, limitOrder(yesA, "BUY", 1, 5), "GTC")
		if r.status == 429 {
			want(clob.ErrTooManyRequests, r)
			break
		}
		if i > 60 {
			t.Fatal("order bucket never emptied")
		}
	}

	for _, c := range clob.Codes() {
		if _, skip := unreachable[c]; !skip && !reached[c] {
			t.Errorf("not reached: %q", clob.Catalogue[c].Msg)
		}
	}
}

// TestTooEarlyDuringReplay: while the engine replays its journal, trading
// and book routes answer 425; API keys still work.
func TestTooEarlyDuringReplay(t *testing.T) {
	gate := make(chan struct{})
	x := newExchangeGated(t, "", &fixedClock{t: time.Unix(now0, 0)}, "enforce", gate)
	a := x.trader(t, priv0)
	e := clob.E(clob.ErrTooEarly)
	for _, r := range []reply{
		x.do(t, "GET", "/book?token_id="+yesA, nil, ""),
		x.do(t, "GET", "/markets", nil, ""),
		a.call(t, "DELETE", "/cancel-all", ""),
		a.call(t, "GET", "/data/orders", ""),
	} {
		r.wantError(t, 425, e.Msg)
	}
	r, _ := a.post(t, limitOrder(yesA, "BUY", 40, 10), "GTC", false)
	r.wantError(t, 425, e.Msg)
	close(gate)
	<-x.svc.Ready()
	if r := x.do(t, "GET", "/book?token_id="+yesA, nil, ""); r.status != 200 {
		t.Fatalf("after replay: %d %s", r.status, r.body)
	}
}
