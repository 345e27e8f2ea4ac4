package hexid

import (
	"regexp"
	"strings"
	"testing"
)

func TestCanonical(t *testing.T) {
	addr := "0x" + strings.Repeat("ab12", 10)
	for _, c := range []struct {
		name, in string
		n        int
		want     string // "" = invalid
	}{
		{"canonical", addr, 40, addr},
		{"upper digits", "0x" + strings.Repeat("AB12", 10), 40, addr},
		{"upper X", "0X" + strings.Repeat("ab12", 10), 40, addr},
		{"mixed", "0XaB12" + strings.Repeat("ab12", 9), 40, addr},
		{"one digit short", addr[:41], 40, ""},
		{"one digit long", addr + "0", 40, ""},
		{"no prefix", strings.Repeat("ab12", 10) + "00", 40, ""},
		{"bad prefix", "1x" + strings.Repeat("ab12", 10), 40, ""},
		{"x only", "x0" + strings.Repeat("ab12", 10), 40, ""},
		{"non-hex digit", "0x" + strings.Repeat("ab12", 9) + "ab1g", 40, ""},
		{"space", "0x" + strings.Repeat("ab12", 9) + "ab1 ", 40, ""},
		{"empty", "", 40, ""},
		{"bare 0x", "0x", 0, ""},
		{"64 digits", "0x" + strings.Repeat("F", 64), 64, "0x" + strings.Repeat("f", 64)},
	} {
		got, ok := Canonical(c.in, c.n)
		if ok != (c.want != "") || got != c.want {
			t.Errorf("%s: Canonical(%q, %d) = %q, %v; want %q", c.name, c.in, c.n, got, ok, c.want)
		}
	}
}

// TestCanonicalNoAllocation: the common, already canonical id is not copied.
func TestCanonicalNoAllocation(t *testing.T) {
	id := "0x" + strings.Repeat("0123456789abcdef", 4)
	if n := testing.AllocsPerRun(100, func() { Canonical(id, 64) }); n != 0 {
		t.Fatalf("%v allocations", n)
	}
}

var reference = regexp.MustCompile(`^0[xX][0-9a-fA-F]+$`)

// FuzzCanonical compares Canonical with a regular-expression reference.
func FuzzCanonical(f *testing.F) {
	for _, s := range []string{"0x", "0xAb", "0Xab", "0x0g", "ab", "0x" + strings.Repeat("a", 40), "\x00x12"} {
		f.Add(s, len(s)-2)
	}
	f.Fuzz(func(t *testing.T, s string, n int) {
		got, ok := Canonical(s, n)
		want := n > 0 && len(s) == 2+n && reference.MatchString(s)
		if ok != want {
			t.Fatalf("Canonical(%q, %d) ok = %v, want %v", s, n, ok, want)
		}
		if ok && got != "0x"+strings.ToLower(s[2:]) {
			t.Fatalf("Canonical(%q, %d) = %q", s, n, got)
		}
	})
}
