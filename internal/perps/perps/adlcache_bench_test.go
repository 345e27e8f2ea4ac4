package perps

import (
	"fmt"
	"testing"
)

// BenchmarkADLIndex: a portfolio's adl_index read from the cache
// (adlcache.go) against the recomputation from every account it replaced,
// and the write path's price for it: the refresh after one mark move, which
// re-scores every holder of the instrument, and after one holder's balance
// moved (mark unchanged), which re-scores that holder and rewrites the
// buckets (n accounts, one position each, half long, half short).
func BenchmarkADLIndex(b *testing.B) {
	for _, n := range []int{1000, 10000} {
		m := New(Config{})
		m.Apply(0, 1, cmd(Command{Kind: KCreateInstrument, Instrument: &InstrumentSpec{Symbol: "BTC-USD", Category: "crypto", PriceDecimals: 1, QtyDecimals: 3, MaxLeverage: 20}}), nil)
		m.Apply(0, 2, cmd(Command{Kind: KIndex, IID: 1, Price: "60000"}), nil)
		for i := range n {
			a := m.account(fmt.Sprintf("0x%040x", i+1), 3)
			a.Balance = int64(1000+i%5000) * 1_000_000
			size := int64(100 + i%50)
			if i%2 == 1 {
				size = -size
			}
			a.Positions[1] = &Position{Size: size, Cost: abs(size) * (590000 + int64(i%20000))}
		}
		m.rebuildADL()
		a := m.accts[fmt.Sprintf("0x%040x", n/2)]
		b.Run(fmt.Sprintf("holders%d/read-cache", n), func(b *testing.B) {
			for b.Loop() {
				m.adlIndex(a, 1)
			}
		})
		b.Run(fmt.Sprintf("holders%d/read-recompute", n), func(b *testing.B) {
			for b.Loop() {
				m.adlIndexSlow(a, 1)
			}
		})
		b.Run(fmt.Sprintf("holders%d/refresh-after-mark-move", n), func(b *testing.B) {
			marks := []int64{599000, 601000}
			i := 0
			var ev Event
			for b.Loop() {
				m.inst[1].IndexTicks = marks[i%2]
				i++
				m.refreshADL(nil, &ev)
			}
		})
		b.Run(fmt.Sprintf("holders%d/refresh-after-one-account-moves", n), func(b *testing.B) {
			var ev Event
			for b.Loop() { // a fill's balance change, the mark unchanged: incremental
				a.Balance++
				m.adlTouch(a)
				m.refreshADL(nil, &ev)
			}
		})
	}
}
