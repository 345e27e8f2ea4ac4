package fixed

import (
	"errors"
	"math/big"
	"strings"
	"testing"
)

// exact checks v units of 10^-decimals against s using math/big as oracle.
func exact(t *testing.T, s string, v int64, decimals uint8) {
	r, ok := new(big.Rat).SetString(s)
	if !ok {
		t.Fatalf("accepted %q that big.Rat cannot read", s)
	}
	want := new(big.Rat).SetFrac(big.NewInt(v), new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(decimals)), nil))
	if r.Cmp(want) != 0 {
		t.Fatalf("%q parsed to %d units of 1e-%d", s, v, decimals)
	}
}

func TestParsePrice(t *testing.T) {
	in := Instrument{PriceDecimals: 3, QtyDecimals: 2}
	cases := []struct {
		s    string
		want Price
		err  error
	}{
		{"1", 1000, nil},
		{"0.5", 500, nil},
		{"0.001", 1, nil},
		{"0.5000", 500, nil},         // trailing zeros are not decimals
		{"123456", 123456000, nil},   // integers are exempt from the 5 sig-fig rule
		{"123456.0", 123456000, nil}, // still an integer value
		{"12.345", 12345, nil},
		{"007.5", 7500, nil},
		{"1.2345", 0, ErrPriceDecimals},
		{"123.456", 0, ErrPriceSigFigs},
		{"0", 0, ErrPriceZero},
		{"0.000", 0, ErrPriceZero},
		{"-0", 0, ErrPriceZero},
		{"-1", 0, ErrPriceNegative},
		{"", 0, ErrPriceSyntax},
		{"-", 0, ErrPriceSyntax},
		{".5", 0, ErrPriceSyntax},
		{"5.", 0, ErrPriceSyntax},
		{"1e3", 0, ErrPriceSyntax},
		{"+1", 0, ErrPriceSyntax},
		{"1.2.3", 0, ErrPriceSyntax},
		{" 1", 0, ErrPriceSyntax},
		{"99999999999999999999", 0, ErrRange},
		{"9999999999999999", 0, ErrRange}, // fits int64 but not in milli-ticks
	}
	for _, tc := range cases {
		got, err := in.ParsePrice(tc.s)
		if !errors.Is(err, tc.err) || (err == nil && got != tc.want) {
			t.Errorf("ParsePrice(%q) = %d, %v; want %d, %v", tc.s, got, err, tc.want, tc.err)
		}
	}
}

func TestParseQty(t *testing.T) {
	in := Instrument{PriceDecimals: 1, QtyDecimals: 4}
	cases := []struct {
		s    string
		want Qty
		err  error
	}{
		{"1", 10000, nil},
		{"0.0001", 1, nil},
		{"12300", 123000000, nil}, // three significant figures
		{"1.2345", 12345, nil},
		{"12.345", 123450, nil},
		{"123456", 0, ErrQtySigFigs}, // quantities are never exempt
		{"1.23456", 0, ErrQtyDecimals},
		{"0.00001", 0, ErrQtyDecimals},
		{"0", 0, ErrQtyNonPositive},
		{"-2", 0, ErrQtyNonPositive},
		{"-0.5", 0, ErrQtyNonPositive},
		{"abc", 0, ErrQtySyntax},
		{"", 0, ErrQtySyntax},
	}
	for _, tc := range cases {
		got, err := in.ParseQty(tc.s)
		if !errors.Is(err, tc.err) || (err == nil && got != tc.want) {
			t.Errorf("ParseQty(%q) = %d, %v; want %d, %v", tc.s, got, err, tc.want, tc.err)
		}
	}
}

func TestErrorsDistinct(t *testing.T) {
	all := []error{ErrPriceZero, ErrPriceNegative, ErrPriceDecimals, ErrPriceSigFigs, ErrPriceSyntax,
		ErrQtyNonPositive, ErrQtyDecimals, ErrQtySigFigs, ErrQtySyntax, ErrRange, ErrInstrument}
	seen := map[string]bool{}
	for _, e := range all {
		if seen[e.Error()] {
			t.Fatalf("duplicate error text %q", e)
		}
		seen[e.Error()] = true
	}
}

func TestFormat(t *testing.T) {
	in := Instrument{PriceDecimals: 4, QtyDecimals: 0}
	cases := []struct {
		p    Price
		want string
	}{{0, "0"}, {1, "0.0001"}, {5000, "0.5"}, {123456789, "12345.6789"}, {-15, "-0.0015"}, {20000, "2"}}
	for _, tc := range cases {
		if got := in.FormatPrice(tc.p); got != tc.want {
			t.Errorf("FormatPrice(%d) = %q want %q", tc.p, got, tc.want)
		}
	}
	if got := in.FormatQty(42); got != "42" {
		t.Errorf("FormatQty = %q", got)
	}
	if in.PriceOne() != 10000 {
		t.Errorf("PriceOne = %d", in.PriceOne())
	}
	if _, err := (Instrument{PriceDecimals: 13}).ParsePrice("1"); !errors.Is(err, ErrInstrument) {
		t.Errorf("bad instrument: %v", err)
	}
}

// FuzzParse: accepted strings round-trip through Format to the same value,
// and canonical formatting parses back to itself.
func FuzzParse(f *testing.F) {
	for _, s := range []string{"1", "0.5", "12.345", "-1", "0", "1e3", "123456", "0.00012345", "9999999999999999999", "007.50"} {
		f.Add(s, uint8(3), uint8(2))
	}
	f.Fuzz(func(t *testing.T, s string, pd, qd uint8) {
		in := Instrument{PriceDecimals: pd % (MaxDecimals + 1), QtyDecimals: qd % (MaxDecimals + 1)}
		if p, err := in.ParsePrice(s); err == nil {
			if p <= 0 {
				t.Fatalf("ParsePrice(%q) = %d", s, p)
			}
			exact(t, s, int64(p), in.PriceDecimals)
			f := in.FormatPrice(p)
			p2, err := in.ParsePrice(f)
			if err != nil || p2 != p {
				t.Fatalf("price %q -> %d -> %q -> %d, %v", s, p, f, p2, err)
			}
			if strings.TrimLeft(f, "0") == "" {
				t.Fatalf("zero formatted %q", f)
			}
		}
		if q, err := in.ParseQty(s); err == nil {
			if q <= 0 {
				t.Fatalf("ParseQty(%q) = %d", s, q)
			}
			exact(t, s, int64(q), in.QtyDecimals)
			f := in.FormatQty(q)
			q2, err := in.ParseQty(f)
			if err != nil || q2 != q {
				t.Fatalf("qty %q -> %d -> %q -> %d, %v", s, q, f, q2, err)
			}
		}
	})
}
