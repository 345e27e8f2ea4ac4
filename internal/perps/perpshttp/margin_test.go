package perpshttp

import "testing"

// TestOrdersTheAccountCannotMarginAreRefusedInsufficientMargin: the worked
// example of docs/perps-risk.md "Pre-trade margin" through the server: 4,000
// collateral, 10×, mark 60,000 from the index.
func TestOrdersTheAccountCannotMarginAreRefusedInsufficientMargin(t *testing.T) {
	e := newEnv(t, Options{})
	e.instrument()
	e.adminPost("/admin/perps/index", `{"instrument_id":1,"price":"60000"}`)
	a := e.trader(1, "4000")
	if code, body := a.setLeverage(1, 10, true); code != 200 {
		t.Fatalf("leverage: %d %s", code, body)
	}
	for _, c := range []struct {
		o    ord
		want string
	}{
		{ord{iid: 1, buy: true, p: "60000", qty: "0.5"}, "ok"},                     // IM 3,000 of 4,000
		{ord{iid: 1, buy: true, p: "60500", qty: "0.2"}, "insufficient_margin"},    // W 0.7: 4,200 + 100 > 4,000
		{ord{iid: 1, p: "60100", qty: "0.3"}, "ok"},                                // W stays 0.5
		{ord{iid: 1, buy: true, p: "60000", qty: "0.1667"}, "insufficient_margin"}, // 6,001.2 / 10 > 4,000
		{ord{iid: 1, buy: true, p: "60000", qty: "0.1666"}, "ok"},                  // 3,999.6 ≤ 4,000
		{ord{iid: 1, buy: true, p: "1", qty: "0.1"}, "insufficient_margin"},        // any added size, at the mark
		{ord{iid: 1, p: "60100", qty: "0.1", ro: boolp(true)}, "ok"},               // reduce-only: never margined
	} {
		got := a.place(c.o)[0]
		if (c.want == "ok") != (got.Status == "ok") || (c.want != "ok" && got.Error != c.want) {
			t.Errorf("%+v: got %+v, want %q", c.o, got, c.want)
		}
	}
}

// TestOrdersAreMarginedAtTheMarkNotTheirOwnPrice: a bid far below the index
// needs the initial margin of its size at the mark.
func TestOrdersAreMarginedAtTheMarkNotTheirOwnPrice(t *testing.T) {
	e := newEnv(t, Options{})
	e.instrument()
	e.adminPost("/admin/perps/index", `{"instrument_id":1,"price":"60000"}`)
	a := e.trader(1, "4000")
	a.setLeverage(1, 10, true)
	// At its own price 1.2 × 30,000 / 10 = 3,600 would fit; at the mark it is 7,200.
	if got := a.place(ord{iid: 1, buy: true, p: "30000", qty: "1.2"})[0]; got.Error != "insufficient_margin" {
		t.Fatalf("bid below the mark: %+v", got)
	}
	if got := a.place(ord{iid: 1, buy: true, p: "30000", qty: "0.6"})[0]; got.Status != "ok" {
		t.Fatalf("bid the account can margin: %+v", got)
	}
}

// TestModifyThatTheAccountCannotMarginIsRefusedInsufficientMargin: growing
// an order past the account's margin is refused like a new order; shrinking
// it is always allowed.
func TestModifyThatTheAccountCannotMarginIsRefusedInsufficientMargin(t *testing.T) {
	e := newEnv(t, Options{})
	e.instrument()
	e.adminPost("/admin/perps/index", `{"instrument_id":1,"price":"60000"}`)
	a := e.trader(1, "4000")
	a.setLeverage(1, 10, true)
	oid := a.placeOK(ord{iid: 1, buy: true, p: "59000", qty: "0.5"}) // IM 3,000 at the mark
	for _, c := range []struct {
		p, qty, want string
	}{
		{"59000", "0.7", "insufficient_margin"}, // 4,200 > 4,000
		{"59000", "0.6", "ok"},                  // 3,600
		{"59000", "0.3", "ok"},                  // shrink
		{"59500", "0.66", "ok"},                 // 3,960
	} {
		it := a.modify(mod{oid: oid, p: c.p, qty: c.qty})
		if len(it) != 1 || (c.want == "ok") != (it[0].Status == "ok") || (c.want != "ok" && it[0].Error != c.want) {
			t.Errorf("modify to %s @ %s: %+v, want %s", c.qty, c.p, it, c.want)
		}
	}
}
