package perps

import (
	"math"
	"testing"
)

// TestCheckedArithmeticRefusesOverflow: every money primitive reports a
// result that does not fit instead of wrapping or saturating.
func TestCheckedArithmeticRefusesOverflow(t *testing.T) {
	type r struct {
		v  int64
		ok bool
	}
	for name, tc := range map[string]struct{ got, want r }{
		"add max+1":          {pack(add(math.MaxInt64, 1)), r{0, false}},
		"add min-1":          {pack(add(math.MinInt64, -1)), r{0, false}},
		"add fits":           {pack(add(math.MaxInt64-1, 1)), r{math.MaxInt64, true}},
		"sub min-1":          {pack(sub(math.MinInt64, 1)), r{0, false}},
		"sub 0-min":          {pack(sub(0, math.MinInt64)), r{0, false}},
		"sub fits":           {pack(sub(-1, math.MaxInt64)), r{math.MinInt64, true}},
		"mul 2^32×2^31":      {pack(mul(1<<32, 1<<31)), r{0, false}},
		"mul -2^32×2^31":     {pack(mul(-(1 << 32), 1<<31)), r{math.MinInt64, true}},
		"mul fits":           {pack(mul(3037000499, 3037000499)), r{9223372030926249001, true}},
		"notional 2^26×2^40": {pack(notional(1<<26, 1<<40)), r{0, false}},
		"notional 2^22×2^40": {pack(notional(1<<22, 1<<40)), r{1 << 62, true}},
		"notional min":       {pack(notional(math.MinInt64, 1)), r{0, false}},
		"micro ×10^6":        {pack(tickLotsToMicro(1<<62, 0, 0)), r{0, false}},
		"micro ÷10^10":       {pack(tickLotsToMicro(1<<62, 8, 8)), r{(1 << 62) / 10_000_000_000, true}},
		"mulDiv quotient":    {pack(mulDiv(math.MaxInt64, 4, 2)), r{0, false}},
		"mulDiv fits":        {pack(mulDiv(math.MaxInt64, 2, 2)), r{math.MaxInt64, true}},
		"fee":                {pack(fee(1_000_000, 400)), r{400, true}},
		"fee rebate":         {pack(fee(1_000_000, -125)), r{-125, true}},
	} {
		if (tc.got.ok != tc.want.ok) || (tc.want.ok && tc.got.v != tc.want.v) {
			t.Errorf("%s: %+v, want %+v", name, tc.got, tc.want)
		}
	}
	if satAdd(math.MaxInt64-1, 5) != math.MaxInt64 {
		t.Error("statistics stop at the maximum")
	}
}

func pack(v int64, ok bool) struct {
	v  int64
	ok bool
} {
	return struct {
		v  int64
		ok bool
	}{v, ok}
}

// TestDepositsRefuseWhatTheBalanceCannotHold: two deposits of 9,000,000,000,000
// (issue 14 item 1) must not wrap: the second is refused and the balance
// keeps the first.
func TestDepositsRefuseWhatTheBalanceCannotHold(t *testing.T) {
	m := New(Config{})
	dep := func(amt string) string {
		c := Command{Kind: KDeposit, Account: "0xaa", Amount: amt}
		return m.Apply(1, 1000, c.Encode(), nil)[0].Err
	}
	if e := dep("9000000000000"); e != "" {
		t.Fatalf("first deposit: %s", e)
	}
	if e := dep("9000000000000"); e != ErrAmountRange {
		t.Fatalf("second deposit: %q, want %q", e, ErrAmountRange)
	}
	if b := m.BalancesOf("0xaa")[0].Balance; b != "9000000000000" {
		t.Fatalf("balance %s", b)
	}
	if e := dep("9223372036854.775808"); e != "invalid amount" {
		t.Fatalf("an amount past int64: %q", e)
	}
}

// TestOrdersRefuseValuesThatDoNotFit: an order whose worst-case value does
// not fit (here 2^40 lots on a grid of 2^26 ticks) is refused with
// order_value_out_of_range, where the saturating arithmetic used to call it
// insufficient margin or, with a large enough balance, accept it.
func TestOrdersRefuseValuesThatDoNotFit(t *testing.T) {
	m := New(Config{})
	apply := func(c Command) Event { return m.Apply(1, 1000, c.Encode(), nil)[0] }
	ev := apply(Command{Kind: KCreateInstrument, Instrument: &InstrumentSpec{Symbol: "X-USD", Category: "crypto",
		PriceDecimals: 0, QtyDecimals: 0, MaxLeverage: 200, MaxPrice: "67108862"}})
	if ev.Err != "" {
		t.Fatal(ev.Err)
	}
	apply(Command{Kind: KDeposit, Account: "0xaa", Amount: "1000000000"})
	p := "1"
	place := func(qty string) Ack {
		return apply(Command{Kind: KCreateOrders, Account: "0xaa", Orders: []OrderReq{{IID: 1, Buy: true, P: &p, Qty: qty}}}).Acks[0]
	}
	if a := place("1000000000000"); a.Error != ErrValueRange {
		t.Fatalf("10^12 lots: %+v", a)
	}
	// 10,000 lots fit (worst case 6.7e11 pUSD, ×4 under 9.2e12).
	if a := place("10000"); a.Status != "ok" {
		t.Fatalf("10,000 lots: %+v", a)
	}
	// The account's exposure counts its open orders: many large orders stop
	// where the next would not fit.
	refused := false
	for range 200 {
		if a := place("1000"); a.Status != "ok" {
			if a.Error != ErrValueRange {
				t.Fatalf("large order: %+v", a)
			}
			refused = true
			break
		}
	}
	if !refused {
		t.Fatal("exposure never bounded")
	}
}

// TestPortfolioIgnoresAnIndexOffTheGrid: an index price above the grid
// (journaled before the operator's index was checked against it) is not
// used as a mark, so the position's value stays inside the exposure bound.
func TestPortfolioIgnoresAnIndexOffTheGrid(t *testing.T) {
	f := newFlight(t, Config{})
	f.place(acA, true, "100", "1")
	f.do(Command{Kind: KCreateOrders, Account: acB, Orders: []OrderReq{{IID: 1, P: sp("100"), Qty: "1", TIF: sp("ioc")}}})
	if ev := f.do(Command{Kind: KIndex, IID: 1, Price: "900000000000000"}); ev.Err != "" {
		t.Fatalf("index: %s", ev.Err)
	}
	if f.m.OnGrid(1, "900000000000000") || !f.m.OnGrid(1, "100") || !f.m.OnGrid(9, "1") {
		t.Error("OnGrid")
	}
	p := f.m.PortfolioOf(acA, 2000)
	if len(p.Positions) != 1 || p.Positions[0].PositionValue != "100" {
		t.Fatalf("portfolio: %+v", p.Positions)
	}
}
