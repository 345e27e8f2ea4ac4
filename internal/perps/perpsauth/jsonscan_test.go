package perpsauth

import (
	"strings"
	"testing"
)

// skipCases are values as they appear inside ops, with what follows them.
var skipCases = []string{
	`"plain"`, `"esc\"aped\\"`, `"\u00e9\\\\"`, `""`, `0`, `-12.5e+3`, `true`, `false`, `null`,
	`{}`, `[]`, `{"a":[1,{"b":"]}"}],"c":null}`, `[{"iid":1,"buy":true,"p":"100","qty":"1"}]`,
	`[ 1 , "x" , [ ] ]`, `{"k" : "v" }`,
}

// TestSkipMatchesValue: on a checked value, skip ends where value ends,
// before whatever follows (a comma, a bracket, spaces or the end).
func TestSkipMatchesValue(t *testing.T) {
	for _, c := range skipCases {
		for _, tail := range []string{"", ",", "]", "}", " ,", ":"} {
			checkSkip(t, []byte("  "+c+tail))
		}
	}
}

// FuzzSkip: skip agrees with value wherever value accepts a value that
// ends where one may end inside a checked container, and never leaves the
// input (or panics) anywhere.
func FuzzSkip(f *testing.F) {
	for _, c := range skipCases {
		f.Add([]byte(c + ","))
	}
	f.Fuzz(func(t *testing.T, b []byte) { checkSkip(t, b) })
}

func checkSkip(t *testing.T, b []byte) {
	t.Helper()
	v := scanner{b: b}
	want, err := v.value(1)
	s := scanner{b: b}
	got := s.skip()
	if got.s < 0 || got.e > len(b) || got.s > got.e || s.i > len(b) {
		t.Fatalf("%q: span %v at %d leaves the input", b, got, s.i)
	}
	delimited := v.i == len(b) || strings.IndexByte(" \t\n\r,:]}", b[v.i]) >= 0
	if err == nil && delimited && (got != want || s.i != v.i) {
		t.Fatalf("%q: skip %v at %d, value %v at %d", b, got, s.i, want, v.i)
	}
}
