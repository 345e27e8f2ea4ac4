package perps

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"testing"
)

// TestADLCacheMatchesRecomputationAfterEveryStep: thousands of seeded
// operations on two instruments (cross and isolated accounts, resting
// orders, takers, index moves on either instrument, funding, isolated
// margin adjustments, deposits, cancels, liquidation flags set by hand,
// sweeps with their liquidations and ADL); after every command each
// position's cached adl_index equals the recomputation from every account.
// A snapshot restore rebuilds the same cache.
func TestADLCacheMatchesRecomputationAfterEveryStep(t *testing.T) {
	for seed := uint64(1); seed <= 3; seed++ {
		t.Run(fmt.Sprint(seed), func(t *testing.T) { adlRun(t, seed) })
	}
}

func adlRun(t *testing.T, seed uint64) {
	m := New(Config{})
	rng := rand.New(rand.NewPCG(seed, 20))
	ts := int64(1_000_000)
	nonzero, changes := 0, 0
	last := map[[2]uint64]int{}
	check := func(step int, what string) {
		t.Helper()
		for _, a := range m.accts {
			for iid, p := range a.Positions {
				if p.Size == 0 {
					continue
				}
				got, want := m.adlIndex(a, iid), m.adlIndexSlow(a, iid)
				if got != want {
					t.Fatalf("step %d (%s): %s in %d: cached adl_index %d, recomputed %d", step, what, a.Addr, iid, got, want)
				}
				if got > 0 {
					nonzero++
				}
				k := [2]uint64{a.ID, uint64(iid)}
				if last[k] != got {
					changes++
				}
				last[k] = got
			}
		}
	}
	step := 0
	do := func(c Command) {
		ts += 1 + int64(rng.IntN(2000))
		m.Apply(uint64(ts), ts, cmd(c), nil)
		check(step, c.Kind)
	}
	for _, s := range []string{"BTC-USD", "ETH-USD"} {
		do(Command{Kind: KCreateInstrument, Instrument: &InstrumentSpec{Symbol: s, Category: "crypto", PriceDecimals: 1, QtyDecimals: 3, MaxLeverage: 20}})
	}
	const n = 12
	accts := make([]string, n)
	for i := range accts {
		accts[i] = fmt.Sprintf("0x%040x", i+1)
		do(Command{Kind: KDeposit, Account: accts[i], Amount: fmt.Sprint(1000 + rng.IntN(9000))})
		for iid := uint32(1); iid <= 2; iid++ {
			do(Command{Kind: KLeverage, Account: accts[i], Leverages: []LeverageReq{{IID: iid, Lev: int64(3 + rng.IntN(18)), Cross: i%3 != 0}}})
		}
	}
	do(Command{Kind: KInsurance, Amount: fmt.Sprint(rng.IntN(2) * 3000)})
	index := [3]int64{0, 600000, 30000} // ticks per instrument
	px := func(iid uint32, off int) string {
		p := index[iid] + index[iid]*int64(off)/1000
		return fmt.Sprintf("%d.%d", p/10, p%10)
	}
	for iid := uint32(1); iid <= 2; iid++ {
		do(Command{Kind: KIndex, IID: iid, Price: px(iid, 0)})
	}
	for step = 0; step < 1200; step++ {
		a := accts[rng.IntN(n)]
		iid := uint32(1 + rng.IntN(2))
		buy := rng.IntN(2) == 0
		switch r := rng.IntN(24); {
		case r < 8:
			off := 1 + rng.IntN(30)
			if buy {
				off = -off
			}
			do(Command{Kind: KCreateOrders, Account: a, Orders: []OrderReq{{IID: iid, Buy: buy, P: sp(px(iid, off)), Qty: fmt.Sprintf("0.%03d", 1+rng.IntN(900))}}})
		case r < 14:
			off := 40
			if !buy {
				off = -40
			}
			do(Command{Kind: KCreateOrders, Account: a, Orders: []OrderReq{{IID: iid, Buy: buy, P: sp(px(iid, off)), Qty: fmt.Sprintf("0.%03d", 1+rng.IntN(400)), TIF: sp("ioc")}}})
		case r < 17:
			index[iid] = max(index[iid]+index[iid]*int64(rng.IntN(161)-80)/1000, 1000)
			do(Command{Kind: KIndex, IID: iid, Price: px(iid, 0)})
		case r < 18:
			do(Command{Kind: KFundingSample})
			do(Command{Kind: KFunding})
		case r < 19:
			do(Command{Kind: KMargin, Account: a, IID: iid, Amount: fmt.Sprint(rng.IntN(401) - 200), SigTS: ts})
		case r < 20:
			do(Command{Kind: KCancelAll, Account: a})
		case r < 21:
			do(Command{Kind: KDeposit, Account: a, Amount: "700"})
		case r < 22:
			do(Command{Kind: KLiquidating, Account: a, On: rng.IntN(2) == 0})
		default:
		}
		do(Command{Kind: KLiqSweep})
	}
	if nonzero == 0 || changes < 50 || m.adl.partial < 100 {
		t.Fatalf("a vacuous run: %d non-zero readings, %d changes, %d incremental re-ranks", nonzero, changes, m.adl.partial)
	}
	var buf bytes.Buffer
	m.Snapshot(&buf)
	r := New(Config{})
	if err := r.Restore(&buf); err != nil {
		t.Fatal(err)
	}
	for _, a := range m.accts {
		for iid := range a.Positions {
			if got, want := r.adlIndex(r.accts[a.Addr], iid), m.adlIndex(a, iid); got != want {
				t.Fatalf("after restore: %s in %d: %d, before %d", a.Addr, iid, got, want)
			}
		}
	}
	t.Logf("seed %d: %d non-zero readings, %d changes, %d incremental re-ranks", seed, nonzero, changes, m.adl.partial)
}
