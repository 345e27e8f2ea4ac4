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
			c := liqRun(t, seed)
			for i := range c {
				total[i] += c[i]
			}
		})
	}
	if total[0] == 0 || total[1] == 0 || total[2] == 0 {
		t.Fatalf("the runs missed a step: %d market, %d backstop, %d adl fills", total[0], total[1], total[2])
	}
}

// liqRun returns the market, backstop and adl fills it saw.
func liqRun(t *testing.T, seed uint64) [3]int {
	rng := rand.New(rand.NewPCG(seed, 18))
	m := New(Config{})
	ts := int64(1_000_000)
	var deposits int64
	var liqFills, marketFills, adlFills, backstops int
	do := func(c Command) Event {
		ts += 1 + int64(rng.IntN(2000))
		ev := m.Apply(uint64(ts), ts, cmd(c), nil)[0]
		for _, f := range ev.Fills {
			if f.Fill.Liq {
				liqFills++
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
		do(Command{Kind: KLeverage, Account: accts[i], Leverages: []LeverageReq{{IID: 1, Lev: int64(5 + rng.IntN(16)), Cross: true}}})
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
	return [3]int{marketFills, backstops, adlFills}
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
	}
}
