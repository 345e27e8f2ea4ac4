package risk

import (
	"errors"
	"math/rand/v2"
	"testing"

	"pmx/internal/exchange/book"
)

func simMarkets() []*Market {
	return []*Market{
		{Instrument: Instrument{ID: 1, Grid: Grid{1, 3}, MaxLeverage: 20, LiqFeePPM: 25_000, BandPPM: 50_000}, Mark: 600_000},
		{Instrument: Instrument{ID: 2, Grid: Grid{2, 2}, MaxLeverage: 10, LiqFeePPM: 10_000, BandPPM: 50_000}, Mark: 10_000},
		{Instrument: Instrument{ID: 3, Grid: Grid{4, 1}, MaxLeverage: 5, LiqFeePPM: 10_000, BandPPM: 50_000, IsolatedOnly: true}, Mark: 5_000},
	}
}

// lotsFor is a size worth about usdWorth at m's mark.
func lotsFor(m *Market, usdWorth int64) int64 {
	one, _ := m.Notional(m.Mark, 1) // micro per lot
	return max(1, usdWorth*usd/max(one, 1))
}

func setSetting(a *Account, s Setting) {
	for i := range a.Settings {
		if a.Settings[i].IID == s.IID {
			a.Settings[i] = s
			return
		}
	}
	a.Settings = append(a.Settings, s)
}

// The invariants after every one of thousands of seeded operations across
// many accounts: cash is conserved to the micro-unit (deposits − withdrawals
// − venue fees) and no scope is below maintenance without its flag.
func TestRandomizedLedgerInvariants(t *testing.T) {
	total := map[string]int{}
	for seed := uint64(1); seed <= 4; seed++ {
		stats := runRandomLedger(t, seed, 4_000, 40)
		for k, v := range stats {
			total[k] += v
		}
	}
	t.Logf("totals %v", total)
	// The run must have exercised every path it claims to check.
	for _, k := range []string{"trade", "refused insufficient_margin", "refused insufficient_margin_at_fill",
		"refused price_outside_bounds", "order", "funding", "flagged", "cleared",
		"market", "backstop", "adl", "adjust", "leverage", "withdraw", "gap"} {
		if total[k] == 0 {
			t.Errorf("no %q in the run", k)
		}
	}
}

func runRandomLedger(t *testing.T, seed uint64, steps, accounts int) map[string]int {
	rng := rand.New(rand.NewPCG(seed, 0x5eed))
	ms := simMarkets()
	l := newLedger(t, ms...)
	topUps := seed%2 == 0 // odd seeds run with an empty fund: deficits go to ADL
	if topUps {
		l.fundInsurance(20_000 * usd)
	}
	for range accounts {
		var ss []Setting
		for _, m := range ms {
			ss = append(ss, Setting{IID: m.ID, Lev: 1 + rng.Int64N(m.MaxLeverage), Cross: !m.IsolatedOnly && rng.IntN(3) > 0})
		}
		a := l.open(ss)
		l.deposit(a, (1_000+rng.Int64N(20_000))*usd)
	}
	users := l.accts[1:]
	pick := func() *Account { return users[rng.IntN(len(users))] }
	refuse := func(err error) {
		var e Error
		if errors.As(err, &e) {
			l.stats["refused "+string(e)]++
		} else if err != nil {
			t.Fatalf("seed %d: %v", seed, err)
		}
	}
	for step := range steps {
		m := ms[rng.IntN(len(ms))]
		what := ""
		switch op := rng.IntN(100); {
		case op < 40:
			what = "trade"
			taker, maker := pick(), pick()
			if rng.IntN(4) == 0 {
				maker = l.lp
			}
			if taker == maker {
				continue
			}
			// Mostly near the mark; now and then an aggressive price off the band.
			off := m.Mark * int64(rng.IntN(201)-100) / 10_000
			if rng.IntN(20) == 0 {
				off = m.Mark * 8 / 100
			}
			buy := rng.IntN(2) == 0
			ticks := m.Mark + off
			if !buy {
				ticks = m.Mark - off
			}
			err := l.trade(taker, maker, m.ID, buy, ticks, lotsFor(m, 100+rng.Int64N(40_000)))
			if err == nil {
				l.stats["trade"]++
			}
			refuse(err)
		case op < 52:
			what = "order"
			a := pick()
			if len(a.Orders) >= 6 {
				continue
			}
			o := Order{IID: m.ID, Buy: rng.IntN(2) == 0, Lots: lotsFor(m, 100+rng.Int64N(30_000))}
			if rng.IntN(5) > 0 {
				o.Ticks = m.Mark + m.Mark*int64(rng.IntN(601)-300)/10_000
			}
			err := CheckOrder(a, l.mk, o)
			if err == nil {
				a.Orders = append(a.Orders, o)
				l.stats["order"]++
			}
			refuse(err)
		case op < 57:
			what = "cancel"
			if a := pick(); len(a.Orders) > 0 {
				i := rng.IntN(len(a.Orders))
				a.Orders = append(a.Orders[:i], a.Orders[i+1:]...)
			}
		case op < 72:
			what = "price"
			move := m.Mark * int64(rng.IntN(161)-80) / 10_000 // ±0.8 %
			if rng.IntN(25) == 0 {
				move = m.Mark * int64(rng.IntN(25)-12) / 100 // a gap of up to ±12 %
				l.stats["gap"]++
			}
			m.Mark = max(m.Mark+move, 100)
		case op < 77:
			what = "funding"
			index := m.Mark + m.Mark*int64(rng.IntN(41)-20)/10_000
			var w PremiumWindow
			for range 1 + rng.IntN(12) {
				bid := m.Mark - 1 + m.Mark*int64(rng.IntN(21)-10)/10_000
				lv := func(p int64) []book.Level { return []book.Level{{Price: p, Qty: lotsFor(m, 5_000)}} }
				p, err := Premium(m.Grid, lv(bid), lv(bid+2), index, l.fp.ImpactMicro)
				if err != nil {
					t.Fatal(err)
				}
				_ = w.Add(p)
			}
			l.settleFunding(m.ID, w, int64(step))
			l.stats["funding"]++
		case op < 82:
			what = "adjust"
			a := pick()
			p := a.Position(m.ID)
			if p == nil {
				continue
			}
			amt := rng.Int64N(2_000*usd) - 1_000*usd
			nm, err := AdjustMargin(a, l.mk, m.ID, amt)
			if err == nil {
				a.Collateral -= amt
				p.Margin = nm
				l.stats["adjust"]++
			}
			refuse(err)
		case op < 87:
			what = "leverage"
			a := pick()
			s := Setting{IID: m.ID, Lev: rng.Int64N(m.MaxLeverage+2) - 0, Cross: rng.IntN(2) == 0}
			n := 0
			for _, o := range a.Orders {
				if o.IID == m.ID {
					n++
				}
			}
			err := ValidateLeverage(&m.Instrument, a.Setting(&m.Instrument), s.Lev, s.Cross, a.Position(m.ID) != nil, n, false)
			if err == nil {
				err = CheckLeverage(a, l.mk, s)
			}
			if err == nil {
				setSetting(a, s)
				l.stats["leverage"]++
			}
			if err != ErrLeverageZero {
				refuse(err)
			}
		case op < 93:
			what = "deposit"
			l.deposit(pick(), rng.Int64N(5_000*usd))
		case op < 98:
			what = "withdraw"
			err := l.withdraw(pick(), rng.Int64N(3_000*usd))
			if err == nil {
				l.stats["withdraw"]++
			}
			refuse(err)
		default:
			what = "insurance"
			if topUps {
				l.fundInsurance(rng.Int64N(5_000 * usd))
			}
		}
		l.liquidate()
		l.check(step, what)
	}
	return l.stats
}
