package risk

import "testing"

func TestApplyFill(t *testing.T) {
	g := Grid{PriceDecimals: 1, QtyDecimals: 3}
	cross := Setting{IID: 1, Lev: 10, Cross: true}
	iso := Setting{IID: 1, Lev: 10}
	long := Position{IID: 1, Size: 500, Cost: 500 * 600_000}
	for _, tc := range []struct {
		name       string
		p          Position
		s          Setting
		buy        bool
		ticks      int64
		lots       int64
		want       Position
		realized   int64
		collateral int64
		increased  bool
	}{
		{"open cross", Position{IID: 1}, cross, true, 600_000, 500, long, 0, 0, true},
		{"open isolated moves IM into the allocation", Position{IID: 1}, iso, true, 600_000, 500,
			Position{IID: 1, Size: 500, Cost: 500 * 600_000, Margin: 3_000 * usd}, 0, -3_000 * usd, true},
		{"add at another price averages the entry", long, cross, true, 620_000, 500,
			Position{IID: 1, Size: 1000, Cost: 500*600_000 + 500*620_000}, 0, 0, true},
		{"reduce cross realizes PnL", long, cross, false, 620_000, 200,
			Position{IID: 1, Size: 300, Cost: 300 * 600_000}, 400 * usd, 400 * usd, false},
		{"close isolated releases everything", Position{IID: 1, Size: 500, Cost: 500 * 600_000, Margin: 3_000 * usd}, iso,
			false, 590_000, 500, Position{IID: 1}, -500 * usd, 2_500 * usd, false},
		{"reduce isolated releases the closed share", Position{IID: 1, Size: 500, Cost: 500 * 600_000, Margin: 3_000 * usd}, iso,
			false, 620_000, 100, Position{IID: 1, Size: 400, Cost: 400 * 600_000, Margin: 2_560 * usd}, 200 * usd, 640 * usd, false},
		{"flip", long, cross, false, 610_000, 800,
			Position{IID: 1, Size: -300, Cost: 300 * 610_000}, 500 * usd, 500 * usd, true},
		{"short closes at a loss", Position{IID: 1, Size: -500, Cost: 500 * 600_000}, cross, true, 610_000, 500,
			Position{IID: 1}, -500 * usd, -500 * usd, false},
	} {
		r, err := ApplyFill(tc.p, tc.s, g, tc.buy, tc.ticks, tc.lots)
		if err != nil || r.Pos != tc.want || r.Realized != tc.realized || r.CollateralDelta != tc.collateral || r.Increased != tc.increased {
			t.Errorf("%s: %+v %v", tc.name, r, err)
		}
	}
}

func TestCheckFillInsufficientMarginAtFill(t *testing.T) {
	mk := markets(btcMarket(60_000))
	a := &Account{ID: 1, Collateral: 3_000 * usd, Settings: []Setting{{IID: 1, Lev: 10, Cross: true}}}
	if err := CheckFill(a, mk, 1, true, 600_000, 500); err != nil { // IM 3,000 of 3,000
		t.Fatalf("exact fit: %v", err)
	}
	// The same size filled 1 % above the mark books a 300 loss: equity 2,700 < IM 3,000.
	if err := CheckFill(a, mk, 1, true, 606_000, 500); err != ErrInsufficientAtFill {
		t.Fatalf("worse price: %v", err)
	}
	a.Positions = []Position{{IID: 1, Size: 500, Cost: 500 * 600_000}}
	a.Collateral = 100 * usd // deep in a margin call
	if err := CheckFill(a, mk, 1, false, 600_000, 200); err != nil {
		t.Fatalf("a reducing fill always passes: %v", err)
	}
	// Isolated: the allocation comes out of collateral; the cross side must stay healthy.
	b := &Account{ID: 2, Collateral: 1_000 * usd}
	if err := CheckFill(b, mk, 1, true, 600_000, 300); err != nil { // 18,000/20 = 900
		t.Fatalf("isolated 900 of 1,000: %v", err)
	}
	b.Positions = []Position{{IID: 9, Size: 1, Cost: 1}}
	mk[9] = &Market{Instrument: Instrument{ID: 9, MaxLeverage: 1}, Mark: 1}
	b.Settings = []Setting{{IID: 9, Lev: 1, Cross: true}}
	b.Collateral = 900 * usd
	if err := CheckFill(b, mk, 1, true, 600_000, 300); err != ErrInsufficientAtFill {
		t.Fatalf("isolated leaving the cross scope short: %v", err)
	}
}

func TestCheckOrderScopes(t *testing.T) {
	mk := markets(btcMarket(60_000))
	a := exampleLong()
	a.Liquidating = true
	if err := CheckOrder(a, mk, Order{IID: 1, Buy: false, Ticks: 600_000, Lots: 1}); err != ErrAccountLiquidating {
		t.Fatalf("cross flag: %v", err)
	}
	b := isolatedLong()
	b.Positions[0].Liquidating = true
	if err := CheckOrder(b, mk, Order{IID: 1, Buy: true, Ticks: 600_000, Lots: 1}); err != ErrAccountLiquidating {
		t.Fatalf("isolated flag: %v", err)
	}
	if err := CheckOrder(b, mk, Order{IID: 5, Buy: true, Ticks: 600_000, Lots: 1}); err != ErrInstrumentNotFound {
		t.Fatalf("unknown instrument: %v", err)
	}
	noMark := markets(btcMarket(0))
	if err := CheckOrder(&Account{Collateral: usd}, noMark, Order{IID: 1, Buy: true, Lots: 1}); err != ErrMarkUnavailable {
		t.Fatalf("no mark: %v", err)
	}
	// A market buy is margined at the top of the band (63,000): 0.1 at 10x
	// needs 630 (IM at the mark 600 + 300 of loss… of 0.1·3,000 = 300).
	c := &Account{Collateral: 899 * usd, Settings: []Setting{{IID: 1, Lev: 10, Cross: true}}}
	if err := CheckOrder(c, mk, Order{IID: 1, Buy: true, Lots: 100}); err != ErrInsufficientMargin {
		t.Fatalf("market buy needing 900 with 899: %v", err)
	}
	c.Collateral = 900 * usd
	if err := CheckOrder(c, mk, Order{IID: 1, Buy: true, Lots: 100}); err != nil {
		t.Fatalf("market buy needing 900 with 900: %v", err)
	}
	// Isolated requirement is covered by isolated equity first: the
	// 2,000 allocation backs a 0.1 add (IM 0.6·… 1,800 total) without collateral.
	d := isolatedLong()
	d.Collateral = 0
	if err := CheckOrder(d, mk, Order{IID: 1, Buy: true, Ticks: 600_000, Lots: 100}); err != nil {
		t.Fatalf("isolated add within the allocation: %v", err)
	}
	if err := CheckOrder(d, mk, Order{IID: 1, Buy: true, Ticks: 600_000, Lots: 200}); err != ErrInsufficientMargin {
		t.Fatalf("isolated add beyond the allocation: %v", err)
	}
}

func TestWithdrawable(t *testing.T) {
	mk := markets(btcMarket(60_000))
	a := exampleLong() // equity 4,000, IM 3,000 at 10x, notional 30,000
	if w, _ := Withdrawable(a, mk); w != 1_000*usd {
		t.Fatalf("10x: %d", w)
	}
	a.Settings[0].Lev = 20 // IM 1,500 but the 10 % reserve (3,000) binds
	if w, _ := Withdrawable(a, mk); w != 1_000*usd {
		t.Fatalf("20x with the reserve: %d", w)
	}
	up := markets(btcMarket(62_000)) // +1,000 unrealized: equity 5,000, reserve 3,100
	if w, _ := Withdrawable(a, up); w != 1_900*usd {
		t.Fatalf("with profit: %d", w)
	}
	a.Collateral = 500 * usd // profit backs margin but is not paid out
	a.Positions[0].Cost = 500 * 50_000 * px
	if w, _ := Withdrawable(a, up); w != 500*usd {
		t.Fatalf("capped at collateral: %d", w)
	}
	if w, _ := Withdrawable(&Account{Collateral: -5}, mk); w != 0 {
		t.Fatalf("negative collateral: %d", w)
	}
}

func TestCheckScopeBlocksReduceOnlyWhileFlagged(t *testing.T) {
	a := isolatedLong()
	a.Positions = append(a.Positions, Position{IID: 2, Size: 1, Cost: 1})
	if err := CheckScope(a, 1); err != nil {
		t.Fatalf("unflagged: %v", err)
	}
	a.Positions[0].Liquidating = true
	if CheckScope(a, 1) != ErrAccountLiquidating || CheckScope(a, 2) != nil {
		t.Fatal("an isolated flag blocks its own market only")
	}
	a.Liquidating = true
	if CheckScope(a, 2) != ErrAccountLiquidating || CheckScope(a, 7) != ErrAccountLiquidating {
		t.Fatal("a cross flag blocks every market")
	}
}

func TestCheckOrderRefusesNonPositiveSizes(t *testing.T) {
	mk := markets(btcMarket(60_000))
	for _, o := range []Order{{IID: 1, Buy: true, Lots: 0}, {IID: 1, Lots: -5, Ticks: 1}, {IID: 1, Lots: 1, Ticks: -1}} {
		if err := CheckOrder(&Account{Collateral: usd}, mk, o); err != ErrInvalidCommand {
			t.Errorf("%+v: %v", o, err)
		}
	}
}
