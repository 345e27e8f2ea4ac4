package risk

import (
	"testing"

	"pmx/internal/exchange/book"
)

// The worked examples of docs/perps-risk.md. The instrument is BTC-like:
// tick 0.1 (pd 1), lot 0.001 (qd 3), 20x maximum, liquidation fee 2.5 %,
// price band 5 %. usd converts whole dollars to micro-units, px dollars to
// ticks, btc thousandths to lots.
const (
	usd = 1_000_000
	px  = 10 // ticks per dollar
)

func btcMarket(markDollars int64) *Market {
	return &Market{Instrument: Instrument{ID: 1, Grid: Grid{PriceDecimals: 1, QtyDecimals: 3}, MaxLeverage: 20,
		LiqFeePPM: 25_000, BandPPM: 50_000}, Mark: markDollars * px}
}

func markets(ms ...*Market) Markets {
	out := Markets{}
	for _, m := range ms {
		out[m.ID] = m
	}
	return out
}

// exampleLong: 4,000 collateral, long 0.5 BTC at 60,000, cross 10x.
func exampleLong() *Account {
	return &Account{ID: 7, Collateral: 4_000 * usd,
		Positions: []Position{{IID: 1, Size: 500, Cost: 500 * 60_000 * px}},
		Settings:  []Setting{{IID: 1, Lev: 10, Cross: true}}}
}

func TestMarginStatesWorkedExample(t *testing.T) {
	for _, tc := range []struct {
		mark                       int64
		equity, im, mm, upnl, notl int64
		state                      State
	}{
		{60_000, 4_000 * usd, 3_000 * usd, 750 * usd, 0, 30_000 * usd, Healthy},
		{59_000, 3_500 * usd, 2_950 * usd, 737_500_000, -500 * usd, 29_500 * usd, Healthy},
		{57_000, 2_500 * usd, 2_850 * usd, 712_500_000, -1_500 * usd, 28_500 * usd, MarginCall},
		{53_500, 750 * usd, 2_675 * usd, 668_750_000, -3_250 * usd, 26_750 * usd, MarginCall},
		{53_000, 500 * usd, 2_650 * usd, 662_500_000, -3_500 * usd, 26_500 * usd, Liquidation},
	} {
		s, err := Evaluate(exampleLong(), markets(btcMarket(tc.mark)))
		if err != nil {
			t.Fatal(err)
		}
		p := s.Positions[0]
		if s.Equity != tc.equity || s.IM != tc.im || s.MM != tc.mm || p.UPnL != tc.upnl || s.Notional != tc.notl || s.State != tc.state {
			t.Errorf("mark %d: equity %d im %d mm %d upnl %d notional %d state %v; want %d %d %d %d %d %v", tc.mark,
				s.Equity, s.IM, s.MM, p.UPnL, s.Notional, s.State, tc.equity, tc.im, tc.mm, tc.upnl, tc.notl, tc.state)
		}
	}
}

func TestLiquidationPriceWorkedExample(t *testing.T) {
	a := exampleLong()
	m := btcMarket(59_000)
	x, err := LiquidationPrice(&a.Positions[0], m, 3_500*usd, 0)
	if err != nil || x != 533_333 { // 53,333.3: 4,000 + 0.5(x − 60,000) = 0.5·x·2.5 %
		t.Fatalf("liquidation price %d, %v; want 533333", x, err)
	}
	// Just above it the scope is in a margin call, at or below it liquidation.
	for _, tc := range []struct {
		mark  int64
		state State
	}{{533_334, MarginCall}, {533_332, Liquidation}} {
		m.Mark = tc.mark
		s, _ := Evaluate(a, markets(m))
		if s.State != tc.state {
			t.Errorf("mark %d: %v, want %v", tc.mark, s.State, tc.state)
		}
	}
	short := &Position{IID: 1, Size: -500, Cost: 500 * 60_000 * px}
	m.Mark = 60_000 * px
	x, _ = LiquidationPrice(short, m, 4_000*usd, 0)
	// 4,000 − 0.5(x − 60,000) = 0.5·x·2.5 % → x = 68,000/1.025 = 66,341.46…, rounded up.
	if x != 663_415 {
		t.Fatalf("short liquidation price %d, want 663415", x)
	}
}

func TestPreTradeWorkedExample(t *testing.T) {
	a := &Account{ID: 1, Collateral: 4_000 * usd, Settings: []Setting{{IID: 1, Lev: 10, Cross: true}}}
	mk := markets(btcMarket(60_000))
	first := Order{IID: 1, Buy: true, Ticks: 60_000 * px, Lots: 500}
	if err := CheckOrder(a, mk, first); err != nil {
		t.Fatalf("buy 0.5 @ 60,000 (req 3,000 of 4,000): %v", err)
	}
	a.Orders = append(a.Orders, first)
	if v, _ := Available(a, mk, nil); v != 1_000*usd {
		t.Fatalf("available %d, want 1,000", v)
	}
	// 0.2 more @ 60,500: W 0.7 → 4,200 + loss 0.2·500 = 100 → 4,300 > 4,000.
	if err := CheckOrder(a, mk, Order{IID: 1, Buy: true, Ticks: 60_500 * px, Lots: 200}); err != ErrInsufficientMargin {
		t.Fatalf("second buy: %v, want insufficient_margin", err)
	}
	if v, _ := Available(a, mk, &Order{IID: 1, Buy: true, Ticks: 60_500 * px, Lots: 200}); v != -300*usd {
		t.Fatalf("available with the second buy %d, want -300", v)
	}
	// A sell 0.3 leaves W = max(|0+0.5|, |0−0.3|) = 0.5: requirement unchanged, accepted.
	if err := CheckOrder(a, mk, Order{IID: 1, Buy: false, Ticks: 60_000 * px, Lots: 300}); err != nil {
		t.Fatalf("sell 0.3: %v", err)
	}
}

func TestFundingWorkedExample(t *testing.T) {
	f := DefaultFunding()
	// Impact bid 60,030 and impact ask 60,060 over an index of 60,000: the
	// bid term is 30/60,000 = 0.05 %; the ask is above the index (no term).
	g := Grid{PriceDecimals: 1, QtyDecimals: 3}
	bids := []book.Level{{Price: 60_030 * px, Qty: 100}}
	asks := []book.Level{{Price: 60_060 * px, Qty: 100}}
	p, err := Premium(g, bids, asks, 60_000*px, f.ImpactMicro)
	if err != nil || p != 500_000 {
		t.Fatalf("premium %d, %v; want 500000 (0.05 %%)", p, err)
	}
	// (0.05 % + clamp(0.01 % − 0.05 %, ±0.05 %)) / 8 = 0.01 %/8 = 0.00125 %.
	r, _ := f.Rate(p)
	if r != 12_500 {
		t.Fatalf("rate %d, want 12500", r)
	}
	// A long 0.5 at mark 60,000 pays 30,000 · 0.00125 % = 0.375; the short receives it.
	if c, _ := Charge(g, 500, 60_000*px, r); c != 375_000 {
		t.Fatalf("long charge %d", c)
	}
	if c, _ := Charge(g, -500, 60_000*px, r); c != -375_000 {
		t.Fatalf("short charge %d", c)
	}
}
