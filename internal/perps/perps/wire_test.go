package perps

import (
	"testing"

	"pmx/internal/exchange/fixed"
)

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
		{"0.5", "0.5"}, {"00.5", "0.5"}, {"0.50", "0.5"}, {"100.05", "100.05"}, {"100.10", "100.1"}, {"000100", "100"},
	} {
		ev := apply(Command{Kind: KCreateOrders, Account: acA, Orders: []OrderReq{{IID: 1, Buy: true, P: sp(tc.sent), Qty: "1", TIF: sp("ioc")}}})
		if len(ev.Orders) != 1 || ev.Acks[0].Status != "ok" {
			t.Fatalf("%s: %+v %+v", tc.sent, ev.Acks, ev.Orders)
		}
		if got := ev.Orders[0].P; got != tc.want {
			t.Errorf("price sent %q: row %q, want %q", tc.sent, got, tc.want)
		}
	}
	// A taker's fill shows the resting order's row at its own price, not the
	// taker's string.
	apply(Command{Kind: KDeposit, Account: acB, Amount: "100000000"})
	if ev := apply(Command{Kind: KCreateOrders, Account: acB, Orders: []OrderReq{{IID: 1, Buy: false, P: sp("99.5"), Qty: "1"}}}); ev.Acks[0].Status != "ok" {
		t.Fatalf("maker: %+v", ev.Acks)
	}
	ev := apply(Command{Kind: KCreateOrders, Account: acA, Orders: []OrderReq{{IID: 1, Buy: true, P: sp("101"), Qty: "1", TIF: sp("ioc")}}})
	got := map[string]string{}
	for _, r := range ev.Orders {
		got[r.Account] = r.P
	}
	if got[acB] != "99.5" || got[acA] != "101" {
		t.Errorf("rows of the cross: maker %q (want 99.5), taker %q (want 101): %+v", got[acB], got[acA], ev.Orders)
	}
	if m.reqP != "" || m.reqTicks != 0 {
		t.Errorf("reqP kept after the command: %q (%d ticks)", m.reqP, m.reqTicks)
	}
}

// canonicalPrice holds for exactly the accepted price strings that are
// their value's formatted form, on grids of 0 to 4 decimals.
func TestCanonicalPriceIsTheFormattedForm(t *testing.T) {
	var yes, no int
	for d := uint8(0); d <= 4; d++ {
		g := fixed.Instrument{PriceDecimals: d, QtyDecimals: 2}
		for v := int64(1); v <= 30_000; v += 7 {
			f := g.FormatPrice(fixed.Price(v))
			for _, s := range []string{f, "0" + f, f + "0", f + ".0", f + ".00", "00" + f, f + "1", "-" + f, f + "."} {
				p, err := g.ParsePrice(s)
				if err != nil {
					continue
				}
				want := g.FormatPrice(p) == s
				if canonicalPrice(s) != want {
					t.Fatalf("%d decimals: canonicalPrice(%q) = %v, want %v", d, s, !want, want)
				}
				if want {
					yes++
				} else {
					no++
				}
			}
		}
	}
	if yes < 1000 || no < 1000 {
		t.Fatalf("only %d canonical and %d other strings", yes, no)
	}
}
