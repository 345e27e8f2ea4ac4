package perps

import (
	"math/big"
	"math/bits"
	"strconv"
)

// Collateral is pUSD in micro units (6 decimals), as the token itself counts.
const collateralDecimals = 6

// FormatMicro renders micro units as a decimal string ("12.5", "-0.000125").
func FormatMicro(v int64) string { return formatScaled(v, collateralDecimals) }

func formatScaled(v int64, decimals int) string {
	neg := v < 0
	u := uint64(v)
	if neg {
		u = uint64(-v)
	}
	s := strconv.FormatUint(u, 10)
	if decimals > 0 {
		for len(s) <= decimals {
			s = "0" + s
		}
		i, f := s[:len(s)-decimals], s[len(s)-decimals:]
		for len(f) > 0 && f[len(f)-1] == '0' {
			f = f[:len(f)-1]
		}
		s = i
		if f != "" {
			s += "." + f
		}
	}
	if neg && s != "0" {
		s = "-" + s
	}
	return s
}

func pow10(n int) uint64 {
	p := uint64(1)
	for range n {
		p *= 10
	}
	return p
}

// tickLotsToMicro converts a value in tick×lot units (price ticks times
// quantity lots) of an instrument to collateral micro units, truncating toward
// zero. It saturates rather than overflowing.
func tickLotsToMicro(v int64, pd, qd uint8) int64 {
	neg := v < 0
	u := uint64(v)
	if neg {
		u = uint64(-v)
	}
	e := collateralDecimals - int(pd) - int(qd)
	var r uint64
	if e >= 0 {
		hi, lo := bits.Mul64(u, pow10(e))
		if hi != 0 || lo > 1<<62 {
			lo = 1 << 62
		}
		r = lo
	} else {
		r = u / pow10(-e)
	}
	if neg {
		return -int64(r)
	}
	return int64(r)
}

// notional is ticks×lots in tick×lot units, saturating at 2^62.
func notional(ticks, lots int64) int64 {
	if ticks < 0 {
		ticks = -ticks
	}
	if lots < 0 {
		lots = -lots
	}
	hi, lo := bits.Mul64(uint64(ticks), uint64(lots))
	if hi != 0 || lo > 1<<62 {
		return 1 << 62
	}
	return int64(lo)
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

// ParseMicro parses a non-negative decimal amount with at most 6 decimals.
func ParseMicro(s string) (int64, bool) {
	if s == "" || len(s) > 30 {
		return 0, false
	}
	var ip, fp string = s, ""
	for i := 0; i < len(s); i++ {
		if s[i] == '.' {
			ip, fp = s[:i], s[i+1:]
			break
		}
	}
	if ip == "" || len(fp) > collateralDecimals {
		return 0, false
	}
	for len(fp) < collateralDecimals {
		fp += "0"
	}
	v, err := strconv.ParseUint(ip+fp, 10, 63)
	if err != nil {
		return 0, false
	}
	return int64(v), true
}
