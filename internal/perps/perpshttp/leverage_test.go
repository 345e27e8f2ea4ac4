package perpshttp

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

// setLeverage sends PATCH /v1/trade/leverage {iid, lev, cross}.
func (tr *trader) setLeverage(iid, lev int, cross bool) (int, string) {
	keyed := fmt.Sprintf(`{"type":"updateLeverage","args":{"iid":%d,"lev":%d,"cross":%t}}`, iid, lev, cross)
	return tr.signed("PATCH", "/v1/trade/leverage", tr.proxy, keyed, []any{"updateLeverage", []any{iid, lev, cross}}, "")
}

// TestUpdateLeverageAnswersAndConfigShowsIt: the answer is {status,
// instrument_id, leverage, cross}, and GET /v1/account/config resolves to it.
func TestUpdateLeverageAnswersAndConfigShowsIt(t *testing.T) {
	e := newEnv(t, Options{})
	e.instrument()
	a := e.trader(1, "100000")
	code, body := a.setLeverage(1, 5, true)
	if code != 200 || body != `{"status":"ok","instrument_id":1,"leverage":5,"cross":true}`+"\n" {
		t.Fatalf("updateLeverage: %d %s", code, body)
	}
	var cfg []map[string]any
	if a.read("/v1/account/config", &cfg); len(cfg) != 1 || cfg[0]["leverage"] != 5.0 || cfg[0]["cross"] != true {
		t.Fatalf("config %v", cfg)
	}
	// Journaled: the setting survives a restart.
	e.restart()
	cfg = nil
	if a.read("/v1/account/config", &cfg); len(cfg) != 1 || cfg[0]["leverage"] != 5.0 || cfg[0]["cross"] != true {
		t.Fatalf("config after restart %v", cfg)
	}
}

// TestUpdateLeverageErrors: every row of the contract's leverage table (422
// {status:"err", error}); zero leverage is an earlier plain 400.
func TestUpdateLeverageErrors(t *testing.T) {
	e := newEnv(t, Options{RiskDelay: 500 * time.Millisecond}) // the injected clock stands still: orders stay awaiting risk checks
	e.instrument()
	e.adminPost("/admin/perps/index", `{"instrument_id":1,"price":"100"}`)
	a := e.trader(1, "100000")
	for _, c := range []struct {
		name      string
		iid, lev  int
		cross     bool
		code      int
		wantError string
	}{
		{"instrument_not_found", 7, 5, false, 422, "instrument_not_found"},
		{"invalid_leverage", 1, 21, false, 422, "invalid_leverage"},
		{"zero leverage is a plain 400", 1, 0, false, 400, "invalid request: leverage must be positive"},
	} {
		code, body := a.setLeverage(c.iid, c.lev, c.cross)
		if want := fmt.Sprintf(`{"status":"err","error":%q}`, c.wantError) + "\n"; code != c.code || body != want {
			t.Errorf("%s: %d %s, want %d %s", c.name, code, body, c.code, want)
		}
	}
	// open_orders_exist: a mode switch with an order awaiting risk approval.
	a.placeOK(ord{iid: 1, buy: true, p: "99", qty: "1"})
	if code, body := a.setLeverage(1, 20, true); code != 422 || !strings.Contains(body, `"error":"open_orders_exist"`) {
		t.Errorf("open_orders_exist: %d %s", code, body)
	}
	// exp is not allowed on leverage updates (perps.md §3).
	keyed := `{"type":"updateLeverage","args":{"iid":1,"lev":5,"cross":false}}`
	if code, body := a.signed("PATCH", "/v1/trade/leverage", a.proxy, keyed, []any{"updateLeverage", []any{1, 5, false}},
		fmt.Sprintf(`,"exp":%d`, e.now()+1000)); code != 400 || body != `{"status":"err","error":"invalid request: exp: not allowed on updateLeverage"}`+"\n" {
		t.Errorf("exp on updateLeverage: %d %s", code, body)
	}
	// A leverage change without a mode switch is allowed with orders.
	if code, body := a.setLeverage(1, 10, false); code != 200 {
		t.Errorf("leverage change with orders: %d %s", code, body)
	}
}

// TestUpdateLeveragePositionExists: a margin-mode switch with an open
// position is position_exists.
func TestUpdateLeveragePositionExists(t *testing.T) {
	e := newEnv(t, Options{})
	e.instrument()
	e.adminPost("/admin/perps/index", `{"instrument_id":1,"price":"100"}`)
	a, b := e.trader(1, "100000"), e.trader(2, "100000")
	b.placeOK(ord{iid: 1, p: "100", qty: "1"})
	a.placeOK(ord{iid: 1, buy: true, p: "100", qty: "1"})
	if code, body := a.setLeverage(1, 20, true); code != 422 || body != `{"status":"err","error":"position_exists"}`+"\n" {
		t.Errorf("position_exists: %d %s", code, body)
	}
}

// TestUpdateLeveragesBatch: one item per instrument, in order, not atomic;
// refused items carry instrument_id; repeated instruments are a plain 400.
func TestUpdateLeveragesBatch(t *testing.T) {
	e := newEnv(t, Options{})
	e.instrument()
	a := e.trader(1, "100000")
	keyed := `{"type":"updateLeverages","args":[{"iid":1,"lev":3,"cross":true},{"iid":9,"lev":3,"cross":false}]}`
	code, body := a.signed("PATCH", "/v1/trade/leverages", a.proxy, keyed,
		[]any{"updateLeverages", []any{[]any{1, 3, true}, []any{9, 3, false}}}, "")
	want := `[{"status":"ok","instrument_id":1,"leverage":3,"cross":true},{"status":"err","instrument_id":9,"error":"instrument_not_found"}]` + "\n"
	if code != 200 || body != want {
		t.Fatalf("updateLeverages: %d %s", code, body)
	}
	keyed = `{"type":"updateLeverages","args":[{"iid":1,"lev":3,"cross":true},{"iid":1,"lev":4,"cross":true}]}`
	code, body = a.signed("PATCH", "/v1/trade/leverages", a.proxy, keyed,
		[]any{"updateLeverages", []any{[]any{1, 3, true}, []any{1, 4, true}}}, "")
	if code != 400 || body != `[{"status":"err","error":"invalid request: instrument ids must be unique"}]`+"\n" {
		t.Fatalf("repeated instrument: %d %s", code, body)
	}
}

// TestUpdateLeverageOverWebSocket: the WS post answers the same body.
func TestUpdateLeverageOverWebSocket(t *testing.T) {
	e := newEnv(t, Options{})
	e.instrument()
	a := e.trader(1, "100000")
	w := e.dial(t)
	w.auth(a)
	d := w.signedPost(a, `{"type":"updateLeverage","args":{"iid":1,"lev":7,"cross":false}}`, []any{"updateLeverage", []any{1, 7, false}})
	if string(d) != `{"status":"ok","instrument_id":1,"leverage":7,"cross":false}` {
		t.Fatalf("ws updateLeverage: %s", d)
	}
	d = w.signedPost(a, `{"type":"updateLeverage","args":{"iid":1,"lev":70,"cross":false}}`, []any{"updateLeverage", []any{1, 70, false}})
	if string(d) != `{"status":"err","error":"invalid_leverage"}` {
		t.Fatalf("ws invalid_leverage: %s", d)
	}
	d = w.signedPost(a, `{"type":"updateLeverages","args":[{"iid":1,"lev":2,"cross":true}]}`, []any{"updateLeverages", []any{[]any{1, 2, true}}})
	if string(d) != `[{"status":"ok","instrument_id":1,"leverage":2,"cross":true}]` {
		t.Fatalf("ws updateLeverages: %s", d)
	}
}
