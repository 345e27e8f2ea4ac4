package catalog

import (
	"encoding/json"
	"reflect"
	"testing"
	"unicode/utf8"
)

func TestNumUnmarshal(t *testing.T) {
	for _, c := range []struct {
		in   string
		want Num
		ok   bool
	}{
		{`12.5`, "12.5", true}, {`"237253.02375"`, "237253.02375", true}, {`-0`, "-0", true},
		{`1e5`, "1e5", true}, {`"abc"`, "", false}, {`""`, "", false}, {`01`, "", false}, {`"1."`, "", false},
	} {
		var n Num
		err := json.Unmarshal([]byte(c.in), &n)
		if (err == nil) != c.ok || n != c.want {
			t.Errorf("%s: got %q, %v", c.in, n, err)
		}
	}
}

func TestStringList(t *testing.T) {
	enc := EncodeStringList([]string{"Yes", "No"})
	if enc != `["Yes", "No"]` {
		t.Fatalf("EncodeStringList = %s", enc)
	}
	got, err := DecodeStringList(&enc)
	if err != nil || !reflect.DeepEqual(got, []string{"Yes", "No"}) {
		t.Fatalf("DecodeStringList = %v, %v", got, err)
	}
	var l StrList
	if err := json.Unmarshal([]byte(`"[\"1\", 2]"`), &l); err != nil || !reflect.DeepEqual([]string(l), []string{"1", "2"}) {
		t.Fatalf("StrList from string: %v %v", l, err)
	}
}

func FuzzNum(f *testing.F) {
	for _, s := range []string{"0", "-1.5e+3", "12", "1.", "--1", `"3"`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		var n Num
		if err := json.Unmarshal([]byte(s), &n); err != nil {
			return
		}
		b, err := json.Marshal(n)
		if err != nil {
			t.Fatalf("accepted %q but cannot marshal: %v", s, err)
		}
		var f64 json.Number
		if err := json.Unmarshal(b, &f64); err != nil {
			t.Fatalf("marshalled %q is not a JSON number: %v", b, err)
		}
	})
}

func FuzzStringList(f *testing.F) {
	f.Add(`"[\"Yes\", \"No\"]"`)
	f.Add(`["a"]`)
	f.Fuzz(func(t *testing.T, s string) {
		var l StrList
		if err := json.Unmarshal([]byte(s), &l); err != nil {
			return
		}
		for _, it := range l {
			if !utf8.ValidString(it) {
				return // json.Marshal replaces invalid UTF-8
			}
		}
		enc := EncodeStringList(l)
		back, err := DecodeStringList(&enc)
		if err != nil || len(back) != len(l) {
			t.Fatalf("round trip %q: %v %v", s, back, err)
		}
		for i := range l {
			if back[i] != l[i] {
				t.Fatalf("round trip %q: %q != %q", s, back[i], l[i])
			}
		}
	})
}
