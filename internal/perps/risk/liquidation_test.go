package risk

import (
	"slices"
	"testing"
)

func TestLiquidationFeesCappedAtEquity(t *testing.T) {
	for _, tc := range []struct {
		name                  string
		n, rate, liq, eqAfter int64
		venue, fund           int64
	}{
		// The worked example: 0.5 closed at 53,000 (26,500) with 500 left.
		{"capped", 26_500 * usd, 400, 25_000, 500 * usd, 10_600_000, 489_400_000},
		{"uncapped", 26_500 * usd, 400, 25_000, 5_000 * usd, 10_600_000, 662_500_000},
		{"nothing left", 26_500 * usd, 400, 25_000, -3 * usd, 0, 0},
		{"venue fee alone exhausts", 26_500 * usd, 400, 25_000, 5 * usd, 5 * usd, 0},
		{"rounded up", 1, 400, 25_000, usd, 1, 1},
	} {
		v, f, err := LiquidationFees(tc.n, tc.rate, tc.liq, tc.eqAfter)
		if err != nil || v != tc.venue || f != tc.fund {
			t.Errorf("%s: venue %d fund %d %v", tc.name, v, f, err)
		}
	}
}

func TestPlanChoosesTheStep(t *testing.T) {
	fund := &Account{ID: 99, Collateral: 10_000 * usd, Settings: cross10(1)}
	empty := &Account{ID: 99, Settings: cross10(1)}
	for _, tc := range []struct {
		name  string
		mark  int64
		fund  *Account
		want  StepKind
		flags bool
	}{
		{"equity 500 ≥ ⅔·MM 441.67: market close", 53_000, fund, StepMarket, true},
		{"equity 0 < ⅔·MM: backstop", 52_000, fund, StepBackstop, true},
		{"equity < ⅔·MM, empty fund: ADL", 52_000, empty, StepADL, true},
		{"recovered above IM: clear", 60_000, fund, StepClear, true},
	} {
		a := exampleLong()
		a.Liquidating = tc.flags
		mk := markets(btcMarket(tc.mark))
		hits, err := Sweep(slices.Values([]*Account{a}), mk, nil)
		if err != nil || len(hits) != 1 {
			t.Fatalf("%s: hits %v %v", tc.name, hits, err)
		}
		st, err := Plan(&hits[0], mk, tc.fund)
		if err != nil || st.Kind != tc.want {
			t.Errorf("%s: %+v %v", tc.name, st, err)
		}
		if st.Kind == StepMarket && (st.Buy || st.Lots != 500 || st.IID != 1) {
			t.Errorf("%s: order %+v, want a sell of 0.5", tc.name, st)
		}
	}
	// An unflagged healthy account is not a hit.
	if hits, _ := Sweep(slices.Values([]*Account{exampleLong()}), markets(btcMarket(57_000)), nil); len(hits) != 0 {
		t.Fatalf("margin call is not a liquidation: %v", hits)
	}
}

func TestSweepIsolatedScopes(t *testing.T) {
	a := isolatedLong() // allocation 2,000 on 30,000 at 20x: MM 750
	mk := markets(btcMarket(57_400))
	hits, _ := Sweep(slices.Values([]*Account{a}), mk, nil) // equity 2,000 − 1,300 = 700 < MM 717.5
	if len(hits) != 1 || hits[0].Cross || hits[0].IID != 1 || hits[0].Equity != 700*usd || hits[0].MM != 717_500_000 {
		t.Fatalf("isolated hit %+v", hits)
	}
	hits[0].SetFlag(true)
	if !a.Positions[0].Liquidating || a.Liquidating {
		t.Fatal("the isolated flag is the position's")
	}
	mk[1].Mark = 61_000 * px // equity 2,500 ≥ IM 1,525: recovered
	hits, _ = Sweep(slices.Values([]*Account{a}), mk, hits[:0])
	if len(hits) != 1 || !hits[0].Recovered {
		t.Fatalf("recovery %+v", hits)
	}
}

func TestADLRankingAndBankruptcyPrice(t *testing.T) {
	m := btcMarket(48_000)
	mk := markets(m)
	// The empty-fund scenario's two shorts.
	b := &Account{ID: 2, Collateral: 4_996_250_000, Positions: []Position{{IID: 1, Size: -500, Cost: 500 * 600_000}}, Settings: cross10(1)}
	c := &Account{ID: 3, Collateral: 19_989_500_000, Positions: []Position{{IID: 1, Size: -500, Cost: 500 * 525_000}}, Settings: cross10(1)}
	sb, _ := ADLScore(b, &b.Positions[0], mk, 10_996_250_000) // 1.25 · 24,000 / 10,996.25
	sc, _ := ADLScore(c, &c.Positions[0], mk, 22_239_500_000) // 1.09375 · 24,000 / 22,239.5
	if sb != 2_728_202 || sc != 1_180_332 {
		t.Fatalf("scores %d %d", sb, sc)
	}
	flagged := &Account{ID: 1, Collateral: 1 << 40, Positions: []Position{{IID: 1, Size: -500, Cost: 500 * 700_000}}, Settings: cross10(1), Liquidating: true}
	long := &Account{ID: 4, Collateral: usd, Positions: []Position{{IID: 1, Size: 500, Cost: 500 * 480_000}}, Settings: cross10(1)}
	ranked, err := RankADL(slices.Values([]*Account{flagged, c, long, b}), mk, 1, true, nil, nil)
	if err != nil || len(ranked) != 2 || ranked[0].Acct != b || ranked[1].Acct != c {
		t.Fatalf("ranking %+v %v", ranked, err)
	}
	legs, left := ADLPlan(ranked, 700, 490_240, true, nil)
	if left != 0 || len(legs) != 2 || legs[0].Lots != 500 || legs[1].Lots != 200 || !legs[0].Buy || legs[1].Acct != c {
		t.Fatalf("plan %+v left %d", legs, left)
	}
	if _, left := ADLPlan(ranked, 1_500, 490_240, true, nil); left != 500 {
		t.Fatalf("left %d, want 500 with only 1,000 opposite", left)
	}
	// Bankruptcy: long 0.5, equity −512 at 48,000 → 49,024; short mirrored.
	if x, _ := BankruptcyPrice(&Position{IID: 1, Size: 500}, m, -512*usd); x != 490_240 {
		t.Fatalf("long bankruptcy %d", x)
	}
	if x, _ := BankruptcyPrice(&Position{IID: 1, Size: -500}, m, -512*usd); x != 469_760 {
		t.Fatalf("short bankruptcy %d", x)
	}
	// Rounded so the bankrupt side ends at or above zero: 1 micro over 3 lots.
	if x, _ := BankruptcyPrice(&Position{IID: 1, Size: 3}, m, -1); x != 480_001 {
		t.Fatalf("rounding %d", x)
	}
	for _, tc := range []struct{ rank, n, want int }{{0, 8, 3}, {1, 8, 3}, {2, 8, 2}, {5, 8, 1}, {7, 8, 0}, {0, 1, 3}, {3, 0, 0}} {
		if got := ADLBucket(tc.rank, tc.n); got != tc.want {
			t.Errorf("bucket(%d of %d) = %d, want %d", tc.rank, tc.n, got, tc.want)
		}
	}
}

func TestBackstopIsolatedLeavesCollateralAlone(t *testing.T) {
	mk := markets(btcMarket(55_000))
	a := isolatedLong() // allocation 2,000; at 55,000 uPnL −2,500: equity −500
	a.Collateral = 700 * usd
	fund := &Account{ID: 99, Collateral: 10_000 * usd, Settings: cross10(1)}
	hits, _ := Sweep(slices.Values([]*Account{a}), mk, nil)
	if len(hits) != 1 || hits[0].Cross || hits[0].Equity != -500*usd {
		t.Fatalf("hits %+v", hits)
	}
	h := &hits[0]
	h.SetFlag(true)
	if st, _ := Plan(h, mk, fund); st.Kind != StepBackstop {
		t.Fatalf("step %+v", st)
	}
	moved, err := Backstop(h, mk, fund)
	if err != nil || moved != -500*usd {
		t.Fatalf("moved %d %v", moved, err)
	}
	if a.Collateral != 700*usd || a.Position(1) != nil {
		t.Fatalf("isolated loss must stay in the allocation: %+v", a)
	}
	if fund.Collateral != 9_500*usd || fund.Position(1).Size != 500 {
		t.Fatalf("fund %+v", fund)
	}
}

func TestFundMustKeepItsOwnMaintenance(t *testing.T) {
	mk := markets(btcMarket(51_000))
	a := exampleLong() // equity 4,000 − 4,500 = −500 at 51,000
	hits, _ := Sweep(slices.Values([]*Account{a}), mk, nil)
	h := &hits[0]
	// After the takeover the fund holds 25,500 of notional (MM 637.5) and
	// its balance less the 500 deficit: it needs 1,137.5.
	for _, tc := range []struct {
		balance int64
		ok      bool
	}{{1_137_500_000, true}, {1_137_499_999, false}, {0, false}} {
		fund := &Account{ID: 99, Collateral: tc.balance, Settings: cross10(1)}
		ok, err := FundCanAbsorb(h, mk, fund)
		if err != nil || ok != tc.ok {
			t.Errorf("fund %d: %v %v", tc.balance, ok, err)
		}
		want := StepADL
		if tc.ok {
			want = StepBackstop
		}
		if st, _ := Plan(h, mk, fund); st.Kind != want {
			t.Errorf("fund %d: step %v", tc.balance, st.Kind)
		}
	}
}

func TestSweepSkipsScopesWithoutAMark(t *testing.T) {
	btc := btcMarket(53_000) // the example long is in liquidation here
	other := &Market{Instrument: Instrument{ID: 2, Grid: Grid{2, 2}, MaxLeverage: 10}}
	mk := markets(btc, other)
	blind := exampleLong()
	blind.Positions = append(blind.Positions, Position{IID: 2, Size: 1, Cost: 100})
	blind.Settings = append(blind.Settings, Setting{IID: 2, Lev: 10, Cross: true})
	iso := isolatedLong()
	iso.Positions[0].Margin = 0 // isolated BTC below maintenance
	iso.Positions = append(iso.Positions, Position{IID: 2, Size: 1, Cost: 100})
	hits, err := Sweep(slices.Values([]*Account{blind, exampleLong(), iso}), mk, nil)
	if err != nil || len(hits) != 2 || hits[0].Acct == blind || hits[1].Acct != iso || hits[1].Cross {
		t.Fatalf("hits %+v %v: the cross scope with an unpriced position is skipped, the others go on", hits, err)
	}
}
