// Package amount is the data service's fixed-point number: an int64 count of
// millionths. USDC and conditional-token shares both have 6 decimals on chain,
// so every ledger quantity (shares, USDC, prices in USDC per share) is exact
// here. No float64 is used to parse, add or print an amount.
package amount

import (
	"errors"
	"math"
	"strconv"
)

// Micro is a quantity in millionths (1 = 0.000001).
type Micro int64

// Scale is the number of Micro units in one whole unit.
const Scale = 1_000_000

// One is 1.0.
const One Micro = Scale

var (
	ErrSyntax    = errors.New("not a decimal number")
	ErrPrecision = errors.New("more than 6 decimal places")
	ErrRange     = errors.New("out of range")
)

// Parse reads a plain decimal ("12", "-0.5", "3.140000"). Exponents, "+",
// leading dots and more than 6 significant decimals are rejected; trailing
// zeros past the sixth decimal are allowed.
func Parse(s string) (Micro, error) {
	if s == "" {
		return 0, ErrSyntax
	}
	neg := false
	if s[0] == '-' {
		neg = true
		s = s[1:]
	}
	var whole, frac int64
	i := 0
	digits := 0
	for ; i < len(s) && s[i] != '.'; i++ {
		c := s[i]
		if c < '0' || c > '9' {
			return 0, ErrSyntax
		}
		if whole > (1<<63-1)/Scale/10 {
			return 0, ErrRange
		}
		whole = whole*10 + int64(c-'0')
		digits++
	}
	if digits == 0 {
		return 0, ErrSyntax
	}
	if i < len(s) { // fraction
		i++
		n := 0
		if i == len(s) {
			return 0, ErrSyntax
		}
		for ; i < len(s); i++ {
			c := s[i]
			if c < '0' || c > '9' {
				return 0, ErrSyntax
			}
			if n < 6 {
				frac = frac*10 + int64(c-'0')
			} else if c != '0' {
				return 0, ErrPrecision
			}
			n++
		}
		for ; n < 6; n++ {
			frac *= 10
		}
	}
	v := whole*Scale + frac
	if v < 0 {
		return 0, ErrRange
	}
	if neg {
		v = -v
	}
	return Micro(v), nil
}

// MustParse is Parse for constants and tests.
func MustParse(s string) Micro {
	m, err := Parse(s)
	if err != nil {
		panic(err)
	}
	return m
}

// String prints the shortest exact decimal: "0", "1.5", "-0.000001".
func (m Micro) String() string { return string(m.Append(nil)) }

// Append appends String's text to b without allocating beyond b's growth.
func (m Micro) Append(b []byte) []byte {
	u := uint64(m)
	if m < 0 {
		b = append(b, '-')
		u = -u // two's complement: exact for math.MinInt64 too
	}
	whole, frac := u/Scale, u%Scale
	if whole < 100 { // most prices and many sizes: no strconv call
		if whole >= 10 {
			b = append(b, digitPairs[2*whole])
		}
		b = append(b, digitPairs[2*whole+1])
	} else {
		b = strconv.AppendUint(b, whole, 10)
	}
	if frac == 0 {
		return b
	}
	// Six fraction digits from three two-digit pairs, trailing zeros cut.
	hi, mid, lo := frac/10000, frac/100%100, frac%100
	d := [7]byte{'.', digitPairs[2*hi], digitPairs[2*hi+1], digitPairs[2*mid], digitPairs[2*mid+1],
		digitPairs[2*lo], digitPairs[2*lo+1]}
	n := 7
	for d[n-1] == '0' {
		n--
	}
	return append(b, d[:n]...)
}

const digitPairs = "00010203040506070809101112131415161718192021222324252627282930313233343536373839" +
	"40414243444546474849505152535455565758596061626364656667686970717273747576777879" +
	"8081828384858687888990919293949596979899"

// MarshalJSON writes the amount as a JSON number (the data service's wire form).
func (m Micro) MarshalJSON() ([]byte, error) { return m.Append(nil), nil }

// UnmarshalJSON accepts a JSON string or number holding a plain decimal.
func (m *Micro) UnmarshalJSON(b []byte) error {
	s := string(b)
	if len(s) >= 2 && s[0] == '"' && s[len(s)-1] == '"' {
		s = s[1 : len(s)-1]
	}
	v, err := Parse(s)
	if err != nil {
		return err
	}
	*m = v
	return nil
}

// Mul returns a*b rounded half away from zero to a Micro (e.g. price × size);
// the product is held in 128 bits, so only the result must fit.
func Mul(a, b Micro) Micro { return MulDiv(a, b, Scale) }

// MulFloor returns a*b truncated to a Micro, for non-negative a and b: what
// the chain pays (redeemPositions' integer division), never more than the
// exact product.
func MulFloor(a, b Micro) Micro {
	hi, lo := mul64(uint64(abs(int64(a))), uint64(abs(int64(b))))
	q, _ := div128(hi, lo, Scale)
	return Micro(q)
}

// Div returns a/b rounded half away from zero (e.g. cost / size = average price).
// b must not be zero.
func Div(a, b Micro) Micro { return MulDiv(a, Scale, b) }

// MulDiv returns a*b/c rounded half away from zero; c must not be zero. It
// scales a cost basis by a fraction of shares without intermediate rounding.
func MulDiv(a, b, c Micro) Micro {
	neg := (a < 0) != (b < 0) != (c < 0)
	x, y, z := uint64(abs(int64(a))), uint64(abs(int64(b))), uint64(abs(int64(c)))
	hi, lo := mul64(x, y)
	q, r := div128(hi, lo, z)
	if r >= z-r && q < math.MaxUint64 {
		q++
	}
	if q > math.MaxInt64 { // saturate like div128: a quotient in [2^63, 2^64) must not wrap negative
		q = math.MaxInt64
	}
	if neg {
		return -Micro(q)
	}
	return Micro(q)
}

func abs(v int64) int64 {
	if v < 0 {
		return -v
	}
	return v
}
