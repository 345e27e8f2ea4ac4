package risk

import (
	"testing"

	"pmx/internal/exchange/book"
)

func TestMarkPriceCandidatesAndFallbacks(t *testing.T) {
	for _, tc := range []struct {
		name string
		in   MarkInputs
		want int64
	}{
		{"index only", MarkInputs{Index: 1000}, 1000},
		{"index, book without samples: index", MarkInputs{Index: 1000, BestBid: 1010, BestAsk: 1020, Last: 1015}, 1000},
		{"median of index, book and basis", MarkInputs{Index: 1000, BestBid: 1010, BestAsk: 1020, Last: 1015,
			Premium: 5_000_000, Samples: 3}, 1005}, // basis 1000·(1+0.5 %) = 1005; median(1000, 1015, 1005)
		{"book median uses last", MarkInputs{Index: 1000, BestBid: 990, BestAsk: 1030, Last: 1040,
			Premium: 20_000_000, Samples: 1}, 1020}, // book median(990,1030,1040)=1030, basis 1020
		{"mid without last", MarkInputs{Index: 1000, BestBid: 1001, BestAsk: 1004, Premium: 10_000_000, Samples: 1}, 1002},
		{"one-sided book falls back to index", MarkInputs{Index: 1000, BestBid: 1100, Premium: 50_000_000, Samples: 1}, 1000},
		{"negative premium", MarkInputs{Index: 1000, BestBid: 980, BestAsk: 990, Premium: -15_000_000, Samples: 2}, 985},
		{"no index: book", MarkInputs{BestBid: 990, BestAsk: 1010, Last: 1200}, 1010},
		{"no index, no book: last", MarkInputs{BestBid: 990, Last: 1200}, 1200},
		{"nothing", MarkInputs{BestAsk: 5}, 0},
	} {
		if got := MarkPrice(tc.in); got != tc.want {
			t.Errorf("%s: %d, want %d", tc.name, got, tc.want)
		}
	}
}

func TestPriceBandsRefuseAggressivePricesOutsideBounds(t *testing.T) {
	m := btcMarket(60_000) // band 5 %: [57,000, 63,000]
	if lo, hi := m.Band(); lo != 570_000 || hi != 630_000 {
		t.Fatalf("band [%d, %d]", lo, hi)
	}
	for _, tc := range []struct {
		buy   bool
		price int64
		err   error
	}{
		{true, 630_000, nil}, {true, 630_001, ErrPriceOutsideBounds}, {true, 1, nil}, // a low bid rests
		{false, 570_000, nil}, {false, 569_999, ErrPriceOutsideBounds}, {false, 900_000, nil},
	} {
		if err := m.CheckPrice(tc.buy, tc.price); err != tc.err {
			t.Errorf("buy %v @ %d: %v, want %v", tc.buy, tc.price, err, tc.err)
		}
	}
	if !m.CanMatch(570_000) || m.CanMatch(569_999) || m.CanMatch(630_001) {
		t.Fatal("CanMatch disagrees with the band")
	}
	a := &Account{Collateral: 1_000_000 * usd}
	if err := CheckOrder(a, markets(m), Order{IID: 1, Buy: true, Ticks: 700_000, Lots: 1}); err != ErrPriceOutsideBounds {
		t.Fatalf("CheckOrder outside the band: %v", err)
	}
	free := btcMarket(60_000)
	free.BandPPM = 0
	if err := free.CheckPrice(true, 1<<60); err != nil {
		t.Fatalf("no band: %v", err)
	}
}

func TestImpactPriceWalksTheBook(t *testing.T) {
	g := Grid{PriceDecimals: 1, QtyDecimals: 3}
	// 0.01 @ 60,040 (600.40) then 7 lots @ 60,020 (420.14): 1,000 reached.
	bids := []book.Level{{Price: 600_400, Qty: 10}, {Price: 600_200, Qty: 100}}
	num, den, ok, err := ImpactPrice(g, bids, 1_000*usd)
	if err != nil || !ok || num != 10*600_400+7*600_200 || den != 17 {
		t.Fatalf("impact %d/%d ok %v err %v", num, den, ok, err)
	}
	if _, _, ok, _ := ImpactPrice(g, bids[:1], 1_000*usd); ok {
		t.Fatal("a side too thin for the impact notional must not give a price")
	}
	// A thin side contributes nothing to the premium.
	p, err := Premium(g, bids[:1], nil, 600_000, 1_000*usd)
	if err != nil || p != 0 {
		t.Fatalf("premium from thin book %d %v", p, err)
	}
	// Ask below the index: negative premium. 1,000 @ 59,940: (60,000−59,940)/60,000 = 0.1 %.
	p, _ = Premium(g, nil, []book.Level{{Price: 599_400, Qty: 1000}}, 600_000, 1_000*usd)
	if p != -1_000_000 {
		t.Fatalf("negative premium %d", p)
	}
	if _, err := Premium(g, nil, nil, 0, 1); err != ErrMarkUnavailable {
		t.Fatalf("no index: %v", err)
	}
}

func TestFundingRateClampAndCap(t *testing.T) {
	f := DefaultFunding()
	for _, tc := range []struct{ premium, want int64 }{
		{0, 12_500},                   // interest only: 0.01 %/8
		{100_000, 12_500},             // premium equal to interest
		{-300_000, 12_500},            // −0.03 % + clamp(0.04 %, ±0.05 %) = 0.01 %, /8
		{-1_000_000, -62_500},         // −0.1 % + 0.05 % = −0.05 % /8
		{2_000_000, 187_500},          // 0.2 % − 0.05 % = 0.15 % /8
		{1_000_000_000, 40_000_000},   // capped at 4 % per settlement
		{-1_000_000_000, -40_000_000}, // and at −4 %
	} {
		r, err := f.Rate(tc.premium)
		if err != nil || r != tc.want {
			t.Errorf("premium %d: rate %d %v, want %d", tc.premium, r, err, tc.want)
		}
	}
	var w PremiumWindow
	for _, s := range []int64{10, 20, -5} {
		_ = w.Add(s)
	}
	if w.Average() != 8 || (PremiumWindow{}).Average() != 0 {
		t.Fatalf("average %d", w.Average())
	}
}

func TestFundingChargeRoundsAgainstThePayer(t *testing.T) {
	g := Grid{PriceDecimals: 1, QtyDecimals: 3}
	for _, tc := range []struct{ size, mark, rate, want int64 }{
		{1, 600_000, 12_500, 750},   // 60 · 0.00125 % = 0.00075: exact
		{1, 600_001, 12_500, 751},   // 60.0001 · 0.00125 % = 750.00125 micro: the payer pays 751
		{-1, 600_001, 12_500, -750}, // the receiver gets 750
		{1, 600_001, -12_500, -750}, // negative rate: the long receives
		{-1, 600_001, -12_500, 751}, // and the short pays
		{500, 600_000, 0, 0},
	} {
		c, err := Charge(g, tc.size, tc.mark, tc.rate)
		if err != nil || c != tc.want {
			t.Errorf("%+v: %d %v", tc, c, err)
		}
	}
}
