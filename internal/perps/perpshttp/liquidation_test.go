package perpshttp

import (
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

// TestLiquidationSweepFlagsAccountWhenMarkFallsBelowMaintenance: the worked
// example of docs/perps-risk.md "Margin" through the server (4,000
// collateral, 10×, long 0.5 at 60,000, 12 of taker fee): index 53,500
// leaves equity 738 ≥ MM 668.75; at 53,000 equity 488 < MM 662.5, so the
// sweep flags the account (in_liquidation), cancels its resting orders and
// refuses new ones with account_liquidating; back at 60,000 the flag clears.
// (That 53,500 alone flags nothing is TestSweepFlagsAccountsBelowMaintenance…
// in the machine, where the sweep's timing is the test's.)
func TestLiquidationSweepFlagsAccountWhenMarkFallsBelowMaintenance(t *testing.T) {
	e := newEnv(t, Options{})
	e.instrument()
	e.adminPost("/admin/perps/index", `{"instrument_id":1,"price":"60000"}`)
	long, short := e.trader(1, "4000"), e.trader(2, "100000")
	if code, body := long.setLeverage(1, 10, true); code != 200 {
		t.Fatalf("leverage: %d %s", code, body)
	}
	short.placeOK(ord{iid: 1, p: "60000", qty: "0.5"})
	long.placeOK(ord{iid: 1, buy: true, p: "60000", qty: "0.5"})
	resting := long.placeOK(ord{iid: 1, p: "70000", qty: "0.1", ro: boolp(true)})

	e.adminPost("/admin/perps/index", `{"instrument_id":1,"price":"53500"}`)
	e.adminPost("/admin/perps/index", `{"instrument_id":1,"price":"53000"}`)
	long.waitInLiquidation(true)
	if o := long.order(resting); o.Status != "cancelled" {
		t.Errorf("resting order of a flagged account: %+v", o)
	}
	if got := long.place(ord{iid: 1, p: "53000", qty: "0.1", ro: boolp(true)})[0]; got.Error != "account_liquidating" {
		t.Errorf("order while flagged: %+v", got)
	}
	short.waitInLiquidation(false)

	e.adminPost("/admin/perps/index", `{"instrument_id":1,"price":"60000"}`)
	long.waitInLiquidation(false)
	// Journaled: a restart replays to the same flags.
	e.restart()
	long.waitInLiquidation(false)
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
