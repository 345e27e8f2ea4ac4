package amount

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"math/big"
	"math/rand/v2"
	"strings"
	"testing"
)

func TestParseAndString(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want Micro
		out  string
	}{
		{"0", 0, "0"},
		{"1", One, "1"},
		{"0.5", 500_000, "0.5"},
		{"-0.000001", -1, "-0.000001"},
		{"12.161840", 12_161_840, "12.16184"},
		{"3.1400000000", 3_140_000, "3.14"},
		{"9223372036854", 9_223_372_036_854_000_000, "9223372036854"},
	} {
		got, err := Parse(tc.in)
		if err != nil || got != tc.want {
			t.Errorf("Parse(%q) = %d, %v; want %d", tc.in, got, err, tc.want)
			continue
		}
		if s := got.String(); s != tc.out {
			t.Errorf("String(%d) = %q, want %q", got, s, tc.out)
		}
	}
}

func TestParseRejects(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want error
	}{
		{"", ErrSyntax}, {"-", ErrSyntax}, {".5", ErrSyntax}, {"1.", ErrSyntax}, {"+1", ErrSyntax},
		{"1e3", ErrSyntax}, {"0x10", ErrSyntax}, {"1.0000001", ErrPrecision}, {"99999999999999", ErrRange},
	} {
		if _, err := Parse(tc.in); !errors.Is(err, tc.want) {
			t.Errorf("Parse(%q) err = %v, want %v", tc.in, err, tc.want)
		}
	}
}

func TestJSONIsANumberAndAcceptsStrings(t *testing.T) {
	b, _ := json.Marshal(struct{ V Micro }{MustParse("0.52")})
	if string(b) != `{"V":0.52}` {
		t.Fatal(string(b))
	}
	var v struct{ A, B Micro }
	if err := json.Unmarshal([]byte(`{"A":"22.84","B":0.25}`), &v); err != nil || v.A != 22_840_000 || v.B != 250_000 {
		t.Fatalf("%v %+v", err, v)
	}
}

func TestMulDivRoundHalfAwayFromZero(t *testing.T) {
	if got := Mul(MustParse("22.84"), MustParse("0.52")); got != MustParse("11.8768") {
		t.Errorf("Mul = %s", got)
	}
	if got := Mul(1, 500_000); got != 1 { // 0.0000005 rounds up
		t.Errorf("Mul half = %d", got)
	}
	if got := Mul(-1, 500_000); got != -1 {
		t.Errorf("Mul -half = %d", got)
	}
	if got := Div(One, 3*One); got != 333_333 {
		t.Errorf("Div = %d", got)
	}
	if got := MulDiv(MustParse("10"), MustParse("1"), MustParse("3")); got != 3_333_333 {
		t.Errorf("MulDiv = %d", got)
	}
	// 128-bit intermediate: a large basis scaled by a fraction does not overflow.
	if got := MulDiv(MustParse("9000000"), MustParse("5000000"), MustParse("10000000")); got != MustParse("4500000") {
		t.Errorf("MulDiv wide = %s", got)
	}
	// A quotient in [2^63, 2^64) saturates instead of wrapping negative.
	if got, want := MulDiv(1<<62, 3, 1), Micro(math.MaxInt64); got != want {
		t.Errorf("MulDiv(2^62, 3, 1) = %d, want %d", got, want)
	}
	if got, want := MulDiv(-(1<<62), 3, 1), Micro(-math.MaxInt64); got != want {
		t.Errorf("MulDiv(-2^62, 3, 1) = %d, want %d", got, want)
	}
}

func FuzzParse(f *testing.F) {
	for _, s := range []string{"0", "1.5", "-0.000001", "12.161840", "1e3", "", ".", "999999999999.999999"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		v, err := Parse(s)
		if err != nil {
			return
		}
		// What parses prints back to a string that parses to the same value.
		w, err := Parse(v.String())
		if err != nil || w != v {
			t.Fatalf("%q -> %d -> %q -> %d, %v", s, v, v.String(), w, err)
		}
	})
}

// TestAppendMatchesReference: Append against a plain reference (strconv of
// the whole part, six fraction digits trimmed) on edge and seeded random values.
func TestAppendMatchesReference(t *testing.T) {
	ref := func(m Micro) string {
		v := new(big.Int).SetInt64(int64(m))
		neg := v.Sign() < 0
		v.Abs(v)
		q, r := new(big.Int).QuoRem(v, big.NewInt(Scale), new(big.Int))
		s := q.String()
		if r.Sign() != 0 {
			s += "." + strings.TrimRight(fmt.Sprintf("%06d", r.Int64()), "0")
		}
		if neg {
			s = "-" + s
		}
		return s
	}
	vals := []Micro{0, 1, -1, 9, 10, 99, 100, 999_999, 1_000_000, 9_999_999, 10_000_000, 99_000_001, 99_999_999,
		100_000_000, 1_000_000_000_000, math.MaxInt64, math.MinInt64, math.MinInt64 + 1, -99_999_999, -100_000_000}
	rnd := rand.New(rand.NewPCG(1, 2))
	for range 100_000 {
		vals = append(vals, Micro(rnd.Int64()>>rnd.IntN(63)), -Micro(rnd.Int64N(200_000_000)))
	}
	for _, m := range vals {
		if got, want := string(m.Append([]byte("x"))), "x"+ref(m); got != want {
			t.Fatalf("Micro(%d).Append = %q, want %q", int64(m), got, want)
		}
	}
}

func BenchmarkAppend(b *testing.B) {
	buf := make([]byte, 0, 64)
	vals := []Micro{550_000, 12_345_678, 1_000_000, -3_250_000, 123_456_789_012}
	for i := range b.N {
		buf = vals[i%len(vals)].Append(buf[:0])
	}
}

// refMulDiv is a*b/c rounded half away from zero in math/big; ok is false
// when the result does not fit in an int64 (see the note on div128).
func refMulDiv(a, b, c int64) (int64, bool) {
	q := new(big.Int).Mul(big.NewInt(a), big.NewInt(b))
	neg := q.Sign()*big.NewInt(c).Sign() < 0
	q.Abs(q)
	d := new(big.Int).Abs(big.NewInt(c))
	r := new(big.Int)
	q.QuoRem(q, d, r)
	if r.Lsh(r, 1).Cmp(d) >= 0 {
		q.Add(q, big.NewInt(1))
	}
	if neg {
		q.Neg(q)
	}
	return q.Int64(), q.IsInt64()
}

// FuzzMulDivMatchBig checks Mul, Div and MulDiv against math/big wherever
// the exact result is an int64.
func FuzzMulDivMatchBig(f *testing.F) {
	for _, s := range [][3]int64{{1, 500_000, 1}, {-1, 500_000, 3}, {int64(One), 3 * int64(One), -7},
		{9_000_000 * int64(One), 5_000_000 * int64(One), 10_000_000 * int64(One)}, {math.MaxInt64, 1, 1},
		{math.MinInt64 + 1, 2, -3}, {0, 5, 1}, {-2_500_000, 3, -2}} {
		f.Add(s[0], s[1], s[2])
	}
	check := func(t *testing.T, what string, got Micro, a, b, c int64) {
		if want, ok := refMulDiv(a, b, c); ok && int64(got) != want {
			t.Fatalf("%s(%d, %d, %d) = %d, want %d", what, a, b, c, got, want)
		}
	}
	f.Fuzz(func(t *testing.T, a, b, c int64) {
		if a == math.MinInt64 || b == math.MinInt64 || c == math.MinInt64 {
			t.Skip() // no int64 negation; a Micro never holds it
		}
		check(t, "Mul", Mul(Micro(a), Micro(b)), a, b, Scale)
		if b != 0 {
			check(t, "Div", Div(Micro(a), Micro(b)), a, Scale, b)
		}
		if c != 0 {
			check(t, "MulDiv", MulDiv(Micro(a), Micro(b), Micro(c)), a, b, c)
		}
	})
}
