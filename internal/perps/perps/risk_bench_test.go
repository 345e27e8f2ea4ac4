package perps

import (
	"fmt"
	"testing"
)

// BenchmarkMarginCheck: the pre-trade check of one order (preTrade: the
// account mapped onto the risk engine, CheckScope, CheckOrder at the mark)
// for an account holding a position and n resting orders.
func BenchmarkMarginCheck(b *testing.B) {
	for _, n := range []int{0, 10, 100} {
		b.Run(fmt.Sprintf("orders%d", n), func(b *testing.B) {
			m := New(Config{})
			ts := int64(1000)
			apply := func(c Command) Event { ts++; return m.Apply(0, ts, c.Encode(), nil)[0] }
			apply(Command{Kind: KCreateInstrument, Instrument: &InstrumentSpec{Symbol: "BTC-USD", Category: "crypto", PriceDecimals: 1, QtyDecimals: 3, MaxLeverage: 20}})
			apply(Command{Kind: KDeposit, Account: acA, Amount: "100000000"})
			apply(Command{Kind: KIndex, IID: 1, Price: "60000"})
			a := m.accts[acA]
			a.Positions[1] = &Position{Size: 500, Cost: 500 * 600000}
			for i := range n {
				if ack := apply(Command{Kind: KCreateOrders, Account: acA, Orders: []OrderReq{{IID: 1, Buy: true, P: sp(fmt.Sprint(50000 + i)), Qty: "0.01"}}}).Acks[0]; ack.Status != "ok" {
					b.Fatalf("setup: %+v", ack)
				}
			}
			in := m.inst[1]
			b.ReportAllocs()
			for b.Loop() {
				if e := m.preTrade(a, in, true, 590000, 10, false); e != "" {
					b.Fatal(e)
				}
			}
		})
	}
}

// BenchmarkLiquidationSweep: one sweep over n accounts with one position
// each, none of them liquidatable: incremental (sweepcache.go) with the
// marks unchanged, incremental with the index moving ±1 % every sweep, and
// the full sweep (every account valued) as the reference.
func BenchmarkLiquidationSweep(b *testing.B) {
	for _, n := range []int{1000, 100000} {
		for _, mode := range []string{"incremental", "markmoves", "full"} {
			b.Run(fmt.Sprintf("positions%d/%s", n, mode), func(b *testing.B) { benchSweep(b, n, mode) })
		}
	}
}

func benchSweep(b *testing.B, n int, mode string) {
	{
		{
			m := New(Config{})
			m.fullSweep = mode == "full"
			m.Apply(0, 1, cmd(Command{Kind: KCreateInstrument, Instrument: &InstrumentSpec{Symbol: "BTC-USD", Category: "crypto", PriceDecimals: 1, QtyDecimals: 3, MaxLeverage: 20}}), nil)
			m.Apply(0, 2, cmd(Command{Kind: KIndex, IID: 1, Price: "60000"}), nil)
			for i := range n {
				a := m.account(fmt.Sprintf("0x%040x", i+1), 3)
				a.Balance = 10_000_000000
				size := int64(100)
				if i%2 == 1 {
					size = -100
				}
				a.Positions[1] = &Position{Size: size, Cost: 100 * 600000}
			}
			var ev Event
			m.sweep(4, &ev) // the first sweep values everyone
			marks := []int64{594000, 606000}
			b.ReportAllocs()
			i := 0
			for b.Loop() {
				if mode == "markmoves" {
					m.inst[1].IndexTicks = marks[i%2]
					i++
				}
				m.sweep(4, &ev)
			}
			if len(m.FlaggedAccounts()) != 0 {
				b.Fatal("a healthy account was flagged")
			}
		}
	}
}

// BenchmarkAtFill: the at-fill check of a taker buy (atfill.go) that would
// take 10 ask levels, for an account holding a position.
func BenchmarkAtFill(b *testing.B) {
	m := New(Config{})
	ts := int64(1000)
	apply := func(c Command) Event { ts++; return m.Apply(0, ts, c.Encode(), nil)[0] }
	apply(Command{Kind: KCreateInstrument, Instrument: &InstrumentSpec{Symbol: "BTC-USD", Category: "crypto", PriceDecimals: 1, QtyDecimals: 3, MaxLeverage: 20}})
	apply(Command{Kind: KDeposit, Account: acA, Amount: "100000000"})
	apply(Command{Kind: KDeposit, Account: acB, Amount: "100000000"})
	apply(Command{Kind: KIndex, IID: 1, Price: "60000"})
	for i := range 10 {
		if ack := apply(Command{Kind: KCreateOrders, Account: acB, Orders: []OrderReq{{IID: 1, P: sp(fmt.Sprint(60000 + 10*i)), Qty: "0.1"}}}).Acks[0]; ack.Status != "ok" {
			b.Fatalf("setup: %+v", ack)
		}
	}
	a := m.accts[acA]
	a.Positions[1] = &Position{Size: 500, Cost: 500 * 600000}
	o := &Order{OID: 1 << 40, IID: 1, Account: acA, Buy: true, Ticks: 601000, Lots: 1000}
	in := m.inst[1]
	b.ReportAllocs()
	for b.Loop() {
		if st := m.atFill(in, o, o.Ticks); st != "" {
			b.Fatal(st)
		}
	}
}
