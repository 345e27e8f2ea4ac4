package perps

import (
	"math"
	"math/big"
	"math/bits"
	"strings"

	"pmx/internal/amount"
)

// Money is int64 micro units of collateral (pUSD, 6 decimals, as the token
// counts) and int64 tick×lot products of an instrument (price ticks times
// quantity lots). Every operation on them is checked: it reports whether
// the exact result fits, and nothing saturates or wraps. The machine refuses
// up front (deposits, placements, modifies) what could make a later step
// overflow (exposure.go), so the steps that cannot refuse (a fill already
// matched) use must.

// Collateral is pUSD in micro units (6 decimals), as the token itself counts.
const collateralDecimals = 6

// FormatMicro renders micro units as a decimal string ("12.5", "-0.000125"):
// the project's one 6-decimal codec (internal/amount).
func FormatMicro(v int64) string { return amount.Micro(v).String() }

// ParseMicro parses a non-negative decimal amount with at most 6 decimals
// (amount.Parse, without a sign and without zeros past the sixth decimal).
func ParseMicro(s string) (int64, bool) {
	if s == "" || len(s) > 30 || s[0] == '-' {
		return 0, false
	}
	if i := strings.IndexByte(s, '.'); i >= 0 && len(s)-i-1 > collateralDecimals {
		return 0, false
	}
	v, err := amount.Parse(s)
	return int64(v), err == nil
}

func pow10(n int) uint64 {
	p := uint64(1)
	for range n {
		p *= 10
	}
	return p
}

// add is a+b, ok false if it does not fit.
func add(a, b int64) (int64, bool) {
	s := a + b
	return s, (b >= 0) == (s >= a)
}

// sub is a-b, ok false if it does not fit.
func sub(a, b int64) (int64, bool) {
	s := a - b
	return s, (b >= 0) == (s <= a)
}

// mul is a×b, ok false if it does not fit.
func mul(a, b int64) (int64, bool) {
	hi, lo := bits.Mul64(uabs(a), uabs(b))
	neg := (a < 0) != (b < 0)
	switch {
	case hi != 0 || lo > math.MaxInt64+1:
		return 0, false
	case lo == math.MaxInt64+1:
		return math.MinInt64, neg
	case neg:
		return -int64(lo), true
	}
	return int64(lo), true
}

func uabs(v int64) uint64 {
	if v < 0 {
		return -uint64(v)
	}
	return uint64(v)
}

// must unwraps a checked result the exposure bound guarantees. Failing it
// is a bug in that bound, not a client's doing: the machine stops rather
// than book a wrong amount.
func must(v int64, ok bool) int64 {
	if !ok {
		panic("perps: amount overflow inside the exposure bound")
	}
	return v
}

// tickLotsToMicro converts a value in tick×lot units of an instrument to
// collateral micro units, truncating toward zero; ok is false if it does
// not fit.
func tickLotsToMicro(v int64, pd, qd uint8) (int64, bool) {
	e := collateralDecimals - int(pd) - int(qd)
	if e >= 0 {
		return mul(v, int64(pow10(e)))
	}
	return v / int64(pow10(-e)), true
}

// notional is |ticks|×|lots| in tick×lot units; ok is false if it does not
// fit.
func notional(ticks, lots int64) (int64, bool) {
	if ticks == math.MinInt64 || lots == math.MinInt64 {
		return 0, false
	}
	return mul(abs(ticks), abs(lots))
}

// valueMicro is notional(ticks, lots) in micro units of in.
func valueMicro(in *Instrument, ticks, lots int64) (int64, bool) {
	n, ok := notional(ticks, lots)
	if !ok {
		return 0, false
	}
	return tickLotsToMicro(n, in.PriceDecimals, in.QtyDecimals)
}

// mulDiv is a×b/c for non-negative a, b and positive c, truncated; ok is
// false if the quotient does not fit.
func mulDiv(a, b, c int64) (int64, bool) {
	hi, lo := bits.Mul64(uint64(a), uint64(b))
	if hi >= uint64(c) {
		return 0, false
	}
	q, _ := bits.Div64(hi, lo, uint64(c))
	return int64(q), q <= math.MaxInt64
}

// fee is notional×ppm/1e6 in micro, truncated toward zero.
func fee(notionalMicro, ppm int64) (int64, bool) {
	if ppm < 0 {
		f, ok := mulDiv(notionalMicro, -ppm, 1_000_000)
		return -f, ok
	}
	return mulDiv(notionalMicro, ppm, 1_000_000)
}

// ratio renders num/den (tick×lot units over lots, i.e. a price in ticks) as
// a decimal price string with pd decimals plus up to 8 more, truncated.
// It is used only for display (entry prices), never for accounting.
func ratio(num, den int64, pd uint8) string {
	if den == 0 {
		return "0"
	}
	r := new(big.Rat).SetFrac(big.NewInt(num), big.NewInt(den))
	r.Quo(r, new(big.Rat).SetInt(new(big.Int).SetUint64(pow10(int(pd)))))
	s := r.FloatString(int(pd) + 8)
	if i := len(s); i > 0 {
		for len(s) > 0 && s[len(s)-1] == '0' {
			s = s[:len(s)-1]
		}
		if len(s) > 0 && s[len(s)-1] == '.' {
			s = s[:len(s)-1]
		}
	}
	if s == "" || s == "-0" {
		s = "0"
	}
	return s
}
