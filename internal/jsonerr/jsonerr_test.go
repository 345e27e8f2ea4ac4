package jsonerr

import (
	"encoding/json"
	"strings"
	"testing"
)

type inner struct {
	N uint32 `json:"n"`
}

type outer struct {
	A  string  `json:"a"`
	In []inner `json:"in"`
}

// TestDescribeNamesFieldsNotGoTypes: every decode failure is worded by field
// and expectation, with no Go type or package name.
func TestDescribeNamesFieldsNotGoTypes(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{`[]`, "expected an object, got array"},
		{`{"a":1}`, "a: expected a string, got number"},
		{`{"in":[{"n":-1}]}`, "in.n: expected a non-negative integer, got number -1"},
		{`{"in":{}}`, "in: expected an array, got object"},
		{`{`, "malformed JSON"},
		{`{"a":"x"}}`, "malformed JSON"},
		{``, "empty body"},
	} {
		var o outer
		err := json.Unmarshal([]byte(tc.in), &o)
		if tc.in == `` {
			err = json.NewDecoder(strings.NewReader("")).Decode(&o)
		}
		if err == nil {
			t.Fatalf("%s: no error", tc.in)
		}
		if got := Describe(err); got != tc.want {
			t.Errorf("%s: %q, want %q", tc.in, got, tc.want)
		}
	}
	d := json.NewDecoder(strings.NewReader(`{"zz":1}`))
	d.DisallowUnknownFields()
	var o outer
	if got := Describe(d.Decode(&o)); got != `unknown field "zz"` {
		t.Errorf("unknown field: %q", got)
	}
}

func FuzzDescribe(f *testing.F) {
	for _, s := range []string{`[]`, `{"a":1}`, `{"in":[{"n":"x"}]}`, `{`, `nul`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		var o outer
		if err := json.Unmarshal([]byte(s), &o); err != nil {
			if d := Describe(err); strings.Contains(d, "Go ") || strings.Contains(d, "jsonerr.") {
				t.Fatalf("%q: %q", s, d)
			}
		}
	})
}
