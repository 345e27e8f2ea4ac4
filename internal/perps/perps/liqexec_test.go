package perps

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"pmx/internal/perps/risk"
)

// TestLiquidationsConserveCashAndLeaveNoAccountBelowMaintenance runs
// thousands of seeded operations through the machine (resting orders, IOC
// takers at high leverage, index gaps of up to ±12 %, premium samples,
// funding settlements, insurance top-ups), each followed by a liquidation
// sweep, and checks after every command:
//
//   - cash: Σ balances + insurance fund − Σ signed cost basis (accounts and
//     the fund) = deposits − venue fees (each fill's fee less its part for
//     the fund), to the micro-unit;
//   - after every sweep, no account holding a position is below maintenance
//     margin without being flagged.
//
// Half the seeds start with an empty fund, so deficits go to ADL.
func TestLiquidationsConserveCashAndLeaveNoAccountBelowMaintenance(t *testing.T) {
	var total [3]int
	for seed := uint64(1); seed <= 4; seed++ {
		t.Run(fmt.Sprint(seed), func(t *testing.T) {
			c := liqRun(t, seed, false)
			for i := range total {
				total[i] += c[i]
			}
		})
	}
	if total[0] == 0 || total[1] == 0 || total[2] == 0 {
		t.Fatalf("the runs missed a step: %d market, %d backstop, %d adl fills", total[0], total[1], total[2])
	}
}

// TestIncrementalSweepDecidesLikeTheFullSweep: the runs above with every
// account valued in every sweep (no cache, sweepcache.go) end in the same
// state hash.
func TestIncrementalSweepDecidesLikeTheFullSweep(t *testing.T) {
	for seed := uint64(1); seed <= 4; seed++ {
		a, b := New(Config{}), New(Config{})
		b.fullSweep = true
		liqRunOn(t, a, seed, seed%2 == 0)
		liqRunOn(t, b, seed, seed%2 == 0)
		if a.Hash() != b.Hash() {
			t.Fatalf("seed %d: the incremental sweep ends in another state than the full sweep", seed)
		}
		if len(a.safeCache) == 0 {
			t.Fatalf("seed %d: the cache was never used", seed)
		}
	}
}

// TestIsolatedLiquidationsConserveCash: the runs above with half the
// accounts isolated and random isolated margin adjustments (isolated.go);
// cash is conserved with the allocations, and no isolated scope is left
// below maintenance unflagged.
func TestIsolatedLiquidationsConserveCash(t *testing.T) {
	iso := 0
	for seed := uint64(1); seed <= 4; seed++ {
		t.Run(fmt.Sprint(seed), func(t *testing.T) {
			iso += liqRun(t, seed, true)[3]
		})
	}
	if iso == 0 {
		t.Fatal("no isolated position was liquidated")
	}
}

// liqRun returns the market, backstop and adl fills it saw, and the
// liquidation fills of isolated positions.
func liqRun(t *testing.T, seed uint64, iso bool) [4]int { return liqRunOn(t, New(Config{}), seed, iso) }

// liqRunOn runs seed on m; iso: every other account is isolated and some
// steps adjust isolated margin.
func liqRunOn(t *testing.T, m *Machine, seed uint64, iso bool) [4]int {
	rng := rand.New(rand.NewPCG(seed, 18))
	ts := int64(1_000_000)
	var deposits int64
	var liqFills, marketFills, adlFills, backstops, isoFills int
	do := func(c Command) Event {
		ts += 1 + int64(rng.IntN(2000))
		isoBefore := map[string]bool{}
		for _, a := range m.accts {
			if p := a.Positions[1]; p != nil && p.Iso {
				isoBefore[a.Addr] = true
			}
		}
		ev := m.Apply(uint64(ts), ts, cmd(c), nil)[0]
		for _, f := range ev.Fills {
			if f.Fill.Liq {
				liqFills++
				if isoBefore[f.Account] {
					isoFills++
				}
				if f.Fill.OID != 0 {
					marketFills++
				}
				if f.Fill.OID == 0 && !f.Fill.ADL {
					backstops++
				}
			}
			if f.Fill.ADL {
				adlFills++
			}
		}
		return ev
	}
	do(Command{Kind: KCreateInstrument, Instrument: &InstrumentSpec{Symbol: "BTC-USD", Category: "crypto", PriceDecimals: 1, QtyDecimals: 3, MaxLeverage: 20}})
	const n = 16
	accts := make([]string, n)
	for i := range accts {
		accts[i] = fmt.Sprintf("0x%040x", i+1)
		amt := int64(500 + rng.IntN(5000))
		do(Command{Kind: KDeposit, Account: accts[i], Amount: fmt.Sprint(amt)})
		deposits += amt * 1_000_000
		do(Command{Kind: KLeverage, Account: accts[i], Leverages: []LeverageReq{{IID: 1, Lev: int64(5 + rng.IntN(16)), Cross: !iso || i%2 == 1}}})
	}
	if seed%2 == 1 {
		do(Command{Kind: KInsurance, Amount: "5000"})
		deposits += 5000_000000
	}
	index := int64(600000) // ticks: 60,000.0
	do(Command{Kind: KIndex, IID: 1, Price: fmt.Sprintf("%d.%d", index/10, index%10)})
	price := func(off int) string {
		p := index + index*int64(off)/1000
		return fmt.Sprintf("%d.%d", p/10, p%10)
	}
	for step := 0; step < 1500; step++ {
		a := accts[rng.IntN(n)]
		switch r := rng.IntN(20); {
		case r < 8: // a resting order near the index
			buy := rng.IntN(2) == 0
			off := 1 + rng.IntN(30)
			if buy {
				off = -off
			}
			do(Command{Kind: KCreateOrders, Account: a, Orders: []OrderReq{{IID: 1, Buy: buy, P: sp(price(off)), Qty: fmt.Sprintf("0.%03d", 1+rng.IntN(900))}}})
		case r < 14: // a taker
			buy := rng.IntN(2) == 0
			off := 40
			if !buy {
				off = -40
			}
			do(Command{Kind: KCreateOrders, Account: a, Orders: []OrderReq{{IID: 1, Buy: buy, P: sp(price(off)), Qty: fmt.Sprintf("0.%03d", 1+rng.IntN(400)), TIF: sp("ioc")}}})
		case r < 16: // the index moves
			index += index * int64(rng.IntN(241)-120) / 1000
			index = max(index, 1000)
			do(Command{Kind: KIndex, IID: 1, Price: price(0)})
		case r < 17:
			do(Command{Kind: KFundingSample})
			do(Command{Kind: KFunding})
		case r < 18 && iso && rng.IntN(2) == 0: // an isolated margin adjustment (cross accounts: invalid_margin_mode)
			do(Command{Kind: KMargin, Account: a, IID: 1, Amount: fmt.Sprint(rng.IntN(601) - 300)})
		case r < 18:
			do(Command{Kind: KCancelAll, Account: a})
		case r < 19 && seed%2 == 1:
			do(Command{Kind: KInsurance, Amount: "100"})
			deposits += 100_000000
		case r == 19: // a liquidated account comes back
			do(Command{Kind: KDeposit, Account: a, Amount: "1500"})
			deposits += 1500_000000
		}
		liqCheckCash(t, m, deposits, step)
		do(Command{Kind: KLiqSweep})
		liqCheckCash(t, m, deposits, step)
		liqCheckFlags(t, m, step)
	}
	if liqFills == 0 {
		t.Fatal("the run liquidated nothing")
	}
	t.Logf("seed %d: %d liquidation fills (%d market, %d backstop), %d adl fills, fund %s", seed, liqFills, marketFills, backstops, adlFills, FormatMicro(m.Insurance()))
	return [4]int{marketFills, backstops, adlFills, isoFills}
}

func liqCheckCash(t *testing.T, m *Machine, deposits int64, step int) {
	t.Helper()
	in := m.inst[1]
	basis := func(p *Position) int64 {
		v := must(tickLotsToMicro(p.Cost, in.PriceDecimals, in.QtyDecimals))
		if p.Size < 0 {
			return -v
		}
		return v
	}
	sum := m.insurance
	var venue int64
	for _, a := range m.accts {
		sum += a.Balance
		for _, p := range a.Positions {
			sum -= basis(p)
		}
		if len(a.Fills) > maxHistory {
			t.Fatal("fill history trimmed: the venue's fees can no longer be summed")
		}
		for _, f := range a.Fills {
			venue += f.Fee - f.ToFund
		}
	}
	for _, p := range m.fundPos {
		sum -= basis(p)
	}
	if sum != deposits-venue {
		t.Fatalf("step %d: cash %d, deposits − venue fees %d (diff %d)", step, sum, deposits-venue, sum-deposits+venue)
	}
}

func liqCheckFlags(t *testing.T, m *Machine, step int) {
	t.Helper()
	for _, a := range m.accts {
		if !hasPosition(a) || a.Liquidating {
			continue
		}
		ra, mk := m.riskView(a, 0)
		s, err := risk.Evaluate(&ra, mk)
		if err != nil {
			t.Fatalf("step %d: %s: %v", step, a.Addr, err)
		}
		if s.Equity < s.MM {
			t.Fatalf("step %d: %s below maintenance (equity %d, MM %d) but not flagged", step, a.Addr, s.Equity, s.MM)
		}
		for _, rp := range ra.Positions { // isolated scopes (isolated.go)
			set := ra.Setting(&mk[rp.IID].Instrument)
			if set.Cross || rp.Liquidating {
				continue
			}
			r, err := risk.PositionRisk(&rp, set, mk[rp.IID])
			if err != nil {
				t.Fatalf("step %d: %s: %v", step, a.Addr, err)
			}
			if r.Equity < r.MM {
				t.Fatalf("step %d: %s isolated below maintenance (equity %d, MM %d) but not flagged", step, a.Addr, r.Equity, r.MM)
			}
		}
	}
}

// TestIncrementalSweepFlagsAtTheSameTickAsTheFullSweep: the mark walks down
// one tick per sweep towards the long's liquidation price (53,333.3, as in
// docs/perps-risk.md's worked example); the cached sweep liquidates at the
// same tick as the full one.
func TestIncrementalSweepFlagsAtTheSameTickAsTheFullSweep(t *testing.T) {
	first := func(full bool) int64 {
		const long, short = "0x00000000000000000000000000000000000000aa", "0x00000000000000000000000000000000000000bb"
		m := New(Config{})
		m.cfg.MakerPPM, m.cfg.TakerPPM = 0, 0
		m.fullSweep = full
		ts := int64(1000)
		do := func(c Command) Event { ts++; return m.Apply(uint64(ts), ts, cmd(c), nil)[0] }
		do(Command{Kind: KCreateInstrument, Instrument: &InstrumentSpec{Symbol: "BTC-USD", Category: "crypto", PriceDecimals: 1, QtyDecimals: 3, MaxLeverage: 20}})
		do(Command{Kind: KDeposit, Account: long, Amount: "4000"})
		do(Command{Kind: KDeposit, Account: short, Amount: "100000"})
		do(Command{Kind: KIndex, IID: 1, Price: "60000"})
		do(Command{Kind: KLeverage, Account: long, Leverages: []LeverageReq{{IID: 1, Lev: 10, Cross: true}}})
		do(Command{Kind: KCreateOrders, Account: short, Orders: []OrderReq{{IID: 1, P: sp("60000"), Qty: "0.5"}}})
		do(Command{Kind: KCreateOrders, Account: long, Orders: []OrderReq{{IID: 1, Buy: true, P: sp("60000"), Qty: "0.5"}}})
		do(Command{Kind: KIndex, IID: 1, Price: "59000"})
		do(Command{Kind: KLiqSweep})
		for p := int64(533400); p > 533200; p-- {
			m.inst[1].IndexTicks = p // six significant figures: below what the index command parses
			if ev := do(Command{Kind: KLiqSweep}); len(ev.Fills) > 0 {
				return p
			}
		}
		return 0
	}
	full, cached := first(true), first(false)
	if full != 533333 || cached != full {
		t.Fatalf("first liquidating tick: full sweep %d, incremental %d, want 533333 for both", full, cached)
	}
}
