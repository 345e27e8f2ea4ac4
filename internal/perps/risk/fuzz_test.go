package risk

import (
	"math"
	"math/big"
	"testing"
)

// FuzzMulDiv checks the checked 128-bit mulDiv against math/big: either the
// exact quotient rounded as asked, or ErrOverflow exactly when it does not fit.
func FuzzMulDiv(f *testing.F) {
	f.Add(int64(7), int64(3), int64(2), uint8(0))
	f.Add(int64(-7), int64(3), int64(2), uint8(1))
	f.Add(int64(math.MinInt64), int64(1), int64(-1), uint8(2))
	f.Add(int64(1<<62), int64(1<<62), int64(1<<61), uint8(0))
	f.Fuzz(func(t *testing.T, a, b, d int64, r uint8) {
		if d == 0 {
			return
		}
		mode := rounding(r % 3)
		var c calc
		got := c.mulDiv(a, b, d, mode)
		num := new(big.Int).Mul(big.NewInt(a), big.NewInt(b))
		den := big.NewInt(d)
		q, m := new(big.Int).QuoRem(num, den, new(big.Int)) // truncated
		if m.Sign() != 0 {
			neg := (num.Sign() < 0) != (den.Sign() < 0)
			if mode == floor && neg {
				q.Sub(q, big.NewInt(1))
			} else if mode == ceil && !neg {
				q.Add(q, big.NewInt(1))
			}
		}
		if !q.IsInt64() {
			if !c.bad {
				t.Fatalf("%d·%d/%d (%d) = %s does not fit, got %d without overflow", a, b, d, mode, q, got)
			}
			return
		}
		if c.bad || got != q.Int64() {
			t.Fatalf("%d·%d/%d (%d) = %s, got %d (bad %v)", a, b, d, mode, q, got, c.bad)
		}
	})
}
