package httpjson

import (
	"strings"
	"testing"
)

type spec struct {
	Symbol string `json:"symbol"`
	Lev    int64  `json:"max_leverage"`
	Dec    uint8  `json:"price_decimals"`
	Inner  struct {
		Tags []string `json:"tags"`
	} `json:"inner"`
}

func TestDecodeErrorsNameTheFieldAndTheExpectationNeverAGoType(t *testing.T) {
	cases := []struct{ body, want string }{
		{`[]`, "expected an object, got an array"},
		{`{"symbol":1}`, "symbol: expected a string, got number"},
		{`{"max_leverage":"x"}`, "max_leverage: expected an integer (64-bit), got string"},
		{`{"price_decimals":300}`, "price_decimals: expected a non-negative integer (8-bit), got number 300"},
		{`{"price_decimals":-1}`, "price_decimals: expected a non-negative integer (8-bit), got number -1"},
		{`{"inner":{"tags":"a"}}`, "inner.tags: expected an array, got string"},
		{`{"inner":[]}`, "inner: expected an object, got an array"},
		{`{"nope":1}`, "nope: unknown field"},
		{`{`, "body is not valid JSON: it ends early"},
		{`{"symbol":}`, "body is not valid JSON (at byte 11)"},
		{``, "body is empty: expected a JSON value"},
		{`{} {}`, "unexpected data after the JSON value"},
		{`{"max_leverage":1e400}`, "max_leverage: expected an integer (64-bit), got number 1e400"},
	}
	for _, c := range cases {
		var s spec
		err := Decode([]byte(c.body), &s, Options{Strict: true})
		if err == nil || err.Error() != c.want {
			t.Errorf("%q: %v, want %q", c.body, err, c.want)
		}
		if err != nil && (LeaksGo(err.Error()) || strings.Contains(err.Error(), "spec")) {
			t.Errorf("%q: leaks Go: %v", c.body, err)
		}
	}
	var s spec
	if err := Decode([]byte(`{"symbol":"BTC-USD","max_leverage":5,"inner":{"tags":["a"]}}`), &s, Options{Strict: true}); err != nil || s.Lev != 5 {
		t.Fatalf("valid body: %v %+v", err, s)
	}
}

func FuzzDecodeNeverLeaksGo(f *testing.F) {
	for _, s := range []string{`[]`, `{"symbol":1}`, `{"inner":{"tags":[1]}}`, `{"price_decimals":999}`, `"x"`, `{`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		var s spec
		if err := Decode(b, &s, Options{Strict: true}); err != nil && LeaksGo(err.Error()) {
			t.Fatalf("%q: %v", b, err)
		}
		var m map[string]any
		if err := Decode(b, &m, Options{Number: true}); err != nil && LeaksGo(err.Error()) {
			t.Fatalf("%q: %v", b, err)
		}
	})
}

type strict string

func (s *strict) UnmarshalJSON(b []byte) error {
	if string(b) != `"ok"` {
		return errorString("must be \"ok\"")
	}
	return nil
}

type errorString string

func (e errorString) Error() string { return string(e) }

type outer struct {
	Name  string `json:"name"`
	Items []struct {
		Mode strict `json:"mode"`
	} `json:"items"`
}

func TestExplainNamesTheFieldOfACustomDecoderFailure(t *testing.T) {
	body := `{"name":"a","items":[{"mode":"ok"},{"mode":"bad"}]}`
	var raw any
	if err := Decode([]byte(body), &raw, Options{}); err != nil {
		t.Fatal(err)
	}
	var o outer
	err := Decode([]byte(body), &o, Options{})
	if err == nil {
		t.Fatal("decoded")
	}
	if got := Explain(raw, &o, err).Error(); got != `items.1.mode: must be "ok"` {
		t.Fatalf("%s", got)
	}
}
