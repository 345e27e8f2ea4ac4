package amount

import "math/bits"

func mul64(x, y uint64) (hi, lo uint64) { return bits.Mul64(x, y) }

// div128 divides hi:lo by d. The quotient saturates at MaxInt64 when it would
// not fit; callers only divide values that came from int64 inputs.
func div128(hi, lo, d uint64) (q, r uint64) {
	if hi >= d {
		return 1<<63 - 1, 0
	}
	return bits.Div64(hi, lo, d)
}
