package perps

import (
	"fmt"
	"testing"
)

// BenchmarkApplyTrade: one fill per iteration through Apply: b rests an
// order, a takes it with an IOC (the sides alternate, so the positions stay
// small), with n other accounts holding a position in the instrument (the
// adl_index cache re-ranks the two traders among them).
func BenchmarkApplyTrade(b *testing.B) {
	for _, n := range []int{0, 1000} {
		b.Run(fmt.Sprintf("holders%d", n), func(b *testing.B) {
			m := New(Config{})
			ts := int64(1000)
			apply := func(c Command) Event { ts++; return m.Apply(0, ts, c.Encode(), nil)[0] }
			apply(Command{Kind: KCreateInstrument, Instrument: &InstrumentSpec{Symbol: "BTC-USD", Category: "crypto", PriceDecimals: 1, QtyDecimals: 3, MaxLeverage: 20}})
			apply(Command{Kind: KIndex, IID: 1, Price: "60000"})
			for i := range n / 2 {
				x, y := fmt.Sprintf("0x%040x", 2*i+10), fmt.Sprintf("0x%040x", 2*i+11)
				apply(Command{Kind: KDeposit, Account: x, Amount: "10000"})
				apply(Command{Kind: KDeposit, Account: y, Amount: "10000"})
				apply(Command{Kind: KCreateOrders, Account: x, Orders: []OrderReq{{IID: 1, P: sp(fmt.Sprint(59900 + i%200)), Qty: "0.01"}}})
				apply(Command{Kind: KCreateOrders, Account: y, Orders: []OrderReq{{IID: 1, Buy: true, P: sp(fmt.Sprint(59900 + i%200)), Qty: "0.01", TIF: sp("ioc")}}})
			}
			apply(Command{Kind: KDeposit, Account: acA, Amount: "100000000"})
			apply(Command{Kind: KDeposit, Account: acB, Amount: "100000000"})
			b.ReportAllocs()
			buy := true
			for b.Loop() {
				apply(Command{Kind: KCreateOrders, Account: acB, Orders: []OrderReq{{IID: 1, Buy: !buy, P: sp("60000"), Qty: "0.1"}}})
				if ev := apply(Command{Kind: KCreateOrders, Account: acA, Orders: []OrderReq{{IID: 1, Buy: buy, P: sp("60000"), Qty: "0.1", TIF: sp("ioc")}}}); len(ev.Fills) != 2 {
					b.Fatalf("no fill: %+v", ev.Orders)
				}
				buy = !buy
			}
		})
	}
}
