package clobhttp_test

import (
	"strings"
	"testing"
	"time"

	"pmx/internal/clob/clob"
	"pmx/internal/clob/clobsvc"
)

// TestMarketResolvesAndRedeems: the operator resolves market A with its
// payouts (POST /admin/clob/resolve): its open orders are canceled and
// their funds released, trading stops, positions become REDEEMABLE /
// REDEEMABLE_LOST, the catalog market closes with the payouts as its
// outcome prices and /v2/resolutions shows it. POST /admin/clob/redeem pays
// the winner (REDEEM activity, /v2/biggest-winners ranks the win); the
// automatic redemption, after its delay, redeems the remaining holder. Bad
// input gets the catalogue's errors, never a 500.
func TestMarketResolvesAndRedeems(t *testing.T) {
	dir, path := newVenuePaths(t)
	v := newFullVenue(t, dir, path, func(o *clobsvc.Options) { o.AutoRedeem = time.Hour })
	a, b := v.trader(t, priv0), v.trader(t, priv1)
	A, B := strings.ToLower(a.w.addr), strings.ToLower(b.w.addr)
	v.fund(t, a.w.addr, 100, 0)
	v.fund(t, b.w.addr, 100, 20) // b: 20 Yes, 20 No
	a.post(t, limitOrder(yesA, "BUY", 40, 10), "GTC", false)
	if r, _ := b.post(t, limitOrder(yesA, "SELL", 40, 10), "GTC", false); decode[orderResp](t, r).Status != "matched" {
		t.Fatalf("trade: %s", r.body)
	}
	// Resting orders the resolution must cancel: a's bid holds 1.5 USDC.
	a.post(t, limitOrder(yesA, "BUY", 30, 5), "GTC", false)
	b.post(t, limitOrder(noA, "SELL", 90, 5), "GTC", false)

	res := `{"condition_id":"` + condA + `","payouts":["1","0"]}`
	for _, c := range []struct {
		name, path, body string
		code             clob.Code
	}{
		{"unknown condition", "/admin/clob/resolve", `{"condition_id":"0x` + strings.Repeat("ab", 32) + `","payouts":["1","0"]}`, clob.ErrMarketNotFound},
		{"malformed condition", "/admin/clob/resolve", `{"condition_id":"0x12","payouts":["1","0"]}`, clob.ErrInvalidMarket},
		{"payouts not summing to 1", "/admin/clob/resolve", `{"condition_id":"` + condA + `","payouts":["0.5","0.6"]}`, clob.ErrInvalidPayouts},
		{"a payout that is no number", "/admin/clob/resolve", `{"condition_id":"` + condA + `","payouts":["one","0"]}`, clob.ErrInvalidPayouts},
		{"three payouts", "/admin/clob/resolve", `{"condition_id":"` + condA + `","payouts":["1","0","0"]}`, clob.ErrInvalidPayouts},
		{"no payouts", "/admin/clob/resolve", `{"condition_id":"` + condA + `"}`, clob.ErrInvalidPayouts},
		{"redeem before resolution", "/admin/clob/redeem", `{"address":"` + A + `","condition_id":"` + condA + `"}`, clob.ErrMarketNotResolved},
		{"redeem of a bad address", "/admin/clob/redeem", `{"address":"0x12","condition_id":"` + condA + `"}`, clob.ErrInvalidPayload},
	} {
		e := clob.E(c.code)
		v.op(t, c.path, c.body).wantError(t, e.Status(), e.Msg)
	}

	r := v.op(t, "/admin/clob/resolve", res)
	if r.status != 200 || strings.Count(string(r.body), "0x") != 2 {
		t.Fatalf("resolve: %d %s (want both resting orders canceled)", r.status, r.body)
	}
	e := clob.E(clob.ErrMarketResolved)
	v.op(t, "/admin/clob/resolve", res).wantError(t, e.Status(), e.Msg)
	e = clob.E(clob.ErrMarketNotReady)
	if r, _ := a.post(t, limitOrder(yesA, "BUY", 50, 5), "GTC", false); r.status != 400 || !strings.Contains(string(r.body), e.Msg) {
		t.Fatalf("order after resolution: %d %s", r.status, r.body)
	}
	var acct map[string]any
	if getJSON(t, v.admin.URL+"/admin/clob/accounts/"+A, &acct); acct["collateral"] != "96000000" || acct["open_orders"] != nil {
		t.Fatalf("a after resolution: %v (want 96 USDC free: the bid's reservation released)", acct)
	}

	const sec = 10 * time.Second // a generous deadline: the feed is asynchronous
	v.eventually(t, "/v2/positions?user="+A, func(rows []map[string]any) bool {
		return has(rows, map[string]any{"token_id": yesA, "current_size": 10, "status": "REDEEMABLE", "current_price": 1})
	})
	v.eventually(t, "/v2/positions?status=REDEEMABLE_LOST&user="+B, func(rows []map[string]any) bool { // the lost filter; rows still say REDEEMABLE
		return has(rows, map[string]any{"token_id": noA, "current_size": 20, "status": "REDEEMABLE", "current_price": 0})
	})
	eventuallyDoc(t, v.data.URL+"/v2/resolutions?condition="+condA, sec, func(d any) bool {
		return field(d, "data", 0, "status") == "resolved" && field(d, "data", 0, "payouts") == "[1e+06 0]"
	})
	eventuallyDoc(t, v.cat.URL+"/markets/9001", sec, func(d any) bool {
		return field(d, "closed") == "true" && field(d, "acceptingOrders") == "false" && field(d, "outcomePrices") == `["1", "0"]`
	})

	r = v.op(t, "/admin/clob/redeem", `{"address":"`+A+`","condition_id":"`+condA+`"}`)
	if r.status != 200 || !strings.Contains(string(r.body), `"paid":"10"`) || !strings.Contains(string(r.body), `"shares":"10"`) {
		t.Fatalf("redeem: %d %s", r.status, r.body)
	}
	e = clob.E(clob.ErrNothingToRedeem)
	v.op(t, "/admin/clob/redeem", `{"address":"`+A+`","condition_id":"`+condA+`"}`).wantError(t, e.Status(), e.Msg)
	if getJSON(t, v.admin.URL+"/admin/clob/accounts/"+A, &acct); acct["collateral"] != "106000000" {
		t.Fatalf("a after redemption: %v", acct)
	}
	v.eventually(t, "/v2/activity?user="+A, func(rows []map[string]any) bool {
		return has(rows, map[string]any{"type": "REDEEM", "size": 10, "usdc_size": 10, "condition_id": condA})
	})
	eventuallyDoc(t, v.data.URL+"/v2/biggest-winners", sec, func(d any) bool {
		return field(d, "data", 0, "user_id") == A && field(d, "data", 0, "pnl") == "6"
	})

	// The automatic redemption: nothing before its delay, then b's holding.
	v.svc.Tick()
	if getJSON(t, v.admin.URL+"/admin/clob/accounts/"+B, &acct); acct["collateral"] != "84000000" {
		t.Fatalf("b redeemed before the delay: %v", acct)
	}
	v.clk.set(time.Unix(now0, 0).Add(time.Hour))
	v.svc.Tick()
	if getJSON(t, v.admin.URL+"/admin/clob/accounts/"+B, &acct); acct["collateral"] != "94000000" {
		t.Fatalf("b after the automatic redemption: %v (want 84 + 10 Yes × 1)", acct)
	}
	v.eventually(t, "/v2/activity?user="+B, func(rows []map[string]any) bool {
		return has(rows, map[string]any{"type": "REDEEM", "size": 30, "usdc_size": 10})
	})
}
