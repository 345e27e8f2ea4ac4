package perps

import "testing"

// An order's event row shows its price in the canonical form whatever form
// the request used: the row shares the request's string only when the two
// are the same (priceString).
func TestOrderRowPriceIsCanonical(t *testing.T) {
	m := New(Config{})
	ts := int64(1000)
	apply := func(c Command) Event { ts++; return m.Apply(0, ts, c.Encode(), nil)[0] }
	apply(Command{Kind: KCreateInstrument, Instrument: &InstrumentSpec{Symbol: "BTC-USD", Category: "crypto", PriceDecimals: 2, QtyDecimals: 3, MaxLeverage: 20}})
	apply(Command{Kind: KDeposit, Account: acA, Amount: "100000000"})
	for _, tc := range []struct{ sent, want string }{
		{"100", "100"}, {"100.0", "100"}, {"100.50", "100.5"}, {"0100.5", "100.5"}, {"99.99", "99.99"}, {"7", "7"},
	} {
		ev := apply(Command{Kind: KCreateOrders, Account: acA, Orders: []OrderReq{{IID: 1, Buy: true, P: sp(tc.sent), Qty: "1", TIF: sp("ioc")}}})
		if len(ev.Orders) != 1 || ev.Acks[0].Status != "ok" {
			t.Fatalf("%s: %+v %+v", tc.sent, ev.Acks, ev.Orders)
		}
		if got := ev.Orders[0].P; got != tc.want {
			t.Errorf("price sent %q: row %q, want %q", tc.sent, got, tc.want)
		}
	}
	if m.reqP != "" {
		t.Errorf("reqP kept after the command: %q", m.reqP)
	}
}
