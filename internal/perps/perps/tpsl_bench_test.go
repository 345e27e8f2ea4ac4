package perps

import (
	"fmt"
	"slices"
	"testing"
)

// BenchmarkTriggerPass: the TP/SL trigger pass after one mark move, with
// 100,000 armed legs waiting (a TP above and an SL below the mark for each
// of 50,000 long positions) and none crossed. "index" is the pass
// (tpslindex.go: it pops only crossed legs); "walk" is the previous
// design's pass over every live leg, kept as the reference.
func BenchmarkTriggerPass(b *testing.B) {
	for _, mode := range []string{"index", "walk"} {
		b.Run(fmt.Sprintf("legs100000/%s", mode), func(b *testing.B) {
			m := triggerBenchMachine(b, 50000)
			legs := m.allLegs()
			marks := []int64{599500, 600500}
			var ev Event
			i := 0
			b.ReportAllocs()
			for b.Loop() {
				m.inst[1].IndexTicks = marks[i%2] // one mark move
				i++
				if mode == "walk" {
					walkLegs(m, legs)
				} else if m.fireTriggers(5, &ev) {
					b.Fatal("a leg fired")
				}
			}
			if len(m.allLegs()) != len(legs) {
				b.Fatal("legs ended")
			}
		})
	}
}

// triggerBenchMachine: n longs of 0.1 at 60,000, each with a position TP at
// 60,100 + (i mod 5,000) ticks and an SL at 59,900 − (i mod 5,000).
func triggerBenchMachine(b *testing.B, n int) *Machine {
	m := New(Config{})
	m.Apply(0, 1, cmd(Command{Kind: KCreateInstrument, Instrument: &InstrumentSpec{Symbol: "BTC-USD", Category: "crypto", PriceDecimals: 1, QtyDecimals: 3, MaxLeverage: 20}}), nil)
	m.Apply(0, 2, cmd(Command{Kind: KIndex, IID: 1, Price: "60000"}), nil)
	for i := range n {
		a := m.account(fmt.Sprintf("0x%040x", i+1), 3)
		a.Balance = 10_000_000000
		a.Positions[1] = &Position{Size: 100, Cost: 100 * 600000}
		for _, l := range []legSpec{{kind: "tp", trig: 601000 + int64(i%5000)}, {kind: "sl", trig: 599000 - int64(i%5000)}} {
			l.r, l.market = &OrderReq{IID: 1}, true
			o := m.newLeg(a, l, "position", 0, 3)
			o.Status = StArmed
			m.legArmed(o)
		}
	}
	var ev Event
	m.fireTriggers(4, &ev) // the first pass checks every new position
	if got := len(m.allLegs()); got != 2*n {
		b.Fatalf("%d legs", got)
	}
	return m
}

// walkLegs is the previous trigger pass's scan (no leg crosses here): every
// live leg's account, position and mark, in oid order.
func walkLegs(m *Machine, legs []uint64) {
	for _, id := range slices.Clone(legs) {
		l := m.orders[id]
		if l.Terminal || l.Status != StArmed {
			continue
		}
		a := m.accts[l.Account]
		if a.Liquidating {
			continue
		}
		var size int64
		if p := a.Positions[l.IID]; p != nil {
			size = p.Size
		}
		if size == 0 || (size > 0) == l.Buy {
			panic("closed")
		}
		if mark := m.mark(m.inst[l.IID]); mark <= 0 || crossed(l.Buy, l.TPSL.Kind, l.TPSL.Trig, mark) {
			panic("crossed")
		}
	}
}

// TestTriggerIndexFiresExactlyTheCrossedLegs: random position legs and
// random mark moves (an empty book: exits find no fill, so the mark stays
// where the index put it). After every pass no armed leg is left crossed,
// and every leg that triggered was crossed at that mark; dead heap entries
// stay bounded.
func TestTriggerIndexFiresExactlyTheCrossedLegs(t *testing.T) {
	m := New(Config{})
	m.Apply(0, 1, cmd(Command{Kind: KCreateInstrument, Instrument: &InstrumentSpec{Symbol: "BTC-USD", Category: "crypto", PriceDecimals: 1, QtyDecimals: 3, MaxLeverage: 20}}), nil)
	m.Apply(0, 2, cmd(Command{Kind: KIndex, IID: 1, Price: "60000"}), nil)
	seed := uint64(7)
	next := func(n int64) int64 { seed = seed*6364136223846793005 + 1442695040888963407; return int64(seed>>33) % n }
	var accts []*Account
	for i := range 200 {
		a := m.account(fmt.Sprintf("0x%040x", i+1), 3)
		a.Balance = 10_000_000000
		size := int64(100)
		if i%2 == 1 {
			size = -100
		}
		a.Positions[1] = &Position{Size: size, Cost: 100 * 600000}
		accts = append(accts, a)
	}
	fired := 0
	for step := range 400 {
		mark := 590000 + next(20000)
		if next(3) > 0 { // a new leg, not crossed at the current mark
			a := accts[next(int64(len(accts)))]
			buy := a.Positions[1].Size < 0
			kind := []string{"tp", "sl"}[next(2)]
			trig := 590000 + next(20000)
			if cur := m.mark(m.inst[1]); !crossed(buy, kind, trig, cur) {
				o := m.newLeg(a, legSpec{r: &OrderReq{IID: 1, Buy: buy}, kind: kind, trig: trig, market: true}, "position", 0, 3)
				o.Status = StArmed
				m.legArmed(o)
			}
		}
		if next(5) == 0 { // a cancel
			if legs := m.allLegs(); len(legs) > 0 {
				m.endLeg(m.orders[legs[next(int64(len(legs)))]], StCancelled, 4)
			}
		}
		m.inst[1].IndexTicks = mark
		var ev Event
		m.fireTriggers(5, &ev)
		for _, id := range m.allLegs() {
			if l := m.orders[id]; l.Status == StArmed && crossed(l.Buy, l.TPSL.Kind, l.TPSL.Trig, mark) {
				t.Fatalf("step %d: leg %d (%s %d) crossed at %d and still armed", step, id, l.TPSL.Kind, l.TPSL.Trig, mark)
			}
		}
		for _, w := range ev.Orders {
			if l := m.orders[w.OID]; l.TPSL != nil && l.Status == StTriggered {
				fired++
				if !crossed(l.Buy, l.TPSL.Kind, l.TPSL.Trig, mark) {
					t.Fatalf("step %d: leg %d triggered uncrossed", step, w.OID)
				}
			}
		}
		ix := m.trigs[1]
		if ix == nil {
			continue
		}
		if live := len(m.allLegs()); ix.dead < 0 || len(ix.up)+len(ix.down) > 2*live+130 {
			t.Fatalf("step %d: heap %d+%d entries, %d dead, %d live legs", step, len(ix.up), len(ix.down), ix.dead, live)
		}
	}
	if fired == 0 {
		t.Fatal("nothing fired")
	}
}
