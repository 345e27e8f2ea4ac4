package perps

import (
	"errors"
	"testing"

	"pmx/internal/perps/risk"
)

func TestParseMarginDelta(t *testing.T) {
	bad, syntax := risk.ErrInvalidMarginAmount, ErrMarginAmountSyntax
	for _, c := range []struct {
		in   string
		want int64
		err  error
	}{
		{"25", 25_000_000, nil},
		{"-0.5", -500_000, nil},
		{"0.000001", 1, nil},
		{"-0.000001", -1, nil},
		{"9223372036854.775807", 9223372036854775807, nil},
		{"-9223372036854.775807", -9223372036854775807, nil},
		{"0", 0, bad},                              // zero
		{"-0.000000", 0, bad},                      // zero with a sign
		{"0.0000001", 0, bad},                      // over-precise
		{"1.0000000", 0, bad},                      // a zero past the sixth decimal is over-precise too
		{"-25.000000000000000001", 0, bad},         // the signing vector of perps.md §4
		{"-1234567890.123456789012345678", 0, bad}, // over-precise and long
		{"9223372036854.775808", 0, bad},           // one micro-unit past int64
		{"99999999999999999999999999", 0, bad},     // unrepresentable
		{"", 0, syntax}, {"-", 0, syntax}, {"+1", 0, syntax}, {"1e3", 0, syntax},
		{".5", 0, syntax}, {"5.", 0, syntax}, {" 1", 0, syntax}, {"--1", 0, syntax},
		{"1.2.3", 0, syntax}, {"0x10", 0, syntax}, {"١", 0, syntax},
	} {
		got, err := ParseMarginDelta(c.in)
		if !errors.Is(err, c.err) || got != c.want {
			t.Errorf("ParseMarginDelta(%q) = %d, %v; want %d, %v", c.in, got, err, c.want, c.err)
		}
	}
}

// FuzzParseMarginDelta: never panics; an accepted delta is non-zero and
// prints back to an amount that parses to itself.
func FuzzParseMarginDelta(f *testing.F) {
	for _, s := range []string{"25", "-0.5", "0", "-25.000000000000000001", "1e3", "9223372036854.775807"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		v, err := ParseMarginDelta(s)
		if err != nil {
			if v != 0 {
				t.Fatalf("%q: refused with %d", s, v)
			}
			return
		}
		if v == 0 {
			t.Fatalf("%q: zero accepted", s)
		}
		back, err := ParseMarginDelta(FormatMicro(v))
		if err != nil || back != v {
			t.Fatalf("%q: %d prints %q, parses %d, %v", s, v, FormatMicro(v), back, err)
		}
	})
}

// TestAdjustMarginAccountLiquidating: a flagged cross scope refuses an
// adjustment of an isolated position (account_liquidating), and the
// refusal, like every other, moves nothing.
func TestAdjustMarginAccountLiquidating(t *testing.T) {
	tr := &transcript{m: New(Config{}), ts: 1000}
	for _, d := range []string{"instrument", "deposit acct=a amount=10000", "deposit acct=b amount=100000",
		"index p=60000", "place acct=b side=sell p=60000 qty=0.5", "place acct=a side=buy p=60000 qty=0.5",
		"margin acct=a amt=500"} {
		if _, err := tr.run(d); err != nil {
			t.Fatal(d, err)
		}
	}
	ev := tr.m.Apply(0, tr.ts, (&Command{Kind: KLiquidating, Account: addr("a"), On: true}).Encode(), nil)[0]
	if ev.Err != "" {
		t.Fatal(ev.Err)
	}
	got, _ := tr.run("margin acct=a amt=100")
	if got != "err: account_liquidating" {
		t.Fatalf("flagged: %s", got)
	}
	if p := tr.m.accts[addr("a")].Positions[1]; !p.Iso || p.Margin != 2_000_000_000 {
		t.Fatalf("allocation moved: %+v", p)
	}
}
