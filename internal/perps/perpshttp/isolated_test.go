package perpshttp

import (
	"fmt"
	"testing"
)

// marginBody is a signed PATCH /v1/trade/margin body {iid, amt} at ts (ms),
// signed by tr's proxy.
func (tr *trader) marginBody(iid int, amt string, ts uint64) []byte {
	salt := tr.e.salt.Add(1)
	sig := tr.proxy.sign(tOpDigest([]any{"updateMargin", []any{iid, amt}}, salt, ts))
	keyed := fmt.Sprintf(`{"type":"updateMargin","args":{"iid":%d,"amt":%q}}`, iid, amt)
	return []byte(fmt.Sprintf(`{"op":%s,"sig":%q,"salt":%d,"ts":%d}`, keyed, sig, salt, ts))
}

func (tr *trader) sendMargin(body []byte) (int, string) {
	return tr.e.do("PATCH", tr.e.api.URL+"/v1/trade/margin", body, nil, nil)
}

func (tr *trader) margin(iid int, amt string) (int, string) {
	return tr.sendMargin(tr.marginBody(iid, amt, tr.e.now()))
}

func (tr *trader) withdrawable() string {
	tr.e.t.Helper()
	var pf struct{ Withdrawable string }
	if code, body := tr.read("/v1/account/portfolio", &pf); code != 200 {
		tr.e.t.Fatalf("portfolio: %d %s", code, body)
	}
	return pf.Withdrawable
}

// isoSetup: a's isolated 20× long of 0.5 at 60,000 (IM 1,500, 12 of taker
// fee) against b's short, index 60,000; c holds a cross short.
func isoSetup(t *testing.T) (e *env, a, b, c *trader) {
	e = newEnv(t, Options{})
	e.instrument()
	e.adminPost("/admin/perps/index", `{"instrument_id":1,"price":"60000"}`)
	a, b, c = e.trader(1, "10000"), e.trader(2, "100000"), e.trader(3, "100000")
	if code, body := a.margin(1, "100"); code != 422 || body != `{"status":"err","error":"position_not_found"}`+"\n" {
		t.Fatalf("position_not_found: %d %s", code, body)
	}
	b.placeOK(ord{iid: 1, p: "60000", qty: "0.5"})
	a.placeOK(ord{iid: 1, buy: true, p: "60000", qty: "0.5"})
	if code, body := c.setLeverage(1, 10, true); code != 200 {
		t.Fatalf("leverage: %d %s", code, body)
	}
	b.placeOK(ord{iid: 1, buy: true, p: "59000", qty: "0.1"})
	c.placeOK(ord{iid: 1, p: "59000", qty: "0.1"})
	return e, a, b, c
}

// TestUpdateMarginErrors: each refusal of the contract's isolated margin
// adjustment list through PATCH /v1/trade/margin (422 {status:"err",
// error}; account_liquidating is the machine's TestAdjustMarginAccountLiquidating),
// and a refusal moves nothing.
func TestUpdateMarginErrors(t *testing.T) {
	e, a, _, c := isoSetup(t)
	free := a.withdrawable()
	for _, tc := range []struct {
		who  *trader
		iid  int
		amt  string
		want string
	}{
		{a, 7, "100", "position_not_found"},
		{c, 1, "10", "invalid_margin_mode"},
		{a, 1, "0", "invalid_margin_amount"},
		{a, 1, "0.0000001", "invalid_margin_amount"},
		{a, 1, "99999999999999999999", "invalid_margin_amount"},
		{a, 1, "8488.000001", "insufficient_margin"},
		{a, 1, "-1", "margin_below_required_initial"},
	} {
		code, body := tc.who.margin(tc.iid, tc.amt)
		if want := `{"status":"err","error":"` + tc.want + `"}` + "\n"; code != 422 || body != want {
			t.Errorf("amt %s: %d %s, want 422 %s", tc.amt, code, body, want)
		}
	}
	if got := a.withdrawable(); got != free {
		t.Fatalf("refusals moved money: withdrawable %s, was %s", got, free)
	}
	// Not a decimal: an earlier plain 400.
	if code, _ := a.margin(1, "1e3"); code != 400 {
		t.Errorf("amt 1e3: %d, want 400", code)
	}
	// Outside the margin window (more than 1 minute ahead, more than 5
	// minutes old): the gateway's signature window is the same, so it
	// refuses first, as the contract allows ("may earlier be invalid
	// signature"); the sequenced invalid_margin_signature_timestamp is the
	// machine's transcript testdata/isolated.txt.
	for _, ts := range []uint64{e.now() + 60_001, e.now() - 300_001} {
		if code, body := a.sendMargin(a.marginBody(1, "1", ts)); code != 400 && code != 401 {
			t.Errorf("ts %d (now %d): %d %s", ts, e.now(), code, body)
		}
	}
	if got := a.withdrawable(); got != free {
		t.Fatalf("stale requests moved money: withdrawable %s, was %s", got, free)
	}
}

// TestUpdateMarginMovesCollateralAndAResendIsSignatureAlreadyUsed: an
// addition moves collateral into the allocation (withdrawable falls by it);
// the identical request resent answers signature_already_used and does not
// apply twice, before and after a restart.
func TestUpdateMarginMovesCollateralAndAResendIsSignatureAlreadyUsed(t *testing.T) {
	e, a, _, _ := isoSetup(t)
	// Margined in the cross scope, the position holds back 10 % of its
	// notional (risk.Withdrawable's reserve): 10,000 − 12 − 3,000.
	if got := a.withdrawable(); got != "6988" {
		t.Fatalf("withdrawable before %s, want 6988", got)
	}
	body := a.marginBody(1, "500", e.now())
	if code, out := a.sendMargin(body); code != 200 || out != `{"status":"ok"}`+"\n" {
		t.Fatalf("add 500: %d %s", code, out)
	}
	// Its own scope now: the collateral is 9,988 − the allocation 1,500 + 500.
	if got := a.withdrawable(); got != "7988" {
		t.Fatalf("withdrawable after adding 500: %s, want 7988", got)
	}
	// The position shows its allocation as initial_margin (+ uPnL 0) and the
	// price where 2,000 + 0.5·(x − 60,000) = 0.5·x·0.025, x = 57,435.89…:
	// the first tick at or below it, where the scope is liquidated (equity
	// 717.9 < MM 717.9475).
	var pf struct {
		Positions []struct {
			InitialMargin    string `json:"initial_margin"`
			LiquidationPrice string `json:"liquidation_price"`
		}
	}
	if a.read("/v1/account/portfolio", &pf); len(pf.Positions) != 1 || pf.Positions[0].InitialMargin != "2000" ||
		pf.Positions[0].LiquidationPrice != "57435.8" {
		t.Fatalf("portfolio positions %+v", pf.Positions)
	}
	if code, out := a.sendMargin(body); code != 422 || out != `{"status":"err","error":"signature_already_used"}`+"\n" {
		t.Fatalf("resend: %d %s", code, out)
	}
	e.restart()
	if code, out := a.sendMargin(body); code != 422 || out != `{"status":"err","error":"signature_already_used"}`+"\n" {
		t.Fatalf("resend after restart: %d %s", code, out)
	}
	if got := a.withdrawable(); got != "7988" {
		t.Fatalf("withdrawable after the resends: %s, want 7988", got)
	}
	// A removal down to the initial margin is allowed, one micro-unit more is not.
	if code, out := a.margin(1, "-500.000001"); code != 422 || out != `{"status":"err","error":"margin_below_required_initial"}`+"\n" {
		t.Fatalf("remove 500.000001: %d %s", code, out)
	}
	if code, out := a.margin(1, "-500"); code != 200 {
		t.Fatalf("remove 500: %d %s", code, out)
	}
	if got := a.withdrawable(); got != "8488" {
		t.Fatalf("withdrawable after removing 500: %s, want 8488", got)
	}
}

// TestIsolatedLiquidationLeavesCrossCollateralUntouched: the mark falls to
// 57,000; a's isolated position (allocation 2,000) is liquidated into b's
// bid at 56,500, its fee capped at what the allocation has left; a's cross
// collateral (10,000 − 12 − 2,000 = 7,988) is untouched and a is never
// flagged.
func TestIsolatedLiquidationLeavesCrossCollateralUntouched(t *testing.T) {
	e, a, b, _ := isoSetup(t)
	if code, out := a.margin(1, "500"); code != 200 {
		t.Fatalf("add 500: %d %s", code, out)
	}
	b.placeOK(ord{iid: 1, buy: true, p: "56500", qty: "1"})
	e.adminPost("/admin/perps/index", `{"instrument_id":1,"price":"57000"}`)
	f := a.waitFills(2)[0]
	if !f.Liquidation || f.Price != "56500" || f.Quantity != "0.5" || f.Fee != "250" {
		t.Fatalf("liquidation fill %+v", f)
	}
	a.waitInLiquidation(false)
	if got := a.withdrawable(); got != "7988" {
		t.Fatalf("withdrawable after the isolated liquidation: %s, want the cross collateral 7988", got)
	}
}

// TestUpdateMarginOverWebSocket: the post updateMargin answers the REST
// bodies, {status:"ok"} and {status:"err", error}.
func TestUpdateMarginOverWebSocket(t *testing.T) {
	e, a, _, _ := isoSetup(t)
	w := e.dial(t)
	w.auth(a)
	if d := w.signedPost(a, `{"type":"updateMargin","args":{"iid":1,"amt":"500"}}`, []any{"updateMargin", []any{1, "500"}}); string(d) != `{"status":"ok"}` {
		t.Fatalf("ws updateMargin: %s", d)
	}
	if d := w.signedPost(a, `{"type":"updateMargin","args":{"iid":1,"amt":"-500.000001"}}`, []any{"updateMargin", []any{1, "-500.000001"}}); string(d) != `{"status":"err","error":"margin_below_required_initial"}` {
		t.Fatalf("ws margin_below_required_initial: %s", d)
	}
	if got := a.withdrawable(); got != "7988" {
		t.Fatalf("withdrawable %s, want 7988", got)
	}
}
