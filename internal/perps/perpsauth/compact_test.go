package perpsauth

import (
	"bytes"
	"encoding/json"
	"errors"
	"testing"
)

// tpackHex is the independent encoding of the expected compact tree.
func TestCompactForms(t *testing.T) {
	tests := []struct {
		name string
		op   string
		want []any // compact form, absent entries already removed
	}{
		{"ro false kept when sent", `{"type":"createOrders","args":[{"iid":1,"buy":true,"p":"1","qty":"2","tif":"gtc","ro":false}]}`,
			[]any{"createOrders", []any{[]any{1, true, "1", "2", "gtc", false, false}}}},
		{"po defaults false", `{"type":"createOrders","args":[{"iid":1,"buy":true,"p":"1","qty":"2","tif":"gtc"}]}`,
			[]any{"createOrders", []any{[]any{1, true, "1", "2", "gtc", false}}}},
		{"po true", `{"type":"createOrders","args":[{"iid":1,"buy":true,"p":"1","qty":"2","tif":"gtc","po":true}]}`,
			[]any{"createOrders", []any{[]any{1, true, "1", "2", "gtc", true}}}},
		{"null is absent", `{"type":"createOrders","args":[{"iid":1,"buy":true,"p":null,"qty":"2","tif":"ioc","c":null}]}`,
			[]any{"createOrders", []any{[]any{1, true, "2", "ioc", false}}}},
		{"market false dropped", `{"type":"createOrders","args":[{"iid":1,"buy":false,"qty":"0","ro":true,"tr":{"market":false,"trp":"5","tpsl":"sl"}}],"grp":"position"}`,
			[]any{"createOrders", []any{[]any{1, false, "0", false, true, []any{"5", "sl"}}}, "position"}},
		{"key order irrelevant", `{"args":[{"tif":"gtc","qty":"2","p":"1","buy":true,"iid":1}],"type":"createOrders"}`,
			[]any{"createOrders", []any{[]any{1, true, "1", "2", "gtc", false}}}},
		{"escaped string hashed as its value", `{"type":"createOrders","args":[{"iid":1,"buy":true,"p":"\u0030.5","qty":"2","tif":"gtc"}]}`,
			[]any{"createOrders", []any{[]any{1, true, "0.5", "2", "gtc", false}}}},
		{"cancelAll empty", `{"type":"cancelAll","args":{}}`, []any{"cancelAll", []any{}}},
		{"cancelAll iid", `{"type":"cancelAll","args":{"iid":4}}`, []any{"cancelAll", []any{4}}},
		{"modify", `{"type":"modifyOrders","args":[{"oid":1234567890,"p":"1.5","qty":"3"}]}`,
			[]any{"modifyOrders", []any{[]any{1234567890, "1.5", "3"}}}},
		{"modify coid", `{"type":"modifyOrdersCOID","args":[{"coid":"ab","p":"1.5","qty":"3"}]}`,
			[]any{"modifyOrdersCOID", []any{[]any{"ab", "1.5", "3"}}}},
		{"internal transfer", `{"type":"internalTransfer","args":{"account":"0xA","token":"0xB","amount":"100.00","to":"0xC"}}`,
			[]any{"internalTransfer", []any{"0xA", "0xB", "100.00", "0xC"}}},
		{"approve builder", `{"type":"approveBuilder","args":{"builder":"0xB","max_fee_rate":"0.001","approval_version":1}}`,
			[]any{"approveBuilder", []any{"0xB", "0.001", 1}}},
		{"chase defaults", `{"type":"createChase","args":{"iid":1,"buy":true,"qty":"1"}}`,
			[]any{"createChase", []any{1, true, "1", true, false}}},
		{"twap", `{"type":"createTwap","args":{"iid":1,"buy":false,"qty":"1","dur":300000,"rnd":true,"slip_bps":50,"ro":false}}`,
			[]any{"createTwap", []any{1, false, "1", 300000, true, 50, false}}},
		{"control twap", `{"type":"controlTwap","args":{"twid":9,"act":"pause"}}`, []any{"controlTwap", []any{9, "pause"}}},
		{"cancel chase", `{"type":"cancelChase","args":{"chid":3}}`, []any{"cancelChase", []any{3}}},
		{"cancel twap", `{"type":"cancelTwap","args":{"twid":3}}`, []any{"cancelTwap", []any{3}}},
		{"large batch (array16)", `{"type":"cancelOrders","args":[1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17]}`,
			[]any{"cancelOrders", []any{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, got, err := Compact([]byte(tc.op))
			if err != nil {
				t.Fatal(err)
			}
			if want := tpack(tc.want); !bytes.Equal(got, want) {
				t.Fatalf("got %x want %x", got, want)
			}
		})
	}
}

func TestCompactRejects(t *testing.T) {
	for _, op := range []string{
		`[]`, `null`, `"x"`, `{}`,
		`{"type":"nope","args":[]}`,
		`{"type":"cancelOrders"}`,
		`{"type":"cancelOrders","args":null}`,
		`{"type":"cancelOrders","args":[1],"extra":1}`,
		`{"type":"cancelOrders","args":[1],"grp":"order"}`,
		`{"type":"createOrders","args":[],"grp":5}`,
		`{"type":5,"args":[]}`,
		`{"type":"cancelOrders","args":[1.0]}`,
		`{"type":"cancelOrders","args":[1e3]}`,
		`{"type":"cancelOrders","args":[-1]}`,
		`{"type":"cancelOrders","args":[01]}`,
		`{"type":"cancelOrders","args":[18446744073709551616]}`,
		`{"type":"cancelOrders","args":["1"]}`,
		`{"type":"cancelOrders","args":[null]}`,
		`{"type":"cancelOrders","args":{"oid":1}}`,
		`{"type":"cancelAll","args":[]}`,
		`{"type":"createOrders","args":[{"iid":1,"buy":"true","qty":"1"}]}`,
		`{"type":"createOrders","args":[{"iid":1,"buy":true,"qty":1}]}`,
		`{"type":"createOrders","args":[{"iid":1,"buy":true,"qty":"1","P":"2"}]}`,
		`{"type":"createOrders","args":[{"iid":1,"buy":true,"qty":"1","tr":{"trp":"1","tpsl":"tp","x":1}}]}`,
		`{"type":"createOrders","args":[{"iid":1,"buy":true,"qty":"1","tr":["1","tp"]}]}`,
		`{"type":"modifyOrders","args":[{"oid":1,"p":"1","qty":"1","c":"x"}]}`,
		`{"type":"updateLeverage","args":{"iid":1,"lev":2,"cross":1}}`,
		`{"type":"cancelOrders","args":[1]`,
	} {
		if _, _, err := Compact([]byte(op)); !errors.Is(err, ErrInvalidRequest) {
			t.Errorf("%s: err %v", op, err)
		}
	}
}

func TestOpRoleAndDecodeArgs(t *testing.T) {
	for typ, want := range map[string]Role{"createOrders": RoleProxy, "deleteProxy": RoleOwner, "approveBuilder": RoleOwner, "internalTransfer": RoleOwnerOrProxy} {
		if r, ok := OpRole(typ); !ok || r != want {
			t.Fatalf("%s: %v %v", typ, r, ok)
		}
	}
	if _, ok := OpRole("withdraw"); ok {
		t.Fatal("withdraw is typed data, not an Op")
	}
	op, _, err := Compact([]byte(`{"type":"updateLeverage","args":{"iid":3,"lev":20,"cross":true}}`))
	if err != nil {
		t.Fatal(err)
	}
	var lev struct {
		IID   uint32 `json:"iid"`
		Lev   int    `json:"lev"`
		Cross bool   `json:"cross"`
	}
	if err := op.DecodeArgs(&lev); err != nil || lev.IID != 3 || lev.Lev != 20 || !lev.Cross {
		t.Fatalf("%+v %v", lev, err)
	}
	var narrow struct {
		IID uint32 `json:"iid"`
	}
	if err := op.DecodeArgs(&narrow); !errors.Is(err, ErrInvalidRequest) {
		t.Fatalf("unknown field accepted: %v", err)
	}
}

// FuzzCompact: no panics; an accepted op re-marshalled through encoding/json
// (keys reordered, spacing and escapes changed) compacts to the same bytes.
func FuzzCompact(f *testing.F) {
	for _, g := range goldenOps {
		f.Add(g.op)
	}
	f.Add(`{"type":"createOrders","args":[{"iid":1,"buy":false,"qty":"0","ro":true,"tr":{"market":false,"trp":"5","tpsl":"sl"}}],"grp":"position"}`)
	f.Add(`{"type":"cancelAll","args":{}}`)
	f.Add(`{"type":"createTwap","args":{"iid":1,"buy":false,"qty":"1","dur":300000,"rnd":true}}`)
	f.Fuzz(func(t *testing.T, s string) {
		op, b, err := Compact([]byte(s))
		if err != nil {
			if !errors.Is(err, ErrInvalidRequest) {
				t.Fatalf("untyped error %v", err)
			}
			return
		}
		if len(b) == 0 || op.Type == "" {
			t.Fatal("empty result")
		}
		d := json.NewDecoder(bytes.NewReader([]byte(s)))
		d.UseNumber()
		var generic any
		if err := d.Decode(&generic); err != nil {
			t.Fatalf("accepted invalid JSON: %v", err)
		}
		again, _ := json.Marshal(generic)
		_, b2, err := Compact(again)
		if err != nil || !bytes.Equal(b, b2) {
			t.Fatalf("re-marshalled op differs: %v\n%s\n%s", err, s, again)
		}
	})
}
