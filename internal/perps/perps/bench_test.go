package perps

import (
	"fmt"
	"testing"

	"pmx/internal/cpuclock"
)

// BenchmarkApplyPlaceCancel: one resting order placed and cancelled per
// iteration, straight through Apply (no journal); with an accept or risk
// delay the order goes through the in-flight list and a KTick first; with a
// risk and an accept delay, two ticks.
func BenchmarkApplyPlaceCancel(b *testing.B) {
	for _, cfg := range []Config{{}, {AcceptDelayMs: 1}, {RiskDelayMs: 1}, {RiskDelayMs: 1, AcceptDelayMs: 1}} {
		b.Run(fmt.Sprintf("risk%dms_accept%dms", cfg.RiskDelayMs, cfg.AcceptDelayMs), func(b *testing.B) {
			m := New(cfg)
			ts := int64(1000)
			apply := func(c Command) Event { ts++; return m.Apply(0, ts, c.Encode(), nil)[0] }
			apply(Command{Kind: KCreateInstrument, Instrument: &InstrumentSpec{Symbol: "BTC-USD", Category: "crypto", PriceDecimals: 1, QtyDecimals: 3, MaxLeverage: 20}})
			apply(Command{Kind: KDeposit, Account: acA, Amount: "100000000"})
			place := Command{Kind: KCreateOrders, Account: acA, Orders: []OrderReq{{IID: 1, Buy: true, P: sp("100"), Qty: "1"}}}
			tick := Command{Kind: KTick}
			b.ReportAllocs()
			for b.Loop() {
				oid := apply(place).Acks[0].OID
				if cfg.RiskDelayMs > 0 {
					apply(tick)
				}
				if cfg.AcceptDelayMs > 0 {
					apply(tick)
				}
				if r := apply(Command{Kind: KCancel, Account: acA, OIDs: []uint64{oid}}).Items[0]; r.Status != "ok" {
					b.Fatalf("cancel: %+v", r)
				}
			}
		})
	}
}

// BenchmarkApplyModify: one modify of a resting order per iteration,
// alternating two prices; with a modify delay it is pending until a KTick.
func BenchmarkApplyModify(b *testing.B) {
	for _, cfg := range []Config{{}, {ModifyDelayMs: 1}} {
		b.Run(fmt.Sprintf("modify%dms", cfg.ModifyDelayMs), func(b *testing.B) {
			cfg.MaxModifies = 1 << 40
			m := New(cfg)
			ts := int64(1000)
			apply := func(c Command) Event { ts++; return m.Apply(0, ts, c.Encode(), nil)[0] }
			apply(Command{Kind: KCreateInstrument, Instrument: &InstrumentSpec{Symbol: "BTC-USD", Category: "crypto", PriceDecimals: 1, QtyDecimals: 3, MaxLeverage: 20}})
			apply(Command{Kind: KDeposit, Account: acA, Amount: "100000000"})
			oid := apply(Command{Kind: KCreateOrders, Account: acA, Orders: []OrderReq{{IID: 1, Buy: true, P: sp("100"), Qty: "1"}}}).Acks[0].OID
			mods := []Command{{Kind: KModify, Account: acA, Modifies: []ModifyReq{{OID: oid, P: "99", Qty: "1"}}},
				{Kind: KModify, Account: acA, Modifies: []ModifyReq{{OID: oid, P: "100", Qty: "1"}}}}
			tick := Command{Kind: KTick}
			b.ReportAllocs()
			i := 0
			for b.Loop() {
				r := apply(mods[i%2]).Items[0]
				if cfg.ModifyDelayMs > 0 {
					apply(tick)
					r, _ = m.ModifyOutcome(r.Mod)
				}
				if r.Status != "ok" {
					b.Fatalf("modify: %+v", r)
				}
				i++
			}
		})
	}
}

// BenchmarkApplyPlaceIOC: one createOrders command of n non-crossing IOC
// buys straight through Apply (decode included, no journal), the engine's
// share of the HTTP placement benchmarks (perpshttp BenchmarkVsBare*): each
// order is checked, run against the empty side of the book and ends
// ioc_no_fill, so the book and the open orders stay empty. Run it with
// -test.cpu 1: cpu-ns/op is then the apply goroutine's (and the GC's) time.
func BenchmarkApplyPlaceIOC(b *testing.B) { benchPlaceIOC(b, false, false) }

// BenchmarkApplyDecodedPlaceIOC is BenchmarkApplyPlaceIOC through
// ApplyDecoded: the live path, where the service hands over the command it
// encoded and the record is not decoded again.
func BenchmarkApplyDecodedPlaceIOC(b *testing.B) { benchPlaceIOC(b, true, false) }

// BenchmarkApplyDecodedPlaceIOCIndexed is BenchmarkApplyDecodedPlaceIOC with
// an index price, so the orders are margined at the mark instead of each at
// its own stand-in price.
func BenchmarkApplyDecodedPlaceIOCIndexed(b *testing.B) { benchPlaceIOC(b, true, true) }

func benchPlaceIOC(b *testing.B, decoded, indexed bool) {
	for _, n := range []int{1, 20} {
		b.Run(fmt.Sprintf("orders%d", n), func(b *testing.B) {
			m := New(Config{})
			ts := int64(1000)
			m.Apply(0, ts, cmd(Command{Kind: KCreateInstrument, Instrument: &InstrumentSpec{Symbol: "BTC-USD", Category: "crypto", PriceDecimals: 1, QtyDecimals: 3, MaxLeverage: 20}}), nil)
			m.Apply(0, ts, cmd(Command{Kind: KDeposit, Account: acA, Amount: "1000000000"}), nil)
			base := 100
			if indexed {
				m.Apply(0, ts, cmd(Command{Kind: KIndex, IID: 1, Price: "1010"}), nil) // the band (5 %) holds every price below
				base = 1000
			}
			c := Command{Kind: KCreateOrders, Account: acA, Replay: make([]byte, 40)}
			for j := range n {
				c.Orders = append(c.Orders, OrderReq{IID: 1, Buy: true, P: sp(fmt.Sprint(base + j)), Qty: "1", TIF: sp("ioc")})
			}
			rec := c.Encode()
			out := make([]Event, 0, 1)
			b.ReportAllocs()
			cpu := cpuclock.Start() // CPU time per op: steadier than wall time on a shared machine
			defer cpu.Report(b)
			for b.Loop() {
				ts++
				if decoded {
					out = m.ApplyDecoded(0, ts, rec, &c, out[:0])
				} else {
					out = m.Apply(0, ts, rec, out[:0])
				}
				if a := out[0].Acks; len(a) != n || a[n-1].Status != "ok" {
					b.Fatalf("acks: %+v", a)
				}
			}
		})
	}
}
