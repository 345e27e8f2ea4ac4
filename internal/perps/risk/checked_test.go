package risk

import (
	"math"
	"testing"
)

func TestCalcRefusesOverflow(t *testing.T) {
	for _, tc := range []struct {
		name string
		f    func(c *calc) int64
		want int64
		bad  bool
	}{
		{"add", func(c *calc) int64 { return c.add(math.MaxInt64, 1) }, 0, true},
		{"add negative", func(c *calc) int64 { return c.add(math.MinInt64, -1) }, 0, true},
		{"add ok", func(c *calc) int64 { return c.add(math.MaxInt64-1, 1) }, math.MaxInt64, false},
		{"sub", func(c *calc) int64 { return c.sub(math.MinInt64, 1) }, 0, true},
		{"sub ok", func(c *calc) int64 { return c.sub(-5, -7) }, 2, false},
		{"neg min", func(c *calc) int64 { return c.neg(math.MinInt64) }, 0, true},
		{"mul", func(c *calc) int64 { return c.mul(1<<32, 1<<31) }, 0, true},
		{"mul min", func(c *calc) int64 { return c.mul(-1<<32, 1<<31) }, math.MinInt64, false},
		{"mul ok", func(c *calc) int64 { return c.mul(-3, 7) }, -21, false},
		{"mulDiv wide", func(c *calc) int64 { return c.mulDiv(1<<40, 1<<40, 1<<30, floor) }, 1 << 50, false},
		{"mulDiv too big", func(c *calc) int64 { return c.mulDiv(1<<62, 1<<62, 2, floor) }, 0, true},
		{"mulDiv by zero", func(c *calc) int64 { return c.mulDiv(1, 1, 0, floor) }, 0, true},
		{"floor negative", func(c *calc) int64 { return c.mulDiv(-7, 1, 2, floor) }, -4, false},
		{"ceil negative", func(c *calc) int64 { return c.mulDiv(-7, 1, 2, ceil) }, -3, false},
		{"trunc negative", func(c *calc) int64 { return c.mulDiv(-7, 1, 2, trunc) }, -3, false},
		{"ceil positive", func(c *calc) int64 { return c.mulDiv(7, 1, 2, ceil) }, 4, false},
		{"floor negative divisor", func(c *calc) int64 { return c.mulDiv(7, 1, -2, floor) }, -4, false},
		{"sticky", func(c *calc) int64 { c.add(math.MaxInt64, 1); return c.add(1, 1) }, 2, true},
	} {
		var c calc
		got := tc.f(&c)
		if got != tc.want || c.bad != tc.bad {
			t.Errorf("%s: %d (bad %v), want %d (bad %v)", tc.name, got, c.bad, tc.want, tc.bad)
		}
	}
}

func TestNotionalConvertsGrids(t *testing.T) {
	for _, tc := range []struct {
		g           Grid
		ticks, lots int64
		want        int64
	}{
		{Grid{1, 3}, 600_000, 500, 30_000 * usd}, // 0.5 @ 60,000.0
		{Grid{4, 0}, 6_500, 3, 1_950_000},        // 3 @ 0.65
		{Grid{6, 4}, 123_456_789, 1, 12_345},     // 0.0001 @ 123.456789 = 0.0123456789 → floor
		{Grid{0, 0}, 100, -7, 700 * usd},         // |lots|
		{Grid{2, 2}, 1, 1, 100},                  // 0.01 · 0.01 = 0.0001
	} {
		got, err := tc.g.Notional(tc.ticks, tc.lots)
		if err != nil || got != tc.want {
			t.Errorf("%v %d×%d: %d %v, want %d", tc.g, tc.ticks, tc.lots, got, err, tc.want)
		}
	}
	if _, err := (Grid{0, 0}).Notional(1<<40, 1<<40); err != ErrOverflow {
		t.Fatalf("overflowing notional: %v", err)
	}
}
