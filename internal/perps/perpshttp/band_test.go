package perpshttp

import (
	"testing"
	"time"
)

// TestOrdersOutsideThePriceBandAreRefusedPriceOutsideBounds: at index
// 60,000 the band (price_bounds 0.05) is [57,000, 63,000]; an aggressive
// limit beyond it is refused price_outside_bounds, a passive one rests, and
// a market order fills only inside the band.
func TestOrdersOutsideThePriceBandAreRefusedPriceOutsideBounds(t *testing.T) {
	e := newEnv(t, Options{})
	e.instrument()
	e.adminPost("/admin/perps/index", `{"instrument_id":1,"price":"60000"}`)
	a, b := e.trader(1, "100000"), e.trader(2, "100000")
	var rest []uint64
	for _, c := range []struct {
		o    ord
		want string
	}{
		{ord{iid: 1, buy: true, p: "63001", qty: "0.1"}, "price_outside_bounds"},
		{ord{iid: 1, p: "56999", qty: "0.1"}, "price_outside_bounds"},
		{ord{iid: 1, buy: true, p: "63000", qty: "0.1"}, "ok"},
		{ord{iid: 1, buy: true, p: "50000", qty: "0.1"}, "ok"}, // passive: rests
		{ord{iid: 1, p: "70000", qty: "0.1"}, "ok"},
	} {
		got := a.place(c.o)[0]
		if got.Status == "ok" {
			rest = append(rest, got.OID)
		}
		if (c.want == "ok") != (got.Status == "ok") || (c.want != "ok" && got.Error != c.want) {
			t.Errorf("%+v: got %+v, want %q", c.o, got, c.want)
		}
	}
	a.cancel(rest...)
	b.placeOK(ord{iid: 1, p: "62000", qty: "0.1"})
	b.placeOK(ord{iid: 1, p: "64000", qty: "0.2"})
	oid := a.placeOK(ord{iid: 1, buy: true, qty: "0.3", tif: "ioc"})
	if o := a.order(oid); o.Status != "ioc_expired" || o.Filled != "0.1" {
		t.Fatalf("market buy across the band's edge: %+v", o)
	}
}

// TestTakerFillThatWouldLeaveTheAccountUnderInitialMarginEndsInsufficientMarginAtFill:
// x (1,000, 20×) buys 0.3 at 60,000, which it can margin when it places
// the order; during the taker delay the index falls to 57,500, so the fill
// would book a 750 loss and leave x under initial margin: the order ends
// with status insufficient_margin_at_fill and the ask is untouched.
func TestTakerFillThatWouldLeaveTheAccountUnderInitialMarginEndsInsufficientMarginAtFill(t *testing.T) {
	e := newEnv(t, Options{TakerDelay: 100 * time.Millisecond})
	e.instrument()
	e.adminPost("/admin/perps/index", `{"instrument_id":1,"price":"60000"}`)
	x, y := e.trader(1, "1000"), e.trader(2, "100000")
	ask := y.placeOK(ord{iid: 1, p: "60000", qty: "0.5"})
	oid := x.placeOK(ord{iid: 1, buy: true, p: "60000", qty: "0.3", tif: "ioc"})
	e.adminPost("/admin/perps/index", `{"instrument_id":1,"price":"57500"}`)
	e.advance(time.Second)
	var o orderRow
	for range 500 {
		if o = x.order(oid); o.Status != "open" {
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	if o.Status != "insufficient_margin_at_fill" || o.Filled != "0" {
		t.Fatalf("taker after the mark moved: %+v", o)
	}
	if r := y.order(ask); r.Status != "open" || r.Filled != "0" {
		t.Fatalf("the ask: %+v", r)
	}
}
