package risk

import (
	"errors"
	"math/rand/v2"
	"testing"
)

// refCheckOrder is CheckOrder as docs/perps-risk.md defines it, written
// plainly: each requirement from its own walk of the account's orders, the
// available margin with every instrument's requirement recomputed. CheckOrder
// shares one walk for before and after, skips the arithmetic of an
// instrument with nothing held or ordered, and reuses after in its available
// margin (docs/perf/placement.md, seventh pass); it must answer alike.
func refCheckOrder(a *Account, mk Markets, o Order) error {
	m, err := orderMarket(a, mk, o) // the checks before margin: shared, not under test here
	if err != nil {
		return err
	}
	var c calc
	req := func(m *Market, s Setting, extra *Order) int64 {
		var size, buys, sells, loss int64
		if p := a.Position(m.ID); p != nil {
			size = p.Size
		}
		orders := append([]Order(nil), a.Orders...)
		if extra != nil {
			orders = append(orders, *extra)
		}
		for _, x := range orders {
			if x.IID != m.ID {
				continue
			}
			t := x.Ticks
			if t <= 0 {
				t = m.Mark
				if m.BandPPM > 0 {
					lo, hi := m.Band()
					t = lo
					if x.Buy {
						t = hi
					}
				}
			}
			if x.Buy {
				buys = c.add(buys, x.Lots)
				if t > m.Mark {
					loss = c.add(loss, c.mul(t-m.Mark, x.Lots))
				}
			} else {
				sells = c.add(sells, x.Lots)
				if t < m.Mark {
					loss = c.add(loss, c.mul(m.Mark-t, x.Lots))
				}
			}
		}
		w := max(c.abs(c.add(size, buys)), c.abs(c.sub(size, sells)))
		r := c.add(c.div(m.notional(&c, m.Mark, w), s.Lev, ceil), m.toMicro(&c, loss, ceil))
		if s.Cross {
			return r
		}
		var eq int64
		if p := a.Position(m.ID); p != nil {
			eq = c.add(p.Margin, upnl(&c, m.Grid, p.Size, p.Cost, m.Mark))
		}
		return max(0, c.sub(r, eq))
	}
	s := a.Setting(&m.Instrument)
	before, after := req(m, s, nil), req(m, s, &o)
	if err := c.err(); err != nil {
		return err
	}
	if after <= before {
		return nil
	}
	ids := instruments(a, nil)
	found := false
	for _, id := range ids {
		found = found || id == o.IID
	}
	if !found {
		ids = append(ids, o.IID)
	}
	eq, total := a.Collateral, int64(0)
	for _, id := range ids {
		mt := mk[id]
		if mt == nil {
			return ErrInstrumentNotFound
		}
		if mt.Mark <= 0 {
			return ErrMarkUnavailable
		}
		st := a.Setting(&mt.Instrument)
		if p := a.Position(id); p != nil && st.Cross {
			eq = c.add(eq, upnl(&c, mt.Grid, p.Size, p.Cost, mt.Mark))
		}
		var x *Order
		if id == o.IID {
			x = &o
		}
		total = c.add(total, req(mt, st, x))
	}
	if err := c.err(); err != nil {
		return err
	}
	if c.sub(eq, total) < 0 {
		return ErrInsufficientMargin
	}
	return nil
}

// CheckOrder gives what its plain definition gives on random accounts:
// positions cross and isolated, long and short, open limit and market
// orders, collateral around the requirement, other markets without a mark,
// a grid too fine for micro-units.
func TestCheckOrderMatchesItsDefinition(t *testing.T) {
	outcome := map[string]int{}
	for seed := uint64(1); seed <= 4; seed++ {
		rng := rand.New(rand.NewPCG(seed, 0xc4ec))
		for range 5_000 {
			ms := simMarkets()
			mk := Markets{}
			for _, m := range ms {
				m.Mark = m.Mark * int64(90+rng.IntN(21)) / 100
				if rng.IntN(20) == 0 {
					m.Mark = 0
				}
				mk[m.ID] = m
			}
			if rng.IntN(50) == 0 {
				ms[0].Grid = Grid{PriceDecimals: 13, QtyDecimals: 12} // finer than micro by 19 digits: every requirement overflows
			}
			a := &Account{ID: 1, Collateral: int64(rng.IntN(3_000)) * usd}
			for _, m := range ms {
				if rng.IntN(3) == 0 {
					continue
				}
				if rng.IntN(2) == 0 || m.IsolatedOnly {
					a.Settings = append(a.Settings, Setting{IID: m.ID, Lev: 1 + int64(rng.IntN(int(m.MaxLeverage))), Cross: !m.IsolatedOnly && rng.IntN(2) == 0})
				}
				if rng.IntN(2) == 0 {
					size := lotsFor(m, int64(1+rng.IntN(20_000)))
					if rng.IntN(2) == 0 {
						size = -size
					}
					entry := max(1, m.Mark*int64(80+rng.IntN(41))/100)
					a.Positions = append(a.Positions, Position{IID: m.ID, Size: size, Cost: abs(size) * max(entry, 1),
						Margin: int64(rng.IntN(2_000)) * usd, Liquidating: rng.IntN(50) == 0})
				}
				for range rng.IntN(3) {
					a.Orders = append(a.Orders, Order{IID: m.ID, Buy: rng.IntN(2) == 0, Ticks: priceNear(rng, m),
						Lots: lotsFor(m, int64(1+rng.IntN(10_000)))})
				}
			}
			a.Liquidating = rng.IntN(100) == 0
			m := ms[rng.IntN(len(ms))]
			o := Order{IID: m.ID, Buy: rng.IntN(2) == 0, Ticks: priceNear(rng, m), Lots: lotsFor(m, int64(1+rng.IntN(30_000)))}
			if rng.IntN(50) == 0 {
				o.IID = 9 // no such market
			}
			got, want := CheckOrder(a, mk, o), refCheckOrder(a, mk, o)
			if !errors.Is(got, want) || (got == nil) != (want == nil) {
				t.Fatalf("seed %d: CheckOrder(%+v, marks %d/%d/%d, %+v) = %v, want %v", seed, *a,
					mk[1].Mark, mk[2].Mark, mk[3].Mark, o, got, want)
			}
			k := "ok"
			if got != nil {
				k = got.Error()
			}
			outcome[k]++
		}
	}
	t.Logf("outcomes %v", outcome)
	for _, k := range []string{"ok", ErrInsufficientMargin.Error(), ErrMarkUnavailable.Error(), ErrPriceOutsideBounds.Error(),
		ErrAccountLiquidating.Error(), ErrInstrumentNotFound.Error(), ErrOverflow.Error()} {
		if outcome[k] < 20 {
			t.Errorf("only %d outcomes %q", outcome[k], k)
		}
	}
}

// priceNear is a limit price within ±10 % of m's mark (a market order, 0,
// one time in six).
func priceNear(rng *rand.Rand, m *Market) int64 {
	if rng.IntN(6) == 0 || m.Mark <= 0 {
		return 0
	}
	return max(1, m.Mark*int64(90+rng.IntN(21))/100)
}
