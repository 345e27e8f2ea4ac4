package perpsauth

import (
	"reflect"
	"testing"
)

var orderArgSeeds = []string{
	`[{"iid":1,"buy":true,"p":"100","qty":"1","tif":"ioc","po":false}]`,
	`[{"iid":4294967295,"buy":false,"qty":"0.5","ro":true,"c":"0xab","tr":{"trp":"5","tpsl":"sl"}},{"iid":2,"buy":true,"buy":false,"qty":"1"}]`,
	`[]`, ` [ ] `, `[{}]`, `[{"iid":4294967296}]`, `[{"iid":1.0}]`, `[{"iid":01}]`, `[{"p":null}]`, `[{"tr":null}]`,
	`[{"p":"\u0031"}]`, `[{"p":"` + "\xff" + `"}]`, `[{"x":1}]`, `[{"IID":1}]`, `[{"buy":"true"}]`, `[{"tr":[1]}]`,
	`[null]`, `[1]`, `{"iid":1}`, `[{"iid":1}`, `[{"iid":1}] x`, `[{"qty":1}]`, `[{"c":""}]`,
	`[{"iid":1,"buy":false,"qty":"0","ro":true,"tr":{"market":true,"trp":"58000","tpsl":"sl","slip_bps":100,"parent_oid":7}}]`,
}

func FuzzOrderArgsDifferential(f *testing.F) {
	for _, s := range orderArgSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, args []byte) {
		got, ok := Op{Args: args}.OrderArgs()
		if !ok {
			return
		}
		want, err := Op{Args: args}.orderArgsJSON()
		if err != nil {
			t.Fatalf("%q: fast path accepted what DecodeArgs refuses: %v", args, err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("%q: fast %+v, json %+v", args, got, want)
		}
	})
}

func TestOrderArgsFastTakesCommonArgs(t *testing.T) {
	for _, s := range orderArgSeeds[:4] {
		if _, ok := (Op{Args: []byte(s)}).OrderArgs(); !ok {
			t.Errorf("%s: went the slow way", s)
		}
	}
	for _, s := range []string{`[{"iid":4294967296}]`, `[{"p":null}]`, `[{"p":"\u0031"}]`, `[{"IID":1}]`} {
		if _, ok := (Op{Args: []byte(s)}).OrderArgs(); ok {
			t.Errorf("%s: fast path should defer to encoding/json", s)
		}
	}
}

// FuzzOrderArgsAfterCompact: on an op Compact accepted, OrderArgs steps over
// the args it checked; the rows are those of an unchecked decode.
func FuzzOrderArgsAfterCompact(f *testing.F) {
	for _, s := range orderArgSeeds {
		f.Add([]byte(`{"type":"createOrders","args":` + s + `}`))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		op, _, err := Compact(raw)
		if err != nil || op.Type != "createOrders" {
			return
		}
		if !op.checked {
			t.Fatal("Compact did not mark its args checked: the test tests nothing")
		}
		got, ok := op.OrderArgs()
		want, wantOK := Op{Args: op.Args}.OrderArgs()
		if ok != wantOK || !reflect.DeepEqual(got, want) {
			t.Fatalf("%q: checked %v %+v, unchecked %v %+v", raw, ok, got, wantOK, want)
		}
	})
}

// TestCompactCollectsOrderSpans: Compact hands OrderArgs the orders' value
// spans (so it does not scan them again) for the common spelling, not for
// an object with an escaped or repeated key, and the spans read back as the
// scanning decode does.
func TestCompactCollectsOrderSpans(t *testing.T) {
	for _, c := range []struct {
		args  string
		spans bool
	}{
		{`[{"iid":1,"buy":true,"p":"100","qty":"1","tif":"ioc","po":false}]`, true},
		{`[{"iid":1,"buy":true,"qty":"1","c":"0xab","ro":true,"tr":{"trp":"5","tpsl":"sl"}},{"qty":"2","iid":2,"buy":false}]`, true},
		{`[{"iid":1,"buy":false,"qty":"0","tr":{"market":true,"trp":"5","tpsl":"sl","slip_bps":30,"parent_oid":7}}]`, true},
		{`[{"iid":1,"buy":true,"qty":"1"},{"iid":2,"buy":true,"buy":false,"qty":"1"}]`, false},
		{`[{"iid":1,"\u0062uy":true,"qty":"1"}]`, false},
		// Strings are read from the spans unchecked: an escaped or non-UTF-8
		// value must send the batch to the scan (which defers to encoding/json).
		{`[{"iid":1,"buy":true,"qty":"1"},{"iid":1,"buy":true,"p":"\u0031","qty":"1"}]`, false},
		{`[{"iid":1,"buy":true,"qty":"1","c":"` + "\xff" + `"}]`, false},
		{`[{"iid":1,"buy":true,"qty":"1","tif":"i\"oc"}]`, false},
	} {
		op, _, err := Compact([]byte(`{"type":"createOrders","args":` + c.args + `}`))
		if err != nil {
			t.Fatalf("%s: %v", c.args, err)
		}
		if got := op.rows != nil; got != c.spans {
			t.Errorf("%s: spans collected %v, want %v", c.args, got, c.spans)
		}
		got, ok := op.OrderArgs()
		want, wantOK := Op{Args: op.Args}.OrderArgs()
		if ok != wantOK || !reflect.DeepEqual(got, want) {
			t.Errorf("%s: from spans %v %+v, scanned %v %+v", c.args, ok, got, wantOK, want)
		}
	}
}

// TestOrderRowFieldOrder: orderArgSpans reads the spans by position.
func TestOrderRowFieldOrder(t *testing.T) {
	var names []string
	for _, f := range orderRow.fields {
		names = append(names, f.name)
	}
	if want := []string{"iid", "buy", "p", "qty", "tif", "po", "ro", "c", "tr"}; !reflect.DeepEqual(names, want) {
		t.Fatalf("orderRow fields %v, orderArgSpans reads %v", names, want)
	}
}
