package perpshttp

import (
	"strings"
	"testing"
	"time"
)

// retireEnv: windows of 1 minute (close-only) and 2 minutes (index), a
// long of 0.5 at 60,000 (a, 10× cross, 4,000) against b's short, c's bid
// at 59,000 and a's reduce-only ask at 61,000, index pushed at start.
func retireEnv(t *testing.T) (e *env, a, b, c *trader, bid, ask uint64) {
	e = newEnv(t, Options{CloseOnlyWindow: time.Minute, IndexWindow: 2 * time.Minute})
	e.instrument()
	e.adminPost("/admin/perps/index", `{"instrument_id":1,"price":"60000"}`)
	a, b, c = e.trader(1, "4000"), e.trader(2, "100000"), e.trader(3, "100000")
	if code, body := a.setLeverage(1, 10, true); code != 200 {
		t.Fatalf("leverage: %d %s", code, body)
	}
	b.placeOK(ord{iid: 1, p: "60000", qty: "0.5"})
	a.placeOK(ord{iid: 1, buy: true, p: "60000", qty: "0.5"})
	bid = c.placeOK(ord{iid: 1, buy: true, p: "59000", qty: "0.1"})
	ask = a.placeOK(ord{iid: 1, p: "61000", qty: "0.1", ro: boolp(true)})
	return e, a, b, c, bid, ask
}

func (e *env) adminDo(path, body string) (int, string) {
	return e.do("POST", e.admin.URL+path, []byte(body), nil, nil)
}

// TestCloseOnlyCancelsExposureIncreasingOrdersAndRefusesNonReduceOnly: the
// operator's close-only cancels c's bid with status instrument_close_only,
// keeps a's reduce-only ask, refuses new orders that are not reduce-only
// (instrument_close_only) and shows close_only on the instrument.
func TestCloseOnlyCancelsExposureIncreasingOrdersAndRefusesNonReduceOnly(t *testing.T) {
	e, a, _, c, bid, ask := retireEnv(t)
	if code, body := e.adminDo("/admin/perps/close-only", `{"instrument_id":1}`); code != 200 {
		t.Fatalf("close-only: %d %s", code, body)
	}
	if o := c.order(bid); o.Status != "instrument_close_only" {
		t.Errorf("bid after close-only: %+v", o)
	}
	if o := a.order(ask); o.Status != "open" {
		t.Errorf("reduce-only ask after close-only: %+v", o)
	}
	if got := c.place(ord{iid: 1, buy: true, p: "59000", qty: "0.1"})[0]; got.Error != "instrument_close_only" {
		t.Errorf("new order in close-only: %+v", got)
	}
	a.placeOK(ord{iid: 1, p: "61500", qty: "0.1", ro: boolp(true)})
	var ins []struct {
		CloseOnly bool `json:"close_only"`
	}
	if code, body := e.get("/v1/info/instruments", &ins); code != 200 || len(ins) != 1 || !ins[0].CloseOnly {
		t.Errorf("instruments: %d %s", code, body)
	}
	if code, body := e.adminDo("/admin/perps/close-only", `{"instrument_id":9}`); code != 422 || body != `{"status":"err","error":"instrument_not_found"}`+"\n" {
		t.Errorf("unknown instrument: %d %s", code, body)
	}
}

// TestSettlementAfterBothWindowsClosesPositionsAndRefusesNewWork walks the
// settlement row: settlement_invalid_state before close-only and before a
// minute of it, settlement_price_unavailable without a complete fresh index
// window, then the settlement at the window's mean (59,000): a's
// reduce-only ask ends instrument_settled (also on the WS orders channel),
// both positions close at 59,000 without fees, and new work is refused with
// instrument_settled, across a restart too. (settlement_insurance_insufficient
// needs an account whose settlement leaves a deficit while the sweep has not
// liquidated it: the machine transcript testdata/retire.txt covers it.)
func TestSettlementAfterBothWindowsClosesPositionsAndRefusesNewWork(t *testing.T) {
	e, a, b, _, _, ask := retireEnv(t)
	settle := func(want string) {
		t.Helper()
		code, body := e.adminDo("/admin/perps/settle", `{"instrument_id":1}`)
		if want == "" && code != 200 || want != "" && (code != 422 || body != `{"status":"err","error":"`+want+`"}`+"\n") {
			t.Fatalf("settle: %d %s, want %q", code, body, want)
		}
	}
	settle("settlement_invalid_state")
	e.adminDo("/admin/perps/close-only", `{"instrument_id":1}`)
	e.advance(30 * time.Second)
	settle("settlement_invalid_state")
	e.advance(50 * time.Second) // 80 s of close-only, 80 s since the last index push
	settle("settlement_price_unavailable")
	for range 3 {
		e.adminPost("/admin/perps/index", `{"instrument_id":1,"price":"59000"}`)
		e.advance(50 * time.Second)
	}
	e.adminPost("/admin/perps/index", `{"instrument_id":1,"price":"59000"}`)
	e.advance(10 * time.Second)
	ws := e.dial(t)
	ws.auth(a)
	ws.call("sub", `"chs":["orders"]`)
	settle("")
	if _, d := ws.pushOn("orders"); !strings.Contains(string(d), `"status":"instrument_settled"`) {
		t.Errorf("orders push of the settlement: %s", d)
	}
	check := func() {
		t.Helper()
		if o := a.order(ask); o.Status != "instrument_settled" {
			t.Errorf("a's ask after settlement: %+v", o)
		}
		if f := a.waitFills(2)[0]; f.Price != "59000" || f.Side != "short" || f.PnL != "-500" || f.Fee != "0" || f.Liquidation {
			t.Errorf("a's settlement fill: %+v", f)
		}
		if f := b.waitFills(2)[0]; f.Price != "59000" || f.Side != "long" || f.PnL != "500" {
			t.Errorf("b's settlement fill: %+v", f)
		}
		var p struct{ Positions []any }
		if code, body := a.read("/v1/account/portfolio", &p); code != 200 || len(p.Positions) != 0 {
			t.Errorf("portfolio after settlement: %d %s", code, body)
		}
		if got := b.place(ord{iid: 1, buy: true, p: "59000", qty: "0.1", ro: boolp(true)})[0]; got.Error != "instrument_settled" {
			t.Errorf("order on a settled instrument: %+v", got)
		}
		settle("settlement_invalid_state")
		if code, body := e.adminDo("/admin/perps/close-only", `{"instrument_id":1}`); code != 422 || body != `{"status":"err","error":"instrument_settled"}`+"\n" {
			t.Errorf("close-only of a settled instrument: %d %s", code, body)
		}
	}
	check()
	e.restart()
	check()
}
