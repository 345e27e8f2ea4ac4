package perps

import (
	"fmt"
	"testing"
)

// BenchmarkApplyPlaceCancel: one resting order placed and cancelled per
// iteration, straight through Apply (no journal); with an accept delay the
// order goes through the in-flight list and a KTick first.
func BenchmarkApplyPlaceCancel(b *testing.B) {
	for _, cfg := range []Config{{}, {AcceptDelayMs: 1}} {
		b.Run(fmt.Sprintf("accept%dms", cfg.AcceptDelayMs), func(b *testing.B) {
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
