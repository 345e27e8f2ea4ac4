package perps

import (
	"bytes"
	"encoding/json"
	"reflect"
	"strings"
	"testing"
)

// The hand codec knows exactly these fields; a new Command or OrderReq
// field must be taught to encodeOrders/decodeOrders (or make them refuse
// commands that set it) before this list is updated.
func TestCodecKnowsEveryField(t *testing.T) {
	for _, tc := range []struct {
		v    any
		want string
	}{
		{Command{}, "Kind Account Replay Orders Modifies OIDs COIDs IID Instrument Proxy Amount Price Flight Mode RetryAfter On"},
		{OrderReq{}, "IID Buy P Qty TIF PO RO C TR"},
	} {
		var got []string
		for f := range reflect.TypeOf(tc.v).Fields() {
			got = append(got, f.Name)
		}
		if strings.Join(got, " ") != tc.want {
			t.Fatalf("%T fields are %v: update codec.go", tc.v, got)
		}
	}
}

func TestCodecTakesPlacements(t *testing.T) {
	p, tif := "100.5", "ioc"
	c := &Command{Kind: KCreateOrders, Account: acA, Replay: bytes.Repeat([]byte{7}, 32),
		Orders: []OrderReq{{IID: 1, Buy: true, P: &p, Qty: "1", TIF: &tif}, {IID: 2, Qty: "3", PO: true, RO: true, C: "x", TR: true}}}
	b, ok := encodeOrders(c)
	if !ok {
		t.Fatal("placement took the slow way")
	}
	want, _ := json.Marshal(c)
	if !bytes.Equal(b, want) {
		t.Fatalf("encode:\n%s\nwant\n%s", b, want)
	}
	got, ok := decodeOrders(b)
	if !ok || !reflect.DeepEqual(got, c) {
		t.Fatalf("decode: %v %+v", ok, got)
	}
	for _, slow := range []*Command{{Kind: KCancel, OIDs: []uint64{1}}, {Kind: KCreateOrders, Account: "<a>"},
		{Kind: KCreateOrders, Orders: []OrderReq{{C: "é"}}}, {Kind: KCreateOrders, Amount: "1"},
		{Kind: KCreateOrders, Flight: &Flight{}}, {Kind: KCreateOrders, Mode: "x"}, {Kind: KCreateOrders, RetryAfter: 1},
		{Kind: KCreateOrders, On: true}} {
		if _, ok := encodeOrders(slow); ok {
			t.Errorf("%+v: must go through encoding/json", slow)
		}
	}
}

// FuzzCommandCodec holds both directions of the hand codec to encoding/json:
// a payload decodeOrders accepts decodes as json.Unmarshal would, and a
// command encodeOrders writes is json.Marshal's bytes.
func FuzzCommandCodec(f *testing.F) {
	f.Add([]byte(`{"k":"createOrders","a":"0xab","r":"BwcH","o":[{"iid":1,"buy":true,"p":"100","qty":"1","tif":"ioc"}]}`))
	f.Add([]byte(`{"k":"createOrders","o":[{"iid":4294967295,"buy":false,"qty":"2","po":true,"ro":true,"c":"é","tr":true},{"iid":0,"buy":true,"qty":""}]}`))
	f.Add([]byte(`{"k":"createOrders","r":"","o":[]}`))
	f.Add([]byte(`{"k":"createOrders","o":[{"iid":01,"buy":true,"qty":"1"}]}`))
	f.Add([]byte(`{"k":"createOrders","o":[{"iid":4294967296,"buy":true,"qty":"1"}]}`))
	f.Add([]byte(`{"k":"createOrders","a":"\u0030"}`))
	f.Add([]byte(`{"k":"createOrders","r":"B==="}`))
	f.Add([]byte(`{"k":"createOrders"} `))
	f.Fuzz(func(t *testing.T, b []byte) {
		got, ok := decodeOrders(b)
		if !ok {
			return
		}
		var want Command
		if err := json.Unmarshal(b, &want); err != nil {
			t.Fatalf("%q: fast decode accepted what json refuses: %v", b, err)
		}
		if !reflect.DeepEqual(*got, want) {
			t.Fatalf("%q: fast %+v, json %+v", b, *got, want)
		}
		if enc, ok := encodeOrders(got); ok {
			ref, _ := json.Marshal(got)
			if !bytes.Equal(enc, ref) {
				t.Fatalf("encode %+v:\n%s\njson\n%s", got, enc, ref)
			}
		}
	})
}

func BenchmarkCommandEncode(b *testing.B) {
	p, tif := "100", "ioc"
	c := &Command{Kind: KCreateOrders, Account: acA, Replay: make([]byte, 32), Orders: []OrderReq{{IID: 1, Buy: true, P: &p, Qty: "1", TIF: &tif}}}
	b.ReportAllocs()
	for b.Loop() {
		c.Encode()
	}
}

func BenchmarkCommandDecode(b *testing.B) {
	p, tif := "100", "ioc"
	enc := (&Command{Kind: KCreateOrders, Account: acA, Replay: make([]byte, 32), Orders: []OrderReq{{IID: 1, Buy: true, P: &p, Qty: "1", TIF: &tif}}}).Encode()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := DecodeCommand(enc); err != nil {
			b.Fatal(err)
		}
	}
}
