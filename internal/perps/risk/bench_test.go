package risk

import (
	"math/big"
	"slices"
	"testing"

	"pmx/internal/cpuclock"
)

// benchAccount has a position in each of 10 instruments (half cross, half
// isolated) and 50 open orders across them: a busy account.
func benchAccount() (*Account, Markets) {
	mk := Markets{}
	a := &Account{ID: 1, Collateral: 1_000_000 * usd}
	for i := range uint32(10) {
		m := &Market{Instrument: Instrument{ID: i, Grid: Grid{1, 3}, MaxLeverage: 20, LiqFeePPM: 25_000, BandPPM: 50_000},
			Mark: 600_000 + int64(i)*1_000}
		mk[i] = m
		a.Settings = append(a.Settings, Setting{IID: i, Lev: 10, Cross: i%2 == 0})
		a.Positions = append(a.Positions, Position{IID: i, Size: 100 - 30*int64(i%3), Cost: 100 * 598_000, Margin: 7_000 * usd * int64(i%2)})
		for j := range 5 {
			a.Orders = append(a.Orders, Order{IID: i, Buy: j%2 == 0, Ticks: 590_000 + int64(j)*5_000, Lots: 10 + int64(j)})
		}
	}
	return a, mk
}

func BenchmarkCheckOrder(b *testing.B) {
	a, mk := benchAccount()
	o := Order{IID: 3, Buy: true, Ticks: 601_000, Lots: 20}
	b.ReportAllocs()
	cpu := cpuclock.Start()
	defer func() { cpu.Report(b) }()
	for b.Loop() {
		if err := CheckOrder(a, mk, o); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkCheckOrderBigRatReference computes the same available margin
// with exact big.Rat arithmetic: what the checked int64 path saves.
func BenchmarkCheckOrderBigRatReference(b *testing.B) {
	a, mk := benchAccount()
	o := Order{IID: 3, Buy: true, Ticks: 601_000, Lots: 20}
	want, _ := Available(a, mk, &o)
	b.ReportAllocs()
	cpu := cpuclock.Start()
	defer func() { cpu.Report(b) }()
	for b.Loop() {
		if got := availableRat(a, mk, &o); got.Cmp(new(big.Rat).SetInt64(want-1)) < 0 {
			b.Fatalf("reference %s vs %d", got.FloatString(2), want)
		}
	}
}

func availableRat(a *Account, mk Markets, extra *Order) *big.Rat {
	eq := new(big.Rat).SetInt64(a.Collateral)
	req := new(big.Rat)
	orders := a.Orders
	if extra != nil {
		orders = append(slices.Clone(orders), *extra)
	}
	for id, m := range mk {
		s := a.Setting(&m.Instrument)
		scale := big.NewRat(pow10(MicroDecimals-int(m.PriceDecimals)-int(m.QtyDecimals)), 1) // grids of ≤ 6 decimals
		var size, buys, sells int64
		loss := new(big.Rat)
		p := a.Position(id)
		if p != nil {
			size = p.Size
		}
		for _, o := range orders {
			if o.IID != id {
				continue
			}
			if o.Buy {
				buys += o.Lots
				loss.Add(loss, new(big.Rat).SetInt64(max(0, o.Ticks-m.Mark)*o.Lots))
			} else {
				sells += o.Lots
				loss.Add(loss, new(big.Rat).SetInt64(max(0, m.Mark-o.Ticks)*o.Lots))
			}
		}
		w := max(abs(size+buys), abs(size-sells))
		r := new(big.Rat).SetFrac64(w*m.Mark, s.Lev)
		r.Add(r, loss).Mul(r, scale)
		var u *big.Rat
		if p != nil {
			u = new(big.Rat).SetInt64(p.Size*m.Mark - sign(p.Size)*p.Cost)
			u.Mul(u, scale)
		}
		if s.Cross {
			if u != nil {
				eq.Add(eq, u)
			}
			req.Add(req, r)
		} else if p != nil {
			r.Sub(r, u.Add(u, new(big.Rat).SetInt64(p.Margin)))
			if r.Sign() > 0 {
				req.Add(req, r)
			}
		} else {
			req.Add(req, r)
		}
	}
	return eq.Sub(eq, req)
}

// sweepBook is n positions: n/2 accounts, each with a cross and an
// isolated position, healthy except one in 1,000.
func sweepBook(n int) ([]*Account, Markets) {
	mk := Markets{
		1: {Instrument: Instrument{ID: 1, Grid: Grid{1, 3}, MaxLeverage: 20}, Mark: 600_000},
		2: {Instrument: Instrument{ID: 2, Grid: Grid{2, 2}, MaxLeverage: 10}, Mark: 10_000},
	}
	accts := make([]*Account, n/2)
	for i := range accts {
		size := int64(1 + i%50)
		a := &Account{ID: uint64(i), Collateral: 5_000 * usd,
			Settings: []Setting{{IID: 1, Lev: 20, Cross: true}, {IID: 2, Lev: 10}}}
		if i%1000 == 0 {
			a.Collateral = 1 // under water
		}
		if i%2 == 1 {
			size = -size
		}
		a.Positions = []Position{{IID: 1, Size: size, Cost: abs(size) * 600_500},
			{IID: 2, Size: -size * 10, Cost: abs(size) * 10 * 10_010, Margin: 60 * usd}}
		accts[i] = a
	}
	return accts, mk
}

func BenchmarkSweep100k(b *testing.B) {
	accts, mk := sweepBook(100_000)
	hits := make([]Hit, 0, 1024)
	b.ReportAllocs()
	cpu := cpuclock.Start()
	defer func() { cpu.Report(b) }()
	for b.Loop() {
		var err error
		hits, err = Sweep(slices.Values(accts), mk, hits[:0])
		if err != nil || len(hits) == 0 {
			b.Fatal(err, len(hits))
		}
	}
	b.ReportMetric(float64(len(hits)), "hits")
}

// BenchmarkSweep100kUncheckedReference is the floor for any sweep: the same
// loop in plain, unchecked int64 arithmetic, no settings lookup, one grid.
func BenchmarkSweep100kUncheckedReference(b *testing.B) {
	accts, mk := sweepBook(100_000)
	b.ReportAllocs()
	cpu := cpuclock.Start()
	defer func() { cpu.Report(b) }()
	for b.Loop() {
		hits := 0
		for _, a := range accts {
			eq, mm := a.Collateral, int64(0)
			for i := range a.Positions {
				p := &a.Positions[i]
				m := mk[p.IID]
				sc := pow10(MicroDecimals - int(m.PriceDecimals) - int(m.QtyDecimals))
				u := (p.Size*m.Mark - sign(p.Size)*p.Cost) * sc
				n := abs(p.Size) * m.Mark * sc
				if i == 0 {
					eq += u
					mm += n / (2 * m.MaxLeverage)
				} else if p.Margin+u < n/(2*m.MaxLeverage) {
					hits++
				}
			}
			if eq < mm {
				hits++
			}
		}
		if hits == 0 {
			b.Fatal("no hits")
		}
	}
}
