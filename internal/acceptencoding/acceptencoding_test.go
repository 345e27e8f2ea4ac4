package acceptencoding

import (
	"strings"
	"testing"
)

func TestGzip(t *testing.T) {
	for _, tc := range []struct {
		in   []string
		want bool
	}{
		{nil, false},
		{[]string{""}, false},
		{[]string{"gzip"}, true},
		{[]string{"gzip, deflate, br"}, true},
		{[]string{"br", "GZIP;q=0.5"}, true},
		{[]string{"x-gzip"}, true},
		{[]string{"*"}, true},
		{[]string{"identity"}, false},
		{[]string{"gzipx"}, false},
		{[]string{"gzip;level=1"}, true},
		{[]string{"gzip;q=0"}, false},
		{[]string{"gzip; q=0.000"}, false},
		{[]string{"gzip;q=0.0", "*"}, false},
		{[]string{"*, gzip;q=0"}, false},
		{[]string{"*;q=0"}, false},
		{[]string{"gzip;q=abc"}, false},
		{[]string{"gzip;q=2"}, false},
		{[]string{"gzip;q=0", "gzip"}, false}, // a refusal stands
	} {
		if got := Gzip(tc.in); got != tc.want {
			t.Errorf("Gzip(%q) = %v, want %v", tc.in, got, tc.want)
		}
	}
}

// FuzzGzip: any header parses without panicking; an explicit gzip;q=0
// appended refuses gzip; a header naming no gzip coding and no "*" never
// accepts it.
func FuzzGzip(f *testing.F) {
	for _, s := range []string{"gzip", "*", "*, gzip;q=0", "br;q=1, x-gzip;q=0.001", "gzip;q=0.5, br",
		";;,,", "gzip;q=", "gzip;q=0;q=1", "x-gzip;q=1.0"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got := Gzip([]string{s})
		if Gzip([]string{s, "gzip;q=0"}) {
			t.Fatalf("%q plus gzip;q=0 accepted", s)
		}
		if l := strings.ToLower(s); got && !strings.Contains(l, "gzip") && !strings.Contains(s, "*") {
			t.Fatalf("%q accepted gzip without naming it or *", s)
		}
	})
}
