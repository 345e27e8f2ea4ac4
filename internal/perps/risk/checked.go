package risk

import (
	"errors"
	"math"
	"math/bits"
)

// ErrOverflow is returned when a value does not fit in int64.
var ErrOverflow = errors.New("risk: arithmetic overflow")

// calc is overflow-checked int64 arithmetic with a sticky flag: a chain of
// operations is written plainly and checked once (c.err()). After an
// overflow every result is 0, so nothing downstream can act on a wrapped
// value before the check.
type calc struct{ bad bool }

func (c *calc) err() error {
	if c.bad {
		return ErrOverflow
	}
	return nil
}

func (c *calc) add(a, b int64) int64 {
	s := a + b
	if (s > a) != (b > 0) {
		c.bad = true
		return 0
	}
	return s
}

func (c *calc) sub(a, b int64) int64 {
	d := a - b
	if (d < a) != (b > 0) {
		c.bad = true
		return 0
	}
	return d
}

func (c *calc) neg(a int64) int64 {
	if a == math.MinInt64 {
		c.bad = true
		return 0
	}
	return -a
}

func (c *calc) abs(a int64) int64 {
	if a < 0 {
		return c.neg(a)
	}
	return a
}

func (c *calc) mul(a, b int64) int64 {
	if a == 0 || b == 0 {
		return 0
	}
	hi, lo := bits.Mul64(uabs(a), uabs(b))
	return c.signed(hi, lo, (a < 0) != (b < 0))
}

// Rounding modes of mulDiv.
type rounding uint8

const (
	floor rounding = iota // toward −∞
	ceil                  // toward +∞
	trunc                 // toward 0
)

// mulDiv returns a·b/d rounded as asked, with a 128-bit intermediate, so
// a·b may exceed int64 as long as the quotient fits. d must not be 0.
func (c *calc) mulDiv(a, b, d int64, r rounding) int64 {
	if d == 0 {
		c.bad = true
		return 0
	}
	if a == 0 || b == 0 {
		return 0
	}
	hi, lo := bits.Mul64(uabs(a), uabs(b))
	ud := uabs(d)
	if hi >= ud {
		c.bad = true
		return 0
	}
	var q, rem uint64
	if hi == 0 { // the common case: a 64-bit divide is cheaper than 128/64
		q, rem = lo/ud, lo%ud
	} else {
		q, rem = bits.Div64(hi, lo, ud)
	}
	negative := (a < 0) != (b < 0) != (d < 0)
	if rem != 0 && ((r == floor && negative) || (r == ceil && !negative)) {
		q++
		if q == 0 {
			c.bad = true
			return 0
		}
	}
	return c.signed(0, q, negative)
}

// div is a/d with the given rounding.
func (c *calc) div(a, d int64, r rounding) int64 { return c.mulDiv(a, 1, d, r) }

func (c *calc) signed(hi, lo uint64, negative bool) int64 {
	if hi != 0 {
		c.bad = true
		return 0
	}
	if negative {
		if lo > 1<<63 {
			c.bad = true
			return 0
		}
		return int64(-lo) // lo == 1<<63 gives MinInt64
	}
	if lo > math.MaxInt64 {
		c.bad = true
		return 0
	}
	return int64(lo)
}

func uabs(a int64) uint64 {
	if a < 0 {
		return uint64(-a) // MinInt64 maps to 1<<63, its magnitude
	}
	return uint64(a)
}

func sign(a int64) int64 {
	switch {
	case a > 0:
		return 1
	case a < 0:
		return -1
	}
	return 0
}
