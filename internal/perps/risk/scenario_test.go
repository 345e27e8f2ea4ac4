package risk

import (
	"testing"

	"pmx/internal/exchange/book"
)

func cross10(iid uint32) []Setting { return []Setting{{IID: iid, Lev: 10, Cross: true}} }

// A long is liquidated when the mark falls through its bankruptcy price; the
// insurance fund takes the position and the deficit.
func TestScenarioLongLiquidatedInsuranceFundTakesDeficit(t *testing.T) {
	m := btcMarket(60_000)
	l := newLedger(t, m)
	l.fundInsurance(10_000 * usd)
	a := l.open(cross10(1))
	b := l.open(cross10(1))
	l.deposit(a, 4_000*usd)
	l.deposit(b, 10_000*usd)
	if err := l.trade(a, b, 1, true, 60_000*px, 500); err != nil {
		t.Fatal(err)
	}
	l.check(0, "trade")
	if a.Collateral != 3_988*usd { // taker fee 0.04 % of 30,000
		t.Fatalf("collateral after the taker fee %d", a.Collateral)
	}
	m.Mark = 51_000 * px // equity 3,988 − 4,500 = −512 < ⅔·MM
	l.liquidate()
	l.check(1, "liquidate")
	if a.Position(1) != nil || a.Collateral != 0 || a.Liquidating {
		t.Fatalf("liquidated account: %+v", a)
	}
	if l.fund.Collateral != 10_000*usd-512*usd {
		t.Fatalf("fund %d, want 9,488 (the deficit of 512 absorbed)", l.fund.Collateral)
	}
	if p := l.fund.Position(1); p == nil || p.Size != 500 || p.Cost != 500*51_000*px {
		t.Fatalf("fund position %+v, want the long at the mark", p)
	}
	if bp := b.Position(1); bp == nil || bp.Size != -500 {
		t.Fatalf("the counterparty is untouched by a backstop: %+v", bp)
	}
	if l.stats["backstop"] != 1 || l.stats["adl"] != 0 || l.stats["flagged"] != 1 || l.stats["cleared"] != 1 {
		t.Fatalf("steps %v", l.stats)
	}
}

// The same with an empty fund: the most profitable opposing position (ranked
// first by the ADL index) is deleveraged at the bankruptcy price.
func TestScenarioEmptyFundDeleveragesMostProfitableShort(t *testing.T) {
	m := btcMarket(60_000)
	l := newLedger(t, m)
	a := l.open(cross10(1)) // the long that will go bankrupt
	b := l.open(cross10(1)) // short at 60,000: the most profitable
	c := l.open(cross10(1)) // short at 52,500, well collateralized
	d := l.open(cross10(1)) // long opposite c
	l.deposit(a, 5_500*usd)
	l.deposit(b, 5_000*usd)
	l.deposit(c, 20_000*usd)
	l.deposit(d, 100_000*usd)
	if err := l.trade(a, b, 1, true, 60_000*px, 500); err != nil {
		t.Fatal(err)
	}
	m.Mark = 52_500 * px
	l.liquidate()
	if a.Liquidating || a.Position(1) == nil {
		t.Fatalf("a must still be above maintenance at 52,500: %+v", a)
	}
	if err := l.trade(c, d, 1, false, 52_500*px, 500); err != nil {
		t.Fatal(err)
	}
	m.Mark = 48_000 * px // a: 5,488 − 6,000 = −512
	ranked, err := RankADL(l.all(), l.mk, 1, true, l.fund, nil)
	if err != nil || len(ranked) != 2 || ranked[0].Acct != b || ranked[1].Acct != c || ranked[0].Score <= ranked[1].Score {
		t.Fatalf("ranking %+v %v", ranked, err)
	}
	l.liquidate()
	l.check(1, "deleverage")
	if l.stats["backstop"] != 0 || l.stats["adl"] != 1 {
		t.Fatalf("steps %v", l.stats)
	}
	if a.Position(1) != nil || b.Position(1) != nil {
		t.Fatalf("a and b must both be flat: %+v %+v", a.Positions, b.Positions)
	}
	if cp := c.Position(1); cp == nil || cp.Size != -500 {
		t.Fatalf("c (ranked second) must be untouched: %+v", cp)
	}
	// Bankruptcy price 48,000 + 512/0.5 = 49,024: a ends at zero, nothing
	// is left for the empty fund to cover.
	last := l.fills[len(l.fills)-2:]
	if last[0].acct != a.ID || last[0].buy || !last[0].liq || !last[0].adl || last[0].ticks != 49_024*px || last[0].fee != 0 {
		t.Fatalf("bankrupt leg %+v", last[0])
	}
	if last[1].acct != b.ID || !last[1].buy || last[1].liq || !last[1].adl || last[1].fee != 0 {
		t.Fatalf("counterparty leg %+v", last[1])
	}
	if a.Collateral != 0 || l.fund.Collateral != 0 {
		t.Fatalf("a %d fund %d", a.Collateral, l.fund.Collateral)
	}
	// b realized (60,000 − 49,024)·0.5 = 5,488 on top of 5,000 − 3.75 of maker fee.
	if b.Collateral != 5_000*usd-3_750_000+5_488*usd {
		t.Fatalf("b collateral %d", b.Collateral)
	}
}

// With the mark above the index, longs pay shorts; every account's charges
// add up to its balance change, and the charges sum to the fund's dust.
func TestScenarioFundingLongsPayShortsWhenMarkAboveIndex(t *testing.T) {
	m := btcMarket(60_000)
	l := newLedger(t, m)
	long1 := l.open(cross10(1))
	long2 := l.open([]Setting{{IID: 1, Lev: 5}}) // isolated
	short1 := l.open(cross10(1))
	short2 := l.open(cross10(1))
	for _, a := range []*Account{long1, long2, short1, short2} {
		l.deposit(a, 50_000*usd)
	}
	if err := l.trade(long1, short1, 1, true, 60_000*px, 700); err != nil {
		t.Fatal(err)
	}
	if err := l.trade(long2, short2, 1, true, 60_000*px, 333); err != nil {
		t.Fatal(err)
	}
	// A book bid up over the index: 2 BTC of bids at 60,120, asks at 60,150.
	index := int64(60_000 * px)
	bids := []book.Level{{Price: 601_200, Qty: 2_000}}
	asks := []book.Level{{Price: 601_500, Qty: 2_000}}
	var w PremiumWindow
	for range 720 { // an hour of 5-second samples
		p, err := Premium(m.Grid, bids, asks, index, l.fp.ImpactMicro)
		if err != nil {
			t.Fatal(err)
		}
		if err := w.Add(p); err != nil {
			t.Fatal(err)
		}
	}
	if w.Average() != 2_000_000 { // 0.2 %
		t.Fatalf("premium %d", w.Average())
	}
	m.Mark = MarkPrice(MarkInputs{Index: index, BestBid: 601_200, BestAsk: 601_500, Premium: w.Average(), Samples: w.N})
	if m.Mark <= index {
		t.Fatalf("mark %d must be above the index", m.Mark)
	}
	before := map[uint64]int64{}
	for _, a := range l.accts {
		before[a.ID] = a.Collateral + margins(a)
	}
	fundBefore := l.fund.Collateral
	rate := l.settleFunding(1, w, 0)
	if rate != 187_500 { // (0.2 % − 0.05 %)/8 = 0.01875 %
		t.Fatalf("rate %d", rate)
	}
	l.check(0, "funding")
	per := map[uint64]int64{}
	var total int64
	for _, ch := range l.charges {
		per[ch.acct] += ch.amount
		total += ch.amount
		if (ch.size > 0) != (ch.amount > 0) {
			t.Fatalf("longs pay and shorts receive at a positive rate: %+v", ch)
		}
	}
	for _, a := range l.accts {
		if got := before[a.ID] - (a.Collateral + margins(a)); got != per[a.ID] {
			t.Fatalf("account %d: balance change %d, charges %d", a.ID, got, per[a.ID])
		}
	}
	// 0.7 · mark · 0.01875 % paid by long1, exactly received by short1.
	want, _ := Charge(m.Grid, 700, m.Mark, rate)
	if per[long1.ID] != want || per[short1.ID] != -want || want <= 0 {
		t.Fatalf("long1 %d short1 %d want ±%d", per[long1.ID], per[short1.ID], want)
	}
	if total < 0 || total > 4 || l.fund.Collateral-fundBefore != total {
		t.Fatalf("dust %d, fund change %d", total, l.fund.Collateral-fundBefore)
	}
}

func margins(a *Account) int64 {
	var s int64
	for _, p := range a.Positions {
		s += p.Margin
	}
	return s
}
