package risk

// MicroDecimals: collateral (pUSD) is counted in micro-units.
const MicroDecimals = 6

// PPM and PPB scale fractions: 25_000 PPM is 2.5 %, 12_500 PPB is 0.00125 %.
const (
	PPM = 1_000_000
	PPB = 1_000_000_000
)

// Grid is an instrument's tick and lot: a price in ticks times a size in lots
// is a value in tick·lot units, 10^-(PriceDecimals+QtyDecimals) collateral.
type Grid struct {
	PriceDecimals uint8
	QtyDecimals   uint8
}

// toMicro converts tick·lot units to micro-units with rounding r. Grids with
// more than 6 decimals in total divide (and round); coarser ones multiply.
func (g Grid) toMicro(c *calc, tl int64, r rounding) int64 {
	e := MicroDecimals - int(g.PriceDecimals) - int(g.QtyDecimals)
	if e == 0 {
		return tl
	}
	if e > 0 {
		return c.mul(tl, pow10(e))
	}
	if -e > 18 {
		c.bad = true
		return 0
	}
	return c.div(tl, pow10(-e), r)
}

// fromMicro converts micro-units to tick·lot units, rounding r.
func (g Grid) fromMicro(c *calc, m int64, r rounding) int64 {
	e := MicroDecimals - int(g.PriceDecimals) - int(g.QtyDecimals)
	if e <= 0 {
		if -e > 18 {
			c.bad = true
			return 0
		}
		return c.mul(m, pow10(-e))
	}
	return c.div(m, pow10(e), r)
}

// Notional is |lots|·ticks in micro-units, rounded down.
func (g Grid) Notional(ticks, lots int64) (int64, error) {
	var c calc
	n := g.notional(&c, ticks, lots)
	return n, c.err()
}

func (g Grid) notional(c *calc, ticks, lots int64) int64 {
	return g.toMicro(c, c.mul(c.abs(ticks), c.abs(lots)), floor)
}

var pow10s = [19]int64{1, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15,
	1e16, 1e17, 1e18}

// pow10 is 10^n for 0 ≤ n ≤ 18 (callers bound n).
func pow10(n int) int64 { return pow10s[n] }
