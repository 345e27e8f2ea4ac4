package perps

import (
	"strings"
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

// plainPrice takes exactly what ParsePrice accepts, with its value, for
// the strings it takes; it takes every formatted price of up to 5
// significant figures (integers of any, to 18 digits with the decimals), on
// grids of 0 to 4 and 12 decimals; what it takes is the formatted form.
func TestPlainPriceIsParsePrice(t *testing.T) {
	var taken, left int
	for _, d := range []uint8{0, 1, 2, 3, 4, 12} {
		g := fixed.Instrument{PriceDecimals: d, QtyDecimals: 2}
		for _, v := range priceValues() {
			f := g.FormatPrice(fixed.Price(v))
			for i, s := range []string{f, "0" + f, f + "0", f + ".0", f + ".00", "00" + f, f + "1", f + "7", "-" + f, f + ".", "." + f, f + "5e1", " " + f, "1" + f, f + "9999"} {
				ticks, ok := plainPrice(g, s)
				p, err := g.ParsePrice(s)
				if !ok {
					if i == 0 && err == nil && (g.FormatPrice(p) == s) && plainExpected(s, d) {
						t.Fatalf("%d decimals: plainPrice(%q) not taken (ParsePrice %d)", d, s, p)
					}
					left++
					continue
				}
				taken++
				if err != nil || int64(p) != ticks || g.FormatPrice(p) != s {
					t.Fatalf("%d decimals: plainPrice(%q) = %d; ParsePrice %d, %v; formatted %q", d, s, ticks, p, err, g.FormatPrice(p))
				}
			}
		}
	}
	if taken < 5000 || left < 5000 {
		t.Fatalf("only %d strings taken and %d left", taken, left)
	}
}

// priceValues are tick counts around every power of ten and sig-fig edge.
func priceValues() []int64 {
	var vs []int64
	for p := int64(1); p <= 1e18 && p > 0; p *= 10 {
		for _, m := range []int64{1, 2, 9, 10, 11, 99, 100, 101, 12345, 123456, 99999, 100001} {
			if v := p * m; v > 0 && v/m == p {
				vs = append(vs, v, v-1, v+1)
			}
		}
	}
	return vs
}

// plainExpected is the rule plainPrice states, written separately: at most
// 5 significant figures unless integral, value·10^d below 10^18.
func plainExpected(s string, d uint8) bool {
	intPart, frac, point := s, "", false
	for i := range s {
		if s[i] == '.' {
			intPart, frac, point = s[:i], s[i+1:], true
		}
	}
	if len(intPart)+int(d) > 18 {
		return false
	}
	if !point {
		return true
	}
	digits := strings.TrimLeft(intPart+frac, "0")
	return len(digits) <= fixed.MaxSigFigs
}

// FuzzPlainPrice: whatever plainPrice takes, ParsePrice accepts with the
// same value, and formats back to the same string.
func FuzzPlainPrice(f *testing.F) {
	for _, s := range []string{"100", "0.5", "100.05", "12.345", "1.23456", "0100", "100.50", "999999999999999999", "0.00001", "1e5", "-1", "."} {
		f.Add(s, uint8(2))
	}
	f.Fuzz(func(t *testing.T, s string, d uint8) {
		g := fixed.Instrument{PriceDecimals: d % 13, QtyDecimals: 2}
		ticks, ok := plainPrice(g, s)
		if !ok {
			return
		}
		p, err := g.ParsePrice(s)
		if err != nil || int64(p) != ticks || g.FormatPrice(p) != s {
			t.Fatalf("plainPrice(%q, %d decimals) = %d; ParsePrice %d, %v", s, g.PriceDecimals, ticks, p, err)
		}
	})
}
