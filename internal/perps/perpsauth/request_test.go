package perpsauth

import (
	"bytes"
	"encoding/json"
	"reflect"
	"testing"
)

var requestSeeds = []string{
	`{"op":{"type":"createOrders","args":[{"iid":1,"buy":true,"p":"100","qty":"1","tif":"ioc","po":false}]},"sig":"0xab","salt":12,"ts":1790000000000}`,
	`{"op":{"type":"cancelAll","args":{}},"sig":"0x00","salt":0,"ts":1,"exp":-5,"label":"l","code":"c"}`,
	` {"ts":1,"salt":2,"sig":"x","op":{"args":[1,2,3]}} `,
	`{"op":{},"sig":"a","salt":18446744073709551615,"ts":18446744073709551616}`,
	`{"op":{},"salt":01}`, `{"op":{},"salt":1.0}`, `{"op":{},"salt":-1}`, `{"op":{},"salt":1e2}`,
	`{"op":{},"exp":9223372036854775807}`, `{"op":{},"exp":-9223372036854775808}`, `{"op":{},"exp":9223372036854775808}`,
	`{"op":{},"Op":{"args":[1]}}`, `{"op":{},"op":{"args":[1]}}`, `{"OP":{}}`, `{"op":null}`, `{"op":[]}`, `{}`,
	`{"op":{},"sig":"\u0030"}`, `{"op":{},"sig":"` + "\xff" + `"}`, `{"op":{},"sig":1}`, `{"op":{},"sig":null}`,
	`{"op":{},"extra":[1,{"a":2}]}`, `{"op":{}} x`, `{"op":{},}`, `{"op":{"a":}}`, `[1]`, `null`, ``,
	`{"op":{"type":"x","args":[1,2],"ARGS":[1]}}`, `{"op":{"args":"x","args":[1]}}`, `{"op":{"args":[1],"args":null}}`,
	`{"op":{"a\u0072gs":[1,2]}}`, `{"op":{"argſ":[1]}}`, `{"op":{"args":[[1,2],{"a":[3]},"4"]}}`,
}

// The fast envelope path must agree with encoding/json whenever it answers.
func FuzzParseRequestDifferential(f *testing.F) {
	for _, s := range requestSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		got, ok := parseRequestFast(body)
		if !ok {
			return
		}
		var want Request
		if err := json.Unmarshal(body, &want); err != nil {
			t.Fatalf("%q: fast path accepted what json refuses: %v", body, err)
		}
		if n := got.ArgCount(); n != ArgCount(want.Op) {
			t.Fatalf("%q: counted %d args while parsing, ArgCount %d", body, n, ArgCount(want.Op))
		}
		got.args, got.counted = 0, false
		if !reflect.DeepEqual(*got, want) {
			t.Fatalf("%q: fast %+v, json %+v", body, *got, want)
		}
	})
}

// ArgCount's fast path must agree with its encoding/json definition.
func FuzzArgCountDifferential(f *testing.F) {
	for _, s := range requestSeeds {
		f.Add([]byte(s))
		var r struct{ Op json.RawMessage }
		if json.Unmarshal([]byte(s), &r) == nil && len(r.Op) > 0 {
			f.Add([]byte(r.Op))
		}
	}
	f.Fuzz(func(t *testing.T, op []byte) {
		n, ok := argCountFast(op)
		if !ok {
			return
		}
		var o struct {
			Args []json.RawMessage `json:"args"`
		}
		want := 0
		if json.Unmarshal(op, &o) == nil {
			want = len(o.Args)
		}
		if n != want {
			t.Fatalf("%q: fast %d, json %d", op, n, want)
		}
	})
}

func TestParseRequestFastTakesCommonBodies(t *testing.T) {
	for _, s := range requestSeeds[:3] {
		if _, ok := parseRequestFast([]byte(s)); !ok {
			t.Errorf("%s: went the slow way", s)
		}
	}
	for _, s := range []string{`{"op":{},"Op":{"args":[1]}}`, `{"op":{},"op":{}}`, `{"op":{},"sig":"\u0030"}`, `{"op":null}`} {
		if _, ok := parseRequestFast([]byte(s)); ok {
			t.Errorf("%s: fast path should defer to encoding/json", s)
		}
	}
}

func TestArgCount(t *testing.T) {
	for _, tc := range []struct {
		op   string
		want int
	}{
		{`{"type":"createOrders","args":[{"iid":1},{"iid":2}]}`, 2},
		{`{"args":[]}`, 0}, {`{"args":null}`, 0}, {`{"args":"x"}`, 0}, {`{"args":"x","args":[1]}`, 0},
		{`{"args":[1],"args":[1,2,3]}`, 3}, {`{"ARGS":[1,2]}`, 2}, {`{"a\u0072gs":[1,2]}`, 2}, {`[1,2]`, 0},
		{`{"args":[1,2}`, 0}, {`null`, 0},
	} {
		if got := ArgCount(json.RawMessage(tc.op)); got != tc.want {
			t.Errorf("%s: got %d want %d", tc.op, got, tc.want)
		}
	}
}

// FuzzParseRequestKeepsNoByteOfBody: a parsed Request owns its bytes (the
// trade route reuses a body's buffer once it is parsed): overwriting the
// body afterwards changes nothing in it, on the fast path and through
// encoding/json alike.
func FuzzParseRequestKeepsNoByteOfBody(f *testing.F) {
	for _, s := range requestSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		want, wantErr := ParseRequest(bytes.Clone(body))
		reused := bytes.Clone(body)
		got, err := ParseRequest(reused)
		for i := range reused {
			reused[i] = 'x'
		}
		if (err == nil) != (wantErr == nil) || err != nil && err.Error() != wantErr.Error() {
			t.Fatalf("%q: %v, want %v", body, err, wantErr)
		}
		if err == nil && !reflect.DeepEqual(*got, *want) {
			t.Fatalf("%q: after the body was overwritten %+v, want %+v", body, *got, *want)
		}
	})
}
