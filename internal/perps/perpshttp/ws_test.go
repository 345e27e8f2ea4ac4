package perpshttp

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"
)

type wsClient struct {
	t   *testing.T
	c   *websocket.Conn
	id  int64
	buf []map[string]json.RawMessage // frames read but not yet consumed
}

func (e *env) dial(t *testing.T) *wsClient {
	c, _, err := websocket.Dial(context.Background(), "ws"+strings.TrimPrefix(e.api.URL, "http")+"/v1/ws", nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.CloseNow() })
	return &wsClient{t: t, c: c}
}

func (w *wsClient) send(frame string) {
	if err := w.c.Write(context.Background(), websocket.MessageText, []byte(frame)); err != nil {
		w.t.Fatal(err)
	}
}

func (w *wsClient) next() map[string]json.RawMessage {
	w.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	_, b, err := w.c.Read(ctx)
	if err != nil {
		w.t.Fatalf("read: %v", err)
	}
	if strings.Contains(string(b), "null") {
		w.t.Errorf("null in frame %s", b)
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(b, &m); err != nil {
		w.t.Fatalf("%v: %s", err, b)
	}
	return m
}

// post sends an unsigned post and returns its response data.
func (w *wsClient) call(req, body string) json.RawMessage {
	w.t.Helper()
	w.id++
	w.send(fmt.Sprintf(`{"id":%d,"req":%q,%s}`, w.id, req, body))
	return w.response(w.id)
}

// response reads frames until the response to id; pushes are kept in buf.
func (w *wsClient) response(id int64) json.RawMessage {
	w.t.Helper()
	for {
		f := w.next()
		if raw, ok := f["id"]; ok && string(raw) == fmt.Sprint(id) {
			return f["data"]
		}
		w.buf = append(w.buf, f)
	}
}

// pushOn returns the next push on ch (from buf first), dropping pushes on
// other channels: read a connection's channels in the order they are pushed.
func (w *wsClient) pushOn(ch string) (sq int64, data json.RawMessage) {
	w.t.Helper()
	for {
		var f map[string]json.RawMessage
		if len(w.buf) > 0 {
			f, w.buf = w.buf[0], w.buf[1:]
		} else {
			f = w.next()
		}
		if string(f["ch"]) == `"`+ch+`"` {
			json.Unmarshal(f["sq"], &sq)
			return sq, f["data"]
		}
	}
}

func (w *wsClient) auth(tr *trader) {
	w.t.Helper()
	if d := w.call("post", fmt.Sprintf(`"op":{"type":"auth","args":{"proxy":%q,"secret":%q}}`, tr.proxy.hex, tr.secret)); string(d) != `{"status":"ok"}` {
		w.t.Fatalf("auth: %s", d)
	}
}

// signedPost sends a signed trading op over the socket.
func (w *wsClient) signedPost(tr *trader, keyedOp string, compact []any) json.RawMessage {
	w.t.Helper()
	e := tr.e
	salt, ts := e.salt.Add(1), e.now()
	sig := tr.proxy.sign(tOpDigest(compact, salt, ts))
	w.id++
	w.send(fmt.Sprintf(`{"id":%d,"req":"post","op":%s,"sig":%q,"salt":%d,"ts":%d}`, w.id, keyedOp, sig, salt, ts))
	return w.response(w.id)
}

func TestWebSocket(t *testing.T) {
	e := newEnv(t, Options{})
	e.instrument()
	a, b := e.trader(1, "100000"), e.trader(2, "100000")
	wa, wb, pub := e.dial(t), e.dial(t), e.dial(t)

	if d := wa.call("post", `"op":{"type":"ping"}`); !strings.Contains(string(d), `"status":"ok","ts":`) || !strings.Contains(string(d), `"sq":0`) {
		t.Errorf("ping %s", d)
	}
	if d := wa.call("sub", `"chs":["orders","fills"]`); string(d) != `[{"status":"err","error":"unauthorized"},{"status":"err","error":"unauthorized"}]` {
		t.Errorf("private sub before auth: %s", d)
	}
	if d := wa.call("post", `"op":{"type":"auth","args":{"proxy":"`+a.proxy.hex+`","secret":"wrong"}}`); string(d) != `{"status":"err","error":"unauthorized"}` {
		t.Errorf("bad auth %s", d)
	}
	wa.auth(a)
	wb.auth(b)
	// The official client's eight channels, all acknowledged.
	if d := wa.call("sub", `"chs":["balances","portfolio","orders","fills","funding","deposits","withdrawals","tpsl"]`); strings.Count(string(d), `{"status":"ok"}`) != 8 {
		t.Errorf("sub: %s", d)
	}
	wb.call("sub", `"chs":["orders","fills"]`)
	if d := pub.call("sub", `"chs":["trades::1","bbo::1","book::1","nope::1","trades::x"]`); string(d) !=
		`[{"status":"ok"},{"status":"ok"},{"status":"ok"},{"status":"err","error":"invalid channel: nope::1"},{"status":"err","error":"invalid channel: trades::x"}]` {
		t.Errorf("public sub: %s", d)
	}

	// a places over the socket: the ack comes first, then the orders push.
	o := ord{iid: 1, buy: true, p: "100", qty: "2", c: "abababababababababababababababab"}
	wa.id++
	salt, ts := e.salt.Add(1), e.now()
	wa.send(fmt.Sprintf(`{"id":%d,"req":"post","op":{"type":"createOrders","args":[%s]},"sig":%q,"salt":%d,"ts":%d}`,
		wa.id, o.keyed(), a.proxy.sign(tOpDigest([]any{"createOrders", []any{o.compact()}}, salt, ts)), salt, ts))
	first := wa.next()
	if string(first["id"]) != fmt.Sprint(wa.id) || !strings.HasPrefix(string(first["data"]), `[{"status":"ok","oid":`) {
		t.Fatalf("first frame after createOrders is not its ack: %v", first)
	}
	var acks []ack
	json.Unmarshal(first["data"], &acks)
	sq1, d := wa.pushOn("orders")
	if !strings.Contains(string(d), fmt.Sprintf(`"oid":%d`, acks[0].OID)) || !strings.Contains(string(d), `"status":"open"`) {
		t.Errorf("orders push %s", d)
	}
	// b sells into it over REST: both sides get fills and orders pushes.
	b.placeOK(ord{iid: 1, buy: false, p: "100", qty: "0.5", tif: "ioc"})
	sq2, d := wa.pushOn("orders")
	if sq2 != sq1+1 || !strings.Contains(string(d), `"status":"partial"`) || !strings.Contains(string(d), `"fill":"0.5"`) {
		t.Errorf("maker orders push sq %d→%d %s", sq1, sq2, d)
	}
	if _, d := wa.pushOn("fills"); !strings.HasPrefix(string(d), `[{"tid":`) || !strings.Contains(string(d), `"taker":false`) || !strings.Contains(string(d), `"side":"long"`) {
		t.Errorf("maker fills push %s", d)
	}
	if _, d := wb.pushOn("orders"); !strings.Contains(string(d), `"status":"filled"`) {
		t.Errorf("taker orders push %s", d)
	}
	if _, d := wb.pushOn("fills"); !strings.Contains(string(d), `"taker":true`) || !strings.Contains(string(d), `"side":"short"`) {
		t.Errorf("taker fills push %s", d)
	}
	if _, d := pub.pushOn("trades::1"); !strings.Contains(string(d), `"p":"100","qty":"0.5"`) {
		t.Errorf("trades push %s", d)
	}
	if _, d := pub.pushOn("bbo::1"); !strings.Contains(string(d), `"iid":1`) {
		t.Errorf("bbo push %s", d)
	}
	if _, d := pub.pushOn("book::1"); !strings.Contains(string(d), `"b":[["100","1.5"]]`) {
		t.Errorf("book push %s", d)
	}
	// Cancel over the socket, by coid.
	res := wa.signedPost(a, `{"type":"cancelOrdersCOID","args":["abababababababababababababababab"]}`, []any{"cancelOrdersCOID", []any{"abababababababababababababababab"}})
	if !strings.HasPrefix(string(res), `[{"status":"ok"`) {
		t.Errorf("ws cancel %s", res)
	}
	if sq3, d := wa.pushOn("orders"); sq3 != sq2+1 || !strings.Contains(string(d), `"status":"cancelled"`) {
		t.Errorf("cancel push sq %d %s", sq3, d)
	}
	// Request-level errors over the socket are one-element arrays.
	if res := wa.signedPost(a, `{"type":"createOrders","args":[]}`, []any{"createOrders", []any{}}); string(res) != `[{"status":"err","error":"no orders provided"}]` {
		t.Errorf("ws no orders %s", res)
	}
	// Closing the connection does not revoke the credential.
	wa.c.Close(websocket.StatusNormalClosure, "")
	if code, _ := a.read("/v1/account/balances", nil); code != 200 {
		t.Errorf("credential after close: %d", code)
	}
	w2 := e.dial(t)
	w2.auth(a)
}

func TestWebSocketIdleClose(t *testing.T) {
	e := newEnv(t, Options{WSIdle: 50 * time.Millisecond})
	w := e.dial(t)
	_, _, err := w.c.Read(context.Background())
	if websocket.CloseStatus(err) != websocket.StatusPolicyViolation {
		t.Errorf("idle connection: %v", err)
	}
}

func TestWebSocketLimits(t *testing.T) {
	e := newEnv(t, Options{WSMessages: 4})
	w := e.dial(t)
	if d := w.call("sub", `"chs":["trades::1"]`); string(d) != `[{"status":"ok"}]` {
		t.Errorf("sub %s", d)
	}
	if d := w.call("unsub", `"chs":["trades::1"]`); string(d) != `[{"status":"ok"}]` {
		t.Errorf("unsub %s", d)
	}
	if d := w.call("post", `"op":{"type":"nope"}`); !strings.Contains(string(d), "unknown op type") {
		t.Errorf("unknown op %s", d)
	}
	w.call("post", `"op":{"type":"ping"}`)
	if d := w.call("post", `"op":{"type":"ping"}`); string(d) != `{"status":"err","error":"message_rate_limited"}` {
		t.Errorf("fifth message: %s", d)
	}
	if d := w.call("sub", `"chs":["trades::1"]`); string(d) != `[{"status":"err","error":"message_rate_limited"}]` {
		t.Errorf("limited sub: %s", d)
	}
	// Batched frames in one message are each answered.
	e2 := newEnv(t, Options{})
	w2 := e2.dial(t)
	w2.send(`[{"id":7,"req":"post","op":{"type":"ping"}},{"id":8,"req":"sub","chs":["bbo::1"]}]`)
	if d := w2.response(7); !strings.Contains(string(d), `"status":"ok"`) {
		t.Errorf("batched ping %s", d)
	}
	if d := w2.response(8); string(d) != `[{"status":"ok"}]` {
		t.Errorf("batched sub %s", d)
	}
}

func TestCancelRequestErrors(t *testing.T) {
	e := newEnv(t, Options{})
	e.instrument()
	a := e.trader(1, "1000")
	for _, c := range []struct {
		method, path, op string
		compact          []any
		want             string
	}{
		{"DELETE", "/v1/trade/orders", `{"type":"cancelOrders","args":[]}`, []any{"cancelOrders", []any{}}, "non-empty array of order ids"},
		{"DELETE", "/v1/trade/orders-coid", `{"type":"cancelOrdersCOID","args":[]}`, []any{"cancelOrdersCOID", []any{}}, "non-empty array of client order ids"},
		{"PATCH", "/v1/trade/orders", `{"type":"modifyOrders","args":[]}`, []any{"modifyOrders", []any{}}, "no orders provided"},
		{"PATCH", "/v1/trade/orders", `{"type":"cancelOrders","args":[1]}`, []any{"cancelOrders", []any{1}}, "invalid"},
	} {
		code, body := a.signed(c.method, c.path, a.proxy, c.op, c.compact, "")
		if code != 400 || !strings.HasPrefix(body, `[{"status":"err","error":`) || !strings.Contains(body, c.want) {
			t.Errorf("%s %s %s: %d %s", c.method, c.path, c.op, code, body)
		}
	}
}

// TestWebSocketSubscriptionLimit: a connection holds at most 100
// subscriptions (perps.md §7); re-subscribing a held channel is fine, and an
// unsubscribe frees a slot.
func TestWebSocketSubscriptionLimit(t *testing.T) {
	e := newEnv(t, Options{})
	w := e.dial(t)
	chs := make([]string, 101)
	for i := range chs {
		chs[i] = fmt.Sprintf("%q", fmt.Sprint("trades::", i+1))
	}
	var acks []errBody
	if err := json.Unmarshal(w.call("sub", `"chs":[`+strings.Join(chs, ",")+`]`), &acks); err != nil || len(acks) != 101 {
		t.Fatalf("sub of 101 channels: %+v %v", acks, err)
	}
	for i, a := range acks[:100] {
		if a.Status != "ok" {
			t.Fatalf("channel %d: %+v", i+1, a)
		}
	}
	if acks[100] != (errBody{Status: "err", Error: "subscription limit reached"}) {
		t.Errorf("101st channel: %+v", acks[100])
	}
	if d := w.call("sub", `"chs":["trades::1"]`); string(d) != `[{"status":"ok"}]` {
		t.Errorf("re-subscribing a held channel: %s", d)
	}
	w.call("unsub", `"chs":["trades::1"]`)
	if d := w.call("sub", `"chs":["trades::101"]`); string(d) != `[{"status":"ok"}]` {
		t.Errorf("after an unsubscribe: %s", d)
	}
}
