package clob

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

const (
	v1Body = `{"order":{"salt":123456789,"maker":"0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266","signer":"0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266",` +
		`"taker":"0x0000000000000000000000000000000000000000","tokenId":"71321045679252212594626385532706912750332728571942532289631379312455583992563",` +
		`"makerAmount":"5200000","takerAmount":"10000000","side":"BUY","expiration":"0","nonce":"0","feeRateBps":"0","signatureType":0,` +
		`"signature":"0x790aad38ad51baffe1a1c654fc118f55b5d3c8b6b8769e6cb2545fdce7c251dd36c721fce29684147badfaa9f0f4a84b3e188ec22e20802456d37022d07e412d1b"},` +
		`"owner":"4e2b9f9a-7f4e-4c8f-9a51-1f2d3c4b5a69","orderType":"GTC","postOnly":false,"deferExec":false}`
)

var v2Body = `{ "order" : { "salt": 77, "maker": "0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266", "signer": "0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266",` +
	` "tokenId": "1001", "makerAmount": "5200000", "takerAmount": "10000000", "side": "SELL", "signatureType": 3, "timestamp": "1764000000000",` +
	` "expiration": "0", "metadata": "0x` + strings.Repeat("00", 32) + `", "builder": "0x` + strings.Repeat("0a", 32) +
	`", "signature": "0x` + strings.Repeat("ab", 300) + `" },` + "\n\t\"owner\": \"k\", \"orderType\": \"FOK\", \"postOnly\": true }\r\n"

// TestDecodeNewOrderFast: the bodies the official clients send (V1 and V2,
// compact or spaced) take the single pass, and it decodes them as
// encoding/json does.
func TestDecodeNewOrderFast(t *testing.T) {
	for _, body := range []string{v1Body, v2Body} {
		var no, want NewOrder
		var o, wo SignedOrder
		oerr, ok, done := fastNewOrder([]byte(body), &no, &o)
		if !done || !ok {
			t.Fatalf("not taken by the single pass: %s", body)
		}
		werr, wok := slowNewOrder([]byte(body), &want, &wo)
		sameDecode(t, []byte(body), no, want, o, wo, oerr, werr, ok, wok)
		if oerr != nil || o.Version == 0 || no.Owner == "" {
			t.Fatalf("nothing decoded: %+v %+v", no, o)
		}
	}
}

func sameDecode(t *testing.T, body []byte, no, want NewOrder, o, wo SignedOrder, oerr, werr error, ok, wok bool) {
	t.Helper()
	if ok != wok || (oerr == nil) != (werr == nil) {
		t.Fatalf("%q: single pass ok=%v err=%v, encoding/json ok=%v err=%v", body, ok, oerr, wok, werr)
	}
	if !ok {
		return
	}
	if !bytes.Equal(no.Order, want.Order) || no.Owner != want.Owner || no.OrderType != want.OrderType ||
		no.PostOnly != want.PostOnly || no.DeferExec != want.DeferExec {
		t.Fatalf("%q: NewOrder %+v, encoding/json %+v", body, no, want)
	}
	if oerr == nil && (o.Token != wo.Token || !bytes.Equal(o.Signature, wo.Signature) || o.Version != wo.Version ||
		o.Salt != wo.Salt || o.Maker != wo.Maker || o.Signer != wo.Signer || o.Taker != wo.Taker || o.TokenID != wo.TokenID ||
		o.MakerAmount != wo.MakerAmount || o.TakerAmount != wo.TakerAmount || o.Expiration != wo.Expiration ||
		o.Nonce != wo.Nonce || o.FeeRateBps != wo.FeeRateBps || o.Side != wo.Side || o.SignatureType != wo.SignatureType ||
		o.Timestamp != wo.Timestamp || o.Metadata != wo.Metadata || o.Builder != wo.Builder) {
		t.Fatalf("%q: order %+v, encoding/json %+v", body, o, wo)
	}
}

// FuzzDecodeNewOrder: DecodeNewOrder answers exactly as encoding/json plus
// ParseOrder for every input, whichever path it takes.
func FuzzDecodeNewOrder(f *testing.F) {
	f.Add([]byte(v1Body))
	f.Add([]byte(v2Body))
	for _, s := range []string{`{"order":{},"owner":"a"}`, `{"order":{"salt":1},"Owner":"a"}`, `{"order":{"salt":01}}`,
		`{"order":{"salt":"1"}}`, `{"order":{"salt":1.5}}`, `{"order":{"taker":null,"salt":1}}`, `{"order":1}`,
		`{"order":{"side":"B\u0055Y"}}`, `{"order":{"salt":1},"order":{"salt":2}}`, `{"order":{"salt":1}} x`, `null`,
		`{"order":{"salt":1},"postOnly":true,"extra":[1,2]}`, "{\"order\":{\"maker\":\"\xff\"}}", `{"order":{"salt":-1}}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		var no, want NewOrder
		var o, wo SignedOrder
		oerr, ok := DecodeNewOrder(b, &no, &o)
		werr, wok := slowNewOrder(b, &want, &wo)
		sameDecode(t, b, no, want, o, wo, oerr, werr, ok, wok)
	})
}

// FuzzDecodeNewOrders: DecodeNewOrders answers exactly as encoding/json
// plus ParseOrder for every input, and takes the single pass for a batch
// of client bodies.
func FuzzDecodeNewOrders(f *testing.F) {
	f.Add([]byte("[" + v1Body + "," + v2Body + "]"))
	f.Add([]byte(` [ ` + v1Body + ` ] `))
	for _, s := range []string{`[]`, `null`, `[null]`, `[{"order":{"salt":1}}, 5]`, `[{"order":{"salt":1}},]`, `{"order":{}}`,
		`[{"order":{"salt":1},"Owner":"x"}]`, `[` + v1Body + `,{"order":{"salt":"1"}}]`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		for _, max := range []int{1, 15} {
			batch, orders, errs, ok := DecodeNewOrders(b, max)
			var want []NewOrder
			wok := json.Unmarshal(b, &want) == nil
			if ok != wok || (ok && len(batch) != len(want)) {
				t.Fatalf("%q: ok=%v n=%d, encoding/json ok=%v n=%d", b, ok, len(batch), wok, len(want))
			}
			if !ok {
				continue
			}
			if len(batch) > max {
				if orders != nil || errs != nil {
					t.Fatalf("%q: orders decoded above max", b)
				}
				continue
			}
			for i := range want {
				var wo SignedOrder
				p, werr := ParseOrder(want[i].Order)
				if werr == nil {
					wo = *p
				}
				sameDecode(t, b, batch[i], want[i], orders[i], wo, errs[i], werr, true, true)
			}
		}
	})
}

func TestDecodeNewOrdersFast(t *testing.T) {
	body := []byte("[" + v1Body + "," + v2Body + "]")
	sc := scanner{s: string(body)}
	var no NewOrder
	var w wireFields
	if !sc.eat('[') || !sc.newOrder(body, &no, &w) || !sc.eat(',') || !sc.newOrder(body, &no, &w) || !sc.eat(']') {
		t.Fatal("a batch of client bodies is not taken by the single pass")
	}
	if _, _, errs, ok := DecodeNewOrders(body, 15); !ok || errs[0] != nil || errs[1] != nil {
		t.Fatalf("%v %v", ok, errs)
	}
}
