// Package fixed is the exchanges' engine fixed point: prices are int64 ticks
// and quantities int64 lots of one instrument. An Instrument says how many
// decimals a tick and a lot have (tick = 10^-PriceDecimals, lot =
// 10^-QtyDecimals). Conversion to and from decimal strings is exact; no
// float64 and no big decimals are involved.
package fixed

import (
	"errors"
	"strconv"
)

// Instrument describes one instrument's grid.
type Instrument struct {
	PriceDecimals uint8 // tick = 10^-PriceDecimals
	QtyDecimals   uint8 // lot = 10^-QtyDecimals
}

// MaxSigFigs is the contract's limit on significant figures of a price or
// quantity. Integer prices are exempt (perps instrument rule).
const MaxSigFigs = 5

// MaxDecimals bounds Instrument decimals so that 10^d fits an int64 with room.
const MaxDecimals = 12

// Distinct rejection errors. The texts are the perps contract's messages so
// an API layer can pass them through unchanged.
var (
	ErrPriceZero      = errors.New("price cannot be zero")
	ErrPriceNegative  = errors.New("price cannot be negative")
	ErrPriceDecimals  = errors.New("price exceeds allowed decimal places")
	ErrPriceSigFigs   = errors.New("price exceeds allowed significant figures")
	ErrPriceSyntax    = errors.New("price is not a decimal number")
	ErrQtyNonPositive = errors.New("quantity must be positive")
	ErrQtyDecimals    = errors.New("quantity exceeds allowed decimal places")
	ErrQtySigFigs     = errors.New("quantity exceeds allowed significant figures")
	ErrQtySyntax      = errors.New("quantity is not a decimal number")
	ErrRange          = errors.New("number out of range")
	ErrInstrument     = errors.New("instrument decimals out of range")
)

// Price is a price in ticks of its instrument.
type Price int64

// Qty is a quantity in lots of its instrument.
type Qty int64

// decimal is a parsed plain decimal: value = mant * 10^-scale, mant >= 0.
type decimal struct {
	neg      bool
	mant     int64
	scale    int // digits after the point, trailing zeros removed
	sig      int // significant figures (first to last nonzero digit)
	integral bool
}

var errSyntax = errors.New("syntax")

// parse reads [-]digits[.digits]. No exponent, no '+', no leading or
// trailing '.', no spaces. Leading zeros are allowed ("007", "0.5").
func parse(s string) (decimal, error) {
	var d decimal
	if s != "" && s[0] == '-' {
		d.neg = true
		s = s[1:]
	}
	if s == "" {
		return d, errSyntax
	}
	intDigits, fracDigits := 0, 0
	seenPoint := false
	first, last := -1, -1 // positions (digit index) of first and last nonzero digit
	pos := 0
	var mant uint64
	overflow := false
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c == '.' {
			if seenPoint || intDigits == 0 {
				return d, errSyntax
			}
			seenPoint = true
			continue
		}
		if c < '0' || c > '9' {
			return d, errSyntax
		}
		if seenPoint {
			fracDigits++
		} else {
			intDigits++
		}
		if c != '0' {
			if first < 0 {
				first = pos
			}
			last = pos
		}
		pos++
	}
	if seenPoint && fracDigits == 0 {
		return d, errSyntax
	}
	// Trailing fractional zeros carry no value: the scale ends at the last
	// nonzero fractional digit (0 for an integer value).
	scale := 0
	if last >= intDigits {
		scale = last - intDigits + 1
	}
	// Accumulate digits up to the last significant fractional digit.
	end := intDigits + scale
	pos = 0
	for i := 0; i < len(s) && pos < end; i++ {
		c := s[i]
		if c == '.' {
			continue
		}
		if mant > (1<<63-1-9)/10 {
			overflow = true // mant stays nonzero, so zero checks stay right
			break
		}
		mant = mant*10 + uint64(c-'0')
		pos++
	}
	if first >= 0 {
		d.sig = last - first + 1
	}
	d.mant = int64(mant)
	d.scale = scale
	d.integral = scale == 0
	if overflow {
		return d, ErrRange
	}
	return d, nil
}

// pow10 returns 10^n for 0 <= n <= 18.
func pow10(n int) int64 {
	p := int64(1)
	for ; n > 0; n-- {
		p *= 10
	}
	return p
}

// toUnits scales d to an integer count of 10^-decimals units.
func toUnits(d decimal, decimals int) (int64, error) {
	m := pow10(decimals - d.scale)
	if d.mant > (1<<63-1)/m {
		return 0, ErrRange
	}
	return d.mant * m, nil
}

func (in Instrument) check() error {
	if in.PriceDecimals > MaxDecimals || in.QtyDecimals > MaxDecimals {
		return ErrInstrument
	}
	return nil
}

// ParsePrice converts a decimal string to ticks. Rejections, in order:
// syntax, negative, zero, more decimals than the instrument allows (trailing
// zeros are not counted), more than 5 significant figures unless the value
// is an integer, and values too large for int64 ticks.
func (in Instrument) ParsePrice(s string) (Price, error) {
	if err := in.check(); err != nil {
		return 0, err
	}
	d, err := parse(s)
	if err == errSyntax {
		return 0, ErrPriceSyntax
	}
	if d.neg && d.mant != 0 {
		return 0, ErrPriceNegative
	}
	if err != nil {
		return 0, err
	}
	if d.mant == 0 {
		return 0, ErrPriceZero
	}
	if d.scale > int(in.PriceDecimals) {
		return 0, ErrPriceDecimals
	}
	if !d.integral && d.sig > MaxSigFigs {
		return 0, ErrPriceSigFigs
	}
	v, err := toUnits(d, int(in.PriceDecimals))
	return Price(v), err
}

// ParseQty converts a decimal string to lots. Rejections, in order: syntax,
// zero or negative, more decimals than the instrument allows, more than 5
// significant figures, and values too large for int64 lots.
func (in Instrument) ParseQty(s string) (Qty, error) {
	if err := in.check(); err != nil {
		return 0, err
	}
	d, err := parse(s)
	if err == errSyntax {
		return 0, ErrQtySyntax
	}
	if d.mant == 0 || d.neg {
		return 0, ErrQtyNonPositive
	}
	if err != nil {
		return 0, err
	}
	if d.scale > int(in.QtyDecimals) {
		return 0, ErrQtyDecimals
	}
	if d.sig > MaxSigFigs {
		return 0, ErrQtySigFigs
	}
	v, err := toUnits(d, int(in.QtyDecimals))
	return Qty(v), err
}

// AppendPrice appends the shortest exact decimal of p ticks ("0.5", "12").
func (in Instrument) AppendPrice(dst []byte, p Price) []byte {
	return appendUnits(dst, int64(p), int(in.PriceDecimals))
}

// AppendQty appends the shortest exact decimal of q lots.
func (in Instrument) AppendQty(dst []byte, q Qty) []byte {
	return appendUnits(dst, int64(q), int(in.QtyDecimals))
}

// FormatPrice is AppendPrice into a new string (formatted on the stack: the
// string is the only allocation, none for one byte).
func (in Instrument) FormatPrice(p Price) string {
	var buf [48]byte
	return string(in.AppendPrice(buf[:0], p))
}

// FormatQty is AppendQty into a new string.
func (in Instrument) FormatQty(q Qty) string {
	var buf [48]byte
	return string(in.AppendQty(buf[:0], q))
}

func appendUnits(dst []byte, v int64, decimals int) []byte {
	u := uint64(v)
	if v < 0 {
		dst = append(dst, '-')
		u = -u
	}
	if decimals == 0 {
		return strconv.AppendUint(dst, u, 10)
	}
	scale := uint64(pow10(decimals))
	dst = strconv.AppendUint(dst, u/scale, 10)
	frac := u % scale
	if frac == 0 {
		return dst
	}
	var buf [MaxDecimals + 1]byte
	buf[0] = '.'
	for i := decimals; i >= 1; i-- {
		buf[i] = byte('0' + frac%10)
		frac /= 10
	}
	n := decimals + 1
	for buf[n-1] == '0' {
		n--
	}
	return append(dst, buf[:n]...)
}

// PriceOne returns the number of ticks in 1.0, the complement base of an
// outcome-token market (a YES at q and a NO at PriceOne-q make one pair).
func (in Instrument) PriceOne() Price { return Price(pow10(int(in.PriceDecimals))) }
