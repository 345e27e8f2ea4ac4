package perpsauth

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"pmx/internal/cpuclock"
)

// benchOp pre-signs n distinct request bodies (salts 0..n-1) of one op; the
// loop measures the whole envelope path (ParseRequest + VerifyOp) and then
// removes the replay entry so a body can be verified again.
func benchOp(b *testing.B, typ, keyed string, compact []any) {
	k := newKey(b, proxyKeyHex)
	ts := uint64(now0.UnixMilli())
	const n = 64
	bodies := make([][]byte, n)
	for i := range bodies {
		sig := k.sign(tOpDigest(compact, uint64(i), ts))
		bodies[i] = envelope(b, keyed, sig, uint64(i), ts, "")
	}
	v := New(Config{})
	b.ReportAllocs()
	m := cpuclock.Start()
	i := 0
	for b.Loop() {
		r, err := ParseRequest(bodies[i%n])
		if err != nil {
			b.Fatal(err)
		}
		got, err := v.VerifyOp(r, typ, now0, Self)
		if err != nil {
			b.Fatal(err)
		}
		v.Replay().Remove(got.Replay)
		i++
	}
	m.Report(b)
}

func orderRows(n int) (string, []any) {
	rows, keyed := make([]any, n), make([]string, n)
	for i := range n {
		rows[i] = []any{1, i%2 == 0, "100.5", "0.25", "gtc", false, fmt.Sprintf("%032x", i+1)}
		keyed[i] = fmt.Sprintf(`{"iid":1,"buy":%t,"p":"100.5","qty":"0.25","tif":"gtc","po":false,"c":"%032x"}`, i%2 == 0, i+1)
	}
	return `{"type":"createOrders","args":[` + strings.Join(keyed, ",") + `]}`, []any{"createOrders", rows}
}

func BenchmarkVerifyCreateOrders1(b *testing.B) {
	keyed, compact := orderRows(1)
	benchOp(b, "createOrders", keyed, compact)
}

func BenchmarkVerifyCreateOrders20(b *testing.B) {
	keyed, compact := orderRows(20)
	benchOp(b, "createOrders", keyed, compact)
}

func BenchmarkVerifyCancelOrders(b *testing.B) {
	benchOp(b, "cancelOrders", `{"type":"cancelOrders","args":[11,22,33]}`, []any{"cancelOrders", []any{11, 22, 33}})
}

func BenchmarkVerifyUpdateLeverage(b *testing.B) {
	benchOp(b, "updateLeverage", `{"type":"updateLeverage","args":{"iid":3,"lev":20,"cross":true}}`,
		[]any{"updateLeverage", []any{3, 20, true}})
}

func BenchmarkVerifyCreateProxy(b *testing.B) {
	owner := newKey(b, proxyKeyHex)
	proxy := newKey(b, "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef")
	ts := uint64(now0.UnixMilli())
	exp := ts + 7*24*3600*1000
	op := fmt.Sprintf(`{"type":"createProxy","args":{"owner":%q,"proxy":%q,"expiry":%d}}`, owner.hex, proxy.hex, exp)
	body := envelope(b, op, owner.sign(tCreateProxyDigest(proxy.addr, exp, 1, ts)), 1, ts, `,"label":"x"`)
	v := New(Config{})
	b.ReportAllocs()
	for b.Loop() {
		r, err := ParseRequest(body)
		if err != nil {
			b.Fatal(err)
		}
		cp, err := v.VerifyCreateProxy(r, now0)
		if err != nil {
			b.Fatal(err)
		}
		v.Replay().Remove(cp.Replay)
	}
}

// BenchmarkCompactCreateOrders20 isolates the JSON → msgpack step.
func BenchmarkCompactCreateOrders20(b *testing.B) {
	keyed, _ := orderRows(20)
	b.ReportAllocs()
	m := cpuclock.Start()
	for b.Loop() {
		if _, _, err := Compact([]byte(keyed)); err != nil {
			b.Fatal(err)
		}
	}
	m.Report(b)
}

// BenchmarkCompactPooled20 is the step as VerifyOp and Trade run it: the
// packed bytes and the row spans reused (against CompactCreateOrders20,
// which allocates both each time, as the bare endpoint's Compact does).
func BenchmarkCompactPooled20(b *testing.B) {
	keyed, _ := orderRows(20)
	raw := []byte(keyed)
	b.ReportAllocs()
	m := cpuclock.Start()
	var packed []byte
	for b.Loop() {
		op, out, err := compact(raw, packed, true)
		if err != nil {
			b.Fatal(err)
		}
		packed = out[:0]
		op.ReleaseRows()
	}
	m.Report(b)
}

// BenchmarkReplayAdd measures the replay cache alone.
func BenchmarkReplayAdd(b *testing.B) {
	c := NewReplayCache(1 << 30)
	nowMs := now0.UnixMilli()
	b.ReportAllocs()
	i := uint64(0)
	for b.Loop() {
		if err := c.Add(rk(i, nowMs+300_000), nowMs); err != nil {
			b.Fatal(err)
		}
		i++
	}
}

// singleOrderBody is the envelope of the placement benchmark's requests.
const singleOrderBody = `{"op":{"type":"createOrders","args":[{"iid":1,"buy":true,"p":"123","qty":"1","tif":"ioc","po":false}]},"sig":"0x1234567890123456789012345678901234567890123456789012345678901234567890123456789012345678901234567890123456789012345678901234567891b","salt":12345,"ts":1790000000000}`

// BenchmarkParseRequest: the envelope decode (one pass; 3 allocations:
// the Request, its op bytes and the signature string).
func BenchmarkParseRequest(b *testing.B) {
	body := []byte(singleOrderBody)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := ParseRequest(body); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkParseRequestJSON is the encoding/json reference path.
func BenchmarkParseRequestJSON(b *testing.B) {
	body := []byte(singleOrderBody)
	b.ReportAllocs()
	for b.Loop() {
		var r Request
		if err := json.Unmarshal(body, &r); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkArgCount(b *testing.B) {
	keyed, _ := orderRows(20)
	op := json.RawMessage(keyed)
	b.ReportAllocs()
	m := cpuclock.Start()
	for b.Loop() {
		if ArgCount(op) != 20 {
			b.Fatal("count")
		}
	}
	m.Report(b)
}

func BenchmarkOrderArgs1(b *testing.B)  { benchOrderArgs(b, 1) }
func BenchmarkOrderArgs20(b *testing.B) { benchOrderArgs(b, 20) }

func benchOrderArgs(b *testing.B, n int) {
	keyed, _ := orderRows(n)
	op, _, err := Compact([]byte(keyed))
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	m := cpuclock.Start()
	for b.Loop() {
		if rows, ok := op.OrderArgs(); !ok || len(rows) != n {
			b.Fatal("slow path")
		}
	}
	m.Report(b)
}

// BenchmarkCompactCreateOrders1 is the compact form of one order.
func BenchmarkCompactCreateOrders1(b *testing.B) {
	keyed, _ := orderRows(1)
	b.ReportAllocs()
	m := cpuclock.Start()
	for b.Loop() {
		if _, _, err := Compact([]byte(keyed)); err != nil {
			b.Fatal(err)
		}
	}
	m.Report(b)
}

// BenchmarkParseAndCount20 is what the trade route does before verifying
// a 20-order batch: parse the envelope, then count op.args for the IP
// weight (counted on the parse's own pass; ArgCount alone is the second
// pass it replaced).
func BenchmarkParseAndCount20(b *testing.B) {
	keyed, _ := orderRows(20)
	body := []byte(`{"op":` + keyed + `,"sig":"0x00","salt":1,"ts":1}`)
	b.ReportAllocs()
	for b.Loop() {
		r, err := ParseRequest(body)
		if err != nil || r.ArgCount() != 20 {
			b.Fatal(err)
		}
	}
}
