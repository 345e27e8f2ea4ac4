package risk

import "testing"

func TestValidateLeverageErrors(t *testing.T) {
	in := &btcMarket(60_000).Instrument
	iso := &Instrument{ID: 2, MaxLeverage: 10, IsolatedOnly: true}
	cross10 := Setting{IID: 1, Lev: 10, Cross: true}
	isoCur := Setting{IID: 1, Lev: 20}
	for _, tc := range []struct {
		name   string
		in     *Instrument
		cur    Setting
		lev    int64
		cross  bool
		pos    bool
		orders int
		blp    bool
		want   error
	}{
		{"zero leverage is the earlier plain 400", in, cross10, 0, true, false, 0, false, ErrLeverageZero},
		{"instrument_not_found", nil, cross10, 5, true, false, 0, false, ErrInstrumentNotFound},
		{"blp_leverage_locked even when unchanged", in, cross10, 10, true, false, 0, true, ErrBLPLeverageLocked},
		{"invalid_leverage above the maximum", in, cross10, 21, true, false, 0, false, ErrInvalidLeverage},
		{"cross on an isolated-only instrument", iso, Setting{IID: 2, Lev: 10}, 5, true, false, 0, false, ErrInvalidMarginMode},
		{"position_exists on a mode switch", in, isoCur, 10, true, true, 0, false, ErrPositionExists},
		{"open_orders_exist on a mode switch (pending included)", in, isoCur, 10, true, false, 1, false, ErrOpenOrdersExist},
		{"leverage change with a position is allowed", in, cross10, 5, true, true, 3, false, nil},
		{"maximum leverage is allowed", in, isoCur, 20, false, true, 0, false, nil},
	} {
		if err := ValidateLeverage(tc.in, tc.cur, tc.lev, tc.cross, tc.pos, tc.orders, tc.blp); err != tc.want {
			t.Errorf("%s: %v, want %v", tc.name, err, tc.want)
		}
	}
}

func TestCheckLeverageNeedsMarginToLower(t *testing.T) {
	mk := markets(btcMarket(60_000))
	a := exampleLong() // IM 3,000 at 10x of 4,000 equity
	if err := CheckLeverage(a, mk, Setting{IID: 1, Lev: 20, Cross: true}); err != nil {
		t.Fatalf("raise: %v", err)
	}
	if err := CheckLeverage(a, mk, Setting{IID: 1, Lev: 8, Cross: true}); err != nil {
		t.Fatalf("8x needs 3,750: %v", err)
	}
	if err := CheckLeverage(a, mk, Setting{IID: 1, Lev: 7, Cross: true}); err != ErrInsufficientMargin {
		t.Fatalf("7x needs 4,285.72: %v", err)
	}
	a.Liquidating = true
	if err := CheckLeverage(a, mk, Setting{IID: 1, Lev: 20, Cross: true}); err != ErrAccountLiquidating {
		t.Fatalf("liquidating: %v", err)
	}
}

func isolatedLong() *Account {
	// 1,000 collateral; isolated long 0.5 @ 60,000 at 20x (IM 1,500) with 2,000 allocated.
	return &Account{ID: 3, Collateral: 1_000 * usd,
		Positions: []Position{{IID: 1, Size: 500, Cost: 500 * 60_000 * px, Margin: 2_000 * usd}},
		Settings:  []Setting{{IID: 1, Lev: 20}}}
}

func TestAdjustMarginErrors(t *testing.T) {
	mk := markets(btcMarket(60_000))
	liq := isolatedLong()
	liq.Positions[0].Liquidating = true
	crossLiq := isolatedLong()
	crossLiq.Liquidating = true
	for _, tc := range []struct {
		name string
		a    *Account
		iid  uint32
		amt  int64
		want error
		nm   int64
	}{
		{"position_not_found", isolatedLong(), 9, 1, ErrPositionNotFound, 0},
		{"invalid_margin_mode on a cross position", exampleLong(), 1, 1, ErrInvalidMarginMode, 0},
		{"invalid_margin_amount zero", isolatedLong(), 1, 0, ErrInvalidMarginAmount, 0},
		{"account_liquidating: isolated position", liq, 1, 1, ErrAccountLiquidating, 0},
		{"account_liquidating: cross", crossLiq, 1, 1, ErrAccountLiquidating, 0},
		{"insufficient_margin beyond free collateral", isolatedLong(), 1, 1_000*usd + 1, ErrInsufficientMargin, 0},
		{"add all free collateral", isolatedLong(), 1, 1_000 * usd, nil, 3_000 * usd},
		{"release down to IM", isolatedLong(), 1, -500 * usd, nil, 1_500 * usd},
		{"margin_below_required_initial", isolatedLong(), 1, -500*usd - 1, ErrBelowRequiredInitial, 0},
	} {
		nm, err := AdjustMargin(tc.a, mk, tc.iid, tc.amt)
		if err != tc.want || (err == nil && nm != tc.nm) {
			t.Errorf("%s: %d %v, want %d %v", tc.name, nm, err, tc.nm, tc.want)
		}
	}
	// At 61,000 the release may include the 500 of unrealized profit:
	// equity 2,500 − IM 1,525 = 975 releasable.
	up := markets(btcMarket(61_000))
	if nm, err := AdjustMargin(isolatedLong(), up, 1, -975*usd); err != nil || nm != 1_025*usd {
		t.Fatalf("release with profit: %d %v", nm, err)
	}
	if _, err := AdjustMargin(isolatedLong(), up, 1, -975*usd-1); err != ErrBelowRequiredInitial {
		t.Fatalf("release past IM with profit: %v", err)
	}
}

func TestMarginTimestampWindow(t *testing.T) {
	now := int64(1_800_000_000_000)
	for _, tc := range []struct {
		ts   int64
		want error
	}{
		{now, nil}, {now - MarginMaxAgeMs, nil}, {now - MarginMaxAgeMs - 1, ErrMarginTimestamp},
		{now + MarginMaxAheadMs, nil}, {now + MarginMaxAheadMs + 1, ErrMarginTimestamp},
	} {
		if err := CheckMarginTimestamp(tc.ts, now); err != tc.want {
			t.Errorf("ts %+d: %v", tc.ts-now, err)
		}
	}
}
