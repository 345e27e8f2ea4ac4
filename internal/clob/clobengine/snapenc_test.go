package clobengine

import (
	"bytes"
	"encoding/json"
	"reflect"
	"testing"
)

// fillAll sets every field of the struct v points to: strings that need
// escaping, non-zero numbers, true, a two-element string slice.
func fillAll(v any, s string, n int64) {
	e := reflect.ValueOf(v).Elem()
	for i := range e.NumField() {
		f := e.Field(i)
		switch f.Kind() {
		case reflect.String:
			f.SetString(s + e.Type().Field(i).Name)
		case reflect.Int, reflect.Int64, reflect.Int32:
			f.SetInt(n + int64(i))
		case reflect.Uint8, reflect.Uint32, reflect.Uint64:
			f.SetUint(uint64(n) + uint64(i))
		case reflect.Bool:
			f.SetBool(true)
		case reflect.Slice:
			f.Set(reflect.ValueOf([]string{s, "t2"}))
		default:
			panic("fillAll: field kind " + f.Kind().String())
		}
	}
}

// TestSnapshotRecordsMatchJSON: the hand-appended orders and trades are
// encoding/json's bytes with every field set (so a field added to Order or
// Trade without its appender fails here), with none set, and with strings
// that need escaping.
func TestSnapshotRecordsMatchJSON(t *testing.T) {
	for _, s := range []string{"plain", "x<&>\"\\\n\u2028é\xff"} {
		var o Order
		var tr Trade
		fillAll(&o, s, 7)
		fillAll(&tr, s, 9)
		for _, os := range [][]*Order{nil, {}, {&o, {}, nil}} {
			want, _ := json.Marshal(os)
			if got := appendOrders(nil, os); !bytes.Equal(got, want) {
				t.Fatalf("orders:\n got %s\nwant %s", got, want)
			}
		}
		for _, ts := range [][]*Trade{nil, {}, {&tr, {}, nil}} {
			want, _ := json.Marshal(ts)
			if got := appendTrades(nil, ts); !bytes.Equal(got, want) {
				t.Fatalf("trades:\n got %s\nwant %s", got, want)
			}
		}
	}
	st := state{stateTail: stateTail{Sets: []*SetOp{{Cmd: 1, Op: "split"}}, Kinds: map[string]uint8{"a": 1}, Mode: "normal"}}
	for _, s := range []state{{}, st} {
		want, _ := json.Marshal(&s)
		if got := encodeState(&s); !bytes.Equal(got, want) {
			t.Fatalf("state:\n got %s\nwant %s", got, want)
		}
	}
}

// BenchmarkSnapshotEncode: a state of 10,000 orders and 5,000 trades,
// encoded by hand and by encoding/json.
func BenchmarkSnapshotEncode(b *testing.B) {
	var s state
	for i := range 10_000 {
		o := &Order{OID: uint64(i), Hash: "0x1fb6f210f0060c284e78b084acdc9515f22741de1a843802e1310de8346c16cc", Token: "71321045679252212594626385532706912750332728571942532289631379312455583992563",
			Price: 50, Orig: 5_000_000, Filled: 5_000_000, Type: "GTC", Maker: "0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266",
			Signer: "0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266", APIKey: "4e2b9f9a-7f4e-4c8f-9a51-1f2d3c4b5a69", Status: "MATCHED", Trades: []string{"t1"}}
		s.Done = append(s.Done, o)
		if i%2 == 0 {
			tr := &Trade{ID: "c3f1f2a0-0000-4000-8000-000000000001", Seq: uint64(i), TakerOrder: o.Hash, MakerOrder: o.Hash, TakerToken: o.Token,
				MakerToken: o.Token, TakerMaker: o.Maker, TakerSigner: o.Signer, TakerKey: o.APIKey, MakerAddr: o.Maker, MakerSigner: o.Signer, MakerKey: o.APIKey}
			s.Trades = append(s.Trades, tr)
		}
	}
	b.Run("hand", func(b *testing.B) {
		for b.Loop() {
			encodeState(&s)
		}
	})
	b.Run("json", func(b *testing.B) {
		for b.Loop() {
			json.Marshal(&s)
		}
	})
}
