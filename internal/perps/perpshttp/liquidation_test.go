package perpshttp

import (
	"strings"
	"testing"
	"time"
)

// inLiquidation reads the portfolio's in_liquidation, waiting (bounded) for
// it to equal want: the sweep runs on the service's driver goroutine.
func (tr *trader) waitInLiquidation(want bool) {
	tr.e.t.Helper()
	var p struct {
		InLiquidation bool `json:"in_liquidation"`
	}
	for range 500 {
		if code, body := tr.read("/v1/account/portfolio", &p); code != 200 {
			tr.e.t.Fatalf("portfolio: %d %s", code, body)
		}
		if p.InLiquidation == want {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
	tr.e.t.Fatalf("in_liquidation stayed %v", p.InLiquidation)
}

// liqFill is a GET /v1/account/fills row with the liquidation flags.
type liqFill struct {
	OrderID     uint64 `json:"order_id"`
	Side        string `json:"side"`
	Price       string `json:"price"`
	Quantity    string `json:"quantity"`
	Fee         string `json:"fee"`
	PnL         string `json:"pnl"`
	Liquidation bool   `json:"liquidation"`
	ADL         bool   `json:"adl"`
}

// waitFills reads tr's fills (newest first), waiting (bounded) until there
// are n: the sweep runs on the service's driver goroutine.
func (tr *trader) waitFills(n int) []liqFill {
	tr.e.t.Helper()
	var f struct{ Data []liqFill }
	for range 1000 {
		if code, body := tr.read("/v1/account/fills", &f); code != 200 {
			tr.e.t.Fatalf("fills: %d %s", code, body)
		}
		if len(f.Data) >= n {
			return f.Data
		}
		time.Sleep(10 * time.Millisecond)
	}
	tr.e.t.Fatalf("fills stayed %+v, want %d", f.Data, n)
	return nil
}

// insurance is the insurance fund's balance after a top-up of 1.
func (e *env) insurancePlusOne() string {
	e.t.Helper()
	var b struct{ Insurance string }
	if code, body := e.do("POST", e.admin.URL+"/admin/perps/insurance", []byte(`{"amount":"1"}`), nil, &b); code != 200 {
		e.t.Fatalf("insurance: %d %s", code, body)
	}
	return b.Insurance
}

// liqSetup: a 10× cross long of 0.5 at 60,000 with 4,000 (12 of taker fee)
// against b's short, at index 60,000.
func liqSetup(t *testing.T) (e *env, long, short *trader) {
	e = newEnv(t, Options{})
	e.instrument()
	e.adminPost("/admin/perps/index", `{"instrument_id":1,"price":"60000"}`)
	long, short = e.trader(1, "4000"), e.trader(2, "100000")
	if code, body := long.setLeverage(1, 10, true); code != 200 {
		t.Fatalf("leverage: %d %s", code, body)
	}
	short.placeOK(ord{iid: 1, p: "60000", qty: "0.5"})
	long.placeOK(ord{iid: 1, buy: true, p: "60000", qty: "0.5"})
	return e, long, short
}

// TestLongLiquidatedWhenMarkFallsClosesAgainstTheBookWithTheLiquidationFee:
// at mark 53,100 the long's equity (538) is below maintenance (663.75) but
// above ⅔ of it: the sweep flags it, cancels its resting order and closes
// the position with a reduce-only IOC into c's bid at 53,000; the fill is
// flagged liquidation, pays the 0.04 % rate and the liquidation fee capped
// at what is left (488 in all, 477.4 of it to the insurance fund), and the
// account ends flat, unflagged, at 0. A restart replays to the same state.
func TestLongLiquidatedWhenMarkFallsClosesAgainstTheBookWithTheLiquidationFee(t *testing.T) {
	e, long, _ := liqSetup(t)
	resting := long.placeOK(ord{iid: 1, p: "70000", qty: "0.1", ro: boolp(true)})
	c := e.trader(3, "100000")
	c.placeOK(ord{iid: 1, buy: true, p: "53000", qty: "0.5"})

	e.adminPost("/admin/perps/index", `{"instrument_id":1,"price":"53100"}`)
	check := func() {
		t.Helper()
		f := long.waitFills(2)[0]
		if !f.Liquidation || f.ADL || f.Side != "short" || f.Price != "53000" || f.Quantity != "0.5" || f.Fee != "488" || f.PnL != "-3500" || f.OrderID == 0 {
			t.Fatalf("liquidation fill: %+v", f)
		}
		if o := long.order(resting); o.Status != "cancelled" {
			t.Errorf("resting order of a liquidated account: %+v", o)
		}
		long.waitInLiquidation(false)
		var p struct {
			Positions []any
			Margin    struct {
				TotalAccountValue string `json:"total_account_value"`
			}
		}
		if code, body := long.read("/v1/account/portfolio", &p); code != 200 || len(p.Positions) != 0 || p.Margin.TotalAccountValue != "0" {
			t.Fatalf("portfolio after liquidation: %d %s", code, body)
		}
	}
	check()
	if got := e.insurancePlusOne(); got != "478.4" {
		t.Errorf("insurance fund after the liquidation fee (+1): %s, want 478.4", got)
	}
	e.restart()
	check()
	if got := e.insurancePlusOne(); got != "479.4" {
		t.Errorf("insurance fund after a restart (+2): %s, want 479.4", got)
	}
}

// TestLongLiquidatedInsuranceFundTakesDeficit: the mark gaps to 51,000, the
// long's equity is −512 and the book is empty; the insurance fund (10,000)
// takes the position at the mark and the deficit (9,488 left). The
// account's fill has no order and is flagged liquidation.
func TestLongLiquidatedInsuranceFundTakesDeficit(t *testing.T) {
	e, long, _ := liqSetup(t)
	e.adminPost("/admin/perps/insurance", `{"amount":"10000"}`)
	e.adminPost("/admin/perps/index", `{"instrument_id":1,"price":"51000"}`)
	f := long.waitFills(2)[0]
	if !f.Liquidation || f.ADL || f.OrderID != 0 || f.Price != "51000" || f.Fee != "0" || f.PnL != "-4500" {
		t.Fatalf("backstop fill: %+v", f)
	}
	long.waitInLiquidation(false)
	if got := e.insurancePlusOne(); got != "9489" {
		t.Errorf("insurance fund after the deficit (+1): %s, want 9489", got)
	}
}

// TestEmptyFundDeleveragesMostProfitableOpposingPosition: with an empty
// fund the long gapped to 48,000 (equity −2,012) closes at its bankruptcy
// price 52,024 against the short with the highest ADL index (b, short at
// 60,000, ahead of c, short at 57,000, whose portfolio showed adl_index 1
// and then 3); both fills are flagged adl, the long's also liquidation, on
// /v1/account/fills and on the private WS fills channel.
func TestEmptyFundDeleveragesMostProfitableOpposingPosition(t *testing.T) {
	e, long, b := liqSetup(t)
	c, d := e.trader(3, "100000"), e.trader(4, "100000")
	c.placeOK(ord{iid: 1, p: "57000", qty: "0.5"}) // the edge of the price band
	d.placeOK(ord{iid: 1, buy: true, p: "57000", qty: "0.5"})
	adlIndex := func(tr *trader) int {
		var p struct {
			Positions []struct {
				ADLIndex int `json:"adl_index"`
			}
		}
		if code, body := tr.read("/v1/account/portfolio", &p); code != 200 || len(p.Positions) != 1 {
			t.Fatalf("portfolio: %d %s", code, body)
		}
		return p.Positions[0].ADLIndex
	}
	if bi, ci := adlIndex(b), adlIndex(c); bi != 3 || ci != 1 {
		t.Fatalf("adl_index before: b %d c %d, want 3 and 1", bi, ci)
	}
	wl, wb := e.dial(t), e.dial(t)
	wl.auth(long)
	wb.auth(b)
	wl.call("sub", `"chs":["fills"]`)
	wb.call("sub", `"chs":["fills"]`)
	e.adminPost("/admin/perps/index", `{"instrument_id":1,"price":"48000"}`)
	if _, d := wl.pushOn("fills"); !strings.Contains(string(d), `"p":"52024"`) || !strings.Contains(string(d), `"liq":true,"adl":true`) {
		t.Errorf("bankrupt side's fills push %s", d)
	}
	if _, d := wb.pushOn("fills"); !strings.Contains(string(d), `"p":"52024"`) || !strings.Contains(string(d), `"liq":false,"adl":true`) {
		t.Errorf("deleveraged side's fills push %s", d)
	}
	f := long.waitFills(2)[0]
	if !f.Liquidation || !f.ADL || f.Price != "52024" || f.Fee != "0" || f.PnL != "-3988" {
		t.Fatalf("bankrupt side: %+v", f)
	}
	if g := b.waitFills(2)[0]; g.Liquidation || !g.ADL || g.Side != "long" || g.Price != "52024" || g.PnL != "3988" {
		t.Fatalf("deleveraged short: %+v", g)
	}
	if n := len(c.waitFills(1)); n != 1 {
		t.Fatalf("c was deleveraged too: %d fills", n)
	}
	if ci := adlIndex(c); ci != 3 {
		t.Errorf("adl_index of c after b left: %d, want 3", ci)
	}
}

// TestAdminInsuranceTopUp: POST /admin/perps/insurance adds to the fund and
// answers its balance; bad amounts are refused.
func TestAdminInsuranceTopUp(t *testing.T) {
	e := newEnv(t, Options{})
	for _, c := range []struct {
		body string
		code int
		want string
	}{
		{`{"amount":"10000"}`, 200, `{"insurance":"10000","status":"ok"}`},
		{`{"amount":"0.5"}`, 200, `{"insurance":"10000.5","status":"ok"}`},
		{`{"amount":"0"}`, 422, `{"status":"err","error":"invalid amount"}`},
		{`{"amount":"-3"}`, 422, `{"status":"err","error":"invalid amount"}`},
		{`{"amount":"1.0000001"}`, 422, `{"status":"err","error":"invalid amount"}`},
	} {
		if code, body := e.do("POST", e.admin.URL+"/admin/perps/insurance", []byte(c.body), nil, nil); code != c.code || body != c.want+"\n" {
			t.Errorf("%s: %d %s, want %d %s", c.body, code, body, c.code, c.want)
		}
	}
	if code, _ := e.do("POST", e.admin.URL+"/admin/perps/insurance", []byte(`{"amount":"1","x":1}`), nil, nil); code != 400 {
		t.Errorf("unknown field: %d", code)
	}
	e.restart()
	if code, body := e.do("POST", e.admin.URL+"/admin/perps/insurance", []byte(`{"amount":"1"}`), nil, nil); code != 200 || body != `{"insurance":"10001.5","status":"ok"}`+"\n" {
		t.Errorf("after restart: %d %s", code, body)
	}
}
