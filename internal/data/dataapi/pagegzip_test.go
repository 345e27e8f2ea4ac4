package dataapi

import "testing"

func TestAcceptsGzip(t *testing.T) {
	for _, c := range []struct {
		in   []string
		want bool
	}{
		{nil, false},
		{[]string{"gzip"}, true},
		{[]string{"gzip, deflate, br"}, true},
		{[]string{"br", "GZIP;q=0.5"}, true},
		{[]string{"x-gzip"}, true},
		{[]string{"*"}, true},
		{[]string{"gzip;q=0"}, false},
		{[]string{"*, gzip;q=0"}, false},
		{[]string{"gzip;q=0.0", "*"}, false},
		{[]string{"identity"}, false},
		{[]string{"*;q=0"}, false},
		{[]string{"gzip;q=abc"}, false},
		{[]string{"gzip;q=2"}, false},
	} {
		if got := acceptsGzip(c.in); got != c.want {
			t.Errorf("acceptsGzip(%q) = %v, want %v", c.in, got, c.want)
		}
	}
}

// Any header value parses without panicking, and an explicit gzip;q=0
// always refuses.
func FuzzAcceptsGzip(f *testing.F) {
	for _, s := range []string{"gzip", "*, gzip;q=0", "br;q=1, x-gzip;q=0.001", ";;,,", "gzip;q=0;q=1"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		_ = acceptsGzip([]string{s})
		if acceptsGzip([]string{s, "gzip;q=0"}) {
			t.Fatalf("%q plus gzip;q=0 accepted", s)
		}
	})
}
