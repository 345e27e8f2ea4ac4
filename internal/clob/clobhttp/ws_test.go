package clobhttp_test

import (
	"bufio"
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"net"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"

	"pmx/internal/clob/clobengine"
	"pmx/internal/clob/clobsvc"
)

// wsClient is a real WebSocket client on the test server.
type wsClient struct {
	c *websocket.Conn
}

func (x *xenv) dial(t testing.TB, path string) *wsClient {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	c, _, err := websocket.Dial(ctx, "ws"+strings.TrimPrefix(x.srv.URL, "http")+path, nil)
	if err != nil {
		t.Fatalf("dial %s: %v", path, err)
	}
	c.SetReadLimit(64 << 20)
	t.Cleanup(func() { c.CloseNow() })
	return &wsClient{c: c}
}

func (w *wsClient) send(t testing.TB, s string) {
	t.Helper()
	if err := w.c.Write(context.Background(), websocket.MessageText, []byte(s)); err != nil {
		t.Fatalf("write: %v", err)
	}
}

// read is the next message (10 s deadline: a hang fails, never a timing).
func (w *wsClient) read(t testing.TB) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	_, b, err := w.c.Read(ctx)
	if err != nil {
		t.Fatalf("read: %v", err)
	}
	return string(b)
}

// ping sends PING and reads until PONG: every message sent before it has
// been handled (one reader per connection handles them in order).
func (w *wsClient) ping(t testing.TB) {
	t.Helper()
	w.send(t, "PING")
	if m := w.read(t); m != "PONG" {
		t.Fatalf("PING answered %q", m)
	}
}

// next reads the next JSON object frame and decodes it.
func (w *wsClient) next(t testing.TB) map[string]any {
	t.Helper()
	m := w.read(t)
	var f map[string]any
	if err := json.Unmarshal([]byte(m), &f); err != nil {
		t.Fatalf("frame %s: %v", m, err)
	}
	return f
}

// want checks fields of a frame.
func want(t testing.TB, f map[string]any, fields map[string]any) {
	t.Helper()
	for k, v := range fields {
		if fmt.Sprint(f[k]) != fmt.Sprint(v) {
			b, _ := json.Marshal(f)
			t.Fatalf("frame %s: %s = %v, want %v", b, k, f[k], v)
		}
	}
}

func (w *wsClient) userSub(t testing.TB, c creds, markets ...string) {
	t.Helper()
	m := ""
	if len(markets) > 0 {
		b, _ := json.Marshal(markets)
		m = `,"markets":` + string(b)
	}
	w.send(t, fmt.Sprintf(`{"auth":{"apiKey":%q,"secret":%q,"passphrase":%q},"type":"user"%s}`, c.APIKey, c.Secret, c.Passphrase, m))
	w.ping(t)
}

// TestWebSocketChannelsFollowACrossingTrade: a market subscriber gets the
// book snapshot, the resting order's price change, the trade's last trade
// price and the book after it; each trader's user socket gets its order
// events and the trade, which then walks MINED and CONFIRMED with the
// simulated chain.
func TestWebSocketChannelsFollowACrossingTrade(t *testing.T) {
	x, clk := newClocked(t)
	a, b := x.trader(t, priv0), x.trader(t, priv1)
	x.fund(t, a.w.addr, 100, 0)
	x.fund(t, b.w.addr, 100, 20)

	mkt := x.dial(t, "/ws/market")
	mkt.send(t, `{"assets_ids":["`+yesA+`"],"type":"market"}`)
	var dump []map[string]any
	if err := json.Unmarshal([]byte(mkt.read(t)), &dump); err != nil || len(dump) != 1 {
		t.Fatalf("snapshot: %v %v", dump, err)
	}
	want(t, dump[0], map[string]any{"event_type": "book", "asset_id": yesA, "market": condA, "bids": []any{}, "tick_size": "0.01"})
	ua, ub := x.dial(t, "/ws/user"), x.dial(t, "/ws/user")
	ua.userSub(t, a.c, condA)
	ub.userSub(t, b.c)

	r, makerID := a.post(t, limitOrder(yesA, "BUY", 40, 10), "GTC", false)
	if decode[orderResp](t, r).Status != "live" {
		t.Fatalf("maker: %s", r.body)
	}
	want(t, ua.next(t), map[string]any{"event_type": "order", "type": "PLACEMENT", "id": makerID, "owner": a.c.APIKey,
		"market": condA, "asset_id": yesA, "side": "BUY", "price": "0.4", "original_size": "10", "size_matched": "0",
		"status": "LIVE", "order_type": "GTC", "outcome": "Yes", "maker_address": strings.ToLower(a.w.addr)})
	pc := mkt.next(t)
	want(t, pc, map[string]any{"event_type": "price_change", "market": condA})
	if chg := pc["price_changes"].([]any); len(chg) != 1 {
		t.Fatalf("price changes %v", chg)
	} else {
		want(t, chg[0].(map[string]any), map[string]any{"asset_id": yesA, "price": "0.4", "size": "10", "side": "BUY", "best_bid": "0.4", "best_ask": "0"})
	}

	r, takerID := b.post(t, limitOrder(yesA, "SELL", 40, 10), "GTC", false)
	o := decode[orderResp](t, r)
	if o.Status != "matched" || len(o.TradeIDs) != 1 {
		t.Fatalf("taker: %s", r.body)
	}
	trade := o.TradeIDs[0]
	want(t, ub.next(t), map[string]any{"event_type": "order", "type": "PLACEMENT", "id": takerID, "status": "MATCHED", "size_matched": "10"})
	want(t, ub.next(t), map[string]any{"event_type": "trade", "type": "TRADE", "id": trade, "status": "MATCHED", "trader_side": "TAKER",
		"owner": b.c.APIKey, "taker_order_id": takerID, "side": "SELL", "price": "0.4", "size": "10", "transaction_hash": ""})
	want(t, ua.next(t), map[string]any{"event_type": "order", "type": "UPDATE", "id": makerID, "status": "MATCHED", "size_matched": "10"})
	want(t, ua.next(t), map[string]any{"event_type": "trade", "id": trade, "status": "MATCHED", "trader_side": "MAKER", "owner": a.c.APIKey})
	want(t, mkt.next(t), map[string]any{"event_type": "last_trade_price", "asset_id": yesA, "price": "0.4", "size": "10", "side": "SELL",
		"transaction_hash": clobengine.TxHash(trade)})
	want(t, mkt.next(t), map[string]any{"event_type": "book", "asset_id": yesA, "bids": []any{}, "asks": []any{}, "last_trade_price": "0.4"})

	// The simulated chain: MINED in the next block, CONFIRMED Confirmations deep.
	ch, at := x.svc.Chain(), clk.Now().UnixMilli()
	for _, st := range []struct {
		at   int64
		name string
	}{{ch.MinedAt(at), "MINED"}, {ch.ConfirmedAt(at), "CONFIRMED"}} {
		clk.set(time.UnixMilli(st.at))
		for _, u := range []*wsClient{ub, ua} {
			want(t, u.next(t), map[string]any{"event_type": "trade", "id": trade, "status": st.name, "transaction_hash": clobengine.TxHash(trade),
				"last_update": strconv.FormatInt(st.at/1000, 10)})
		}
	}

	// A cancel is a CANCELLATION on the user socket and a level gone on the market one.
	r, id := a.post(t, limitOrder(yesA, "BUY", 30, 5), "GTC", false)
	if decode[orderResp](t, r).Status != "live" {
		t.Fatalf("order: %s", r.body)
	}
	want(t, ua.next(t), map[string]any{"type": "PLACEMENT", "id": id})
	want(t, mkt.next(t), map[string]any{"event_type": "price_change"})
	if r := a.call(t, "DELETE", "/order", `{"orderID":"`+id+`"}`); r.status != 200 {
		t.Fatalf("cancel: %d %s", r.status, r.body)
	}
	want(t, ua.next(t), map[string]any{"type": "CANCELLATION", "id": id, "status": "CANCELED"})
	pc = mkt.next(t)
	want(t, pc["price_changes"].([]any)[0].(map[string]any), map[string]any{"price": "0.3", "size": "0", "side": "BUY"})
}

// closeOf reads until the connection ends and returns its close status
// and reason.
func closeOf(t testing.TB, w *wsClient) (websocket.StatusCode, string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	for {
		if _, _, err := w.c.Read(ctx); err != nil {
			var ce websocket.CloseError
			if errors.As(err, &ce) {
				return ce.Code, ce.Reason
			}
			t.Fatalf("connection ended without a close frame: %v", err)
		}
	}
}

// TestWebSocketRefusesBadSubscribe: a message that is not one of
// production's subscription shapes is answered "INVALID OPERATION" and
// the connection stays usable; a plain GET is a JSON 426.
func TestWebSocketRefusesBadSubscribe(t *testing.T) {
	x, _ := newClocked(t)
	mkt := x.dial(t, "/ws/market")
	for _, bad := range []string{`hello`, `{"type":"market"}`, `{"assets_ids":["01"],"type":"market"}`,
		`{"assets_ids":[],"operation":"subscribe"}`, `{"assets_ids":["1"],"type":"user"}`, `[{"assets_ids":["1"],"type":"market"}]`,
		`{"assets_ids":["1"],"type":"market","operation":"subscribe"}`} {
		mkt.send(t, bad)
		if m := mkt.read(t); m != "INVALID OPERATION" {
			t.Errorf("%s answered %q", bad, m)
		}
	}
	mkt.ping(t)
	user := x.dial(t, "/ws/user")
	for _, bad := range []string{`{"type":"user"}`, `{"auth":{"apiKey":"k","secret":"s"},"type":"user"}`,
		`{"markets":["` + condA + `"],"operation":"subscribe"}`, // an update before the authenticated subscription
		`{"auth":{"apiKey":"k","secret":"s","passphrase":"p"},"type":"user","markets":["0x12"]}`} {
		user.send(t, bad)
		if m := user.read(t); m != "INVALID OPERATION" {
			t.Errorf("%s answered %q", bad, m)
		}
	}
	resp, err := http.Get(x.srv.URL + "/ws/market")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusUpgradeRequired || string(body) != `{"error":"websocket upgrade required"}` {
		t.Fatalf("plain GET: %d %s", resp.StatusCode, body)
	}
}

// TestWebSocketUserAuthRefused: wrong credentials close the user socket
// with 1008 "invalid credentials" (an unknown key, a wrong secret, a wrong
// passphrase).
func TestWebSocketUserAuthRefused(t *testing.T) {
	x, _ := newClocked(t)
	a := x.trader(t, priv0)
	for name, c := range map[string]creds{
		"unknown key": {APIKey: "00000000-0000-4000-8000-000000000000", Secret: a.c.Secret, Passphrase: a.c.Passphrase},
		"secret":      {APIKey: a.c.APIKey, Secret: a.c.Secret + "x", Passphrase: a.c.Passphrase},
		"passphrase":  {APIKey: a.c.APIKey, Secret: a.c.Secret, Passphrase: "0" + a.c.Passphrase[1:]},
	} {
		u := x.dial(t, "/ws/user")
		u.send(t, fmt.Sprintf(`{"auth":{"apiKey":%q,"secret":%q,"passphrase":%q},"type":"user"}`, c.APIKey, c.Secret, c.Passphrase))
		if code, reason := closeOf(t, u); code != websocket.StatusPolicyViolation || reason != "invalid credentials" {
			t.Errorf("%s: closed %d %q", name, code, reason)
		}
	}
	u := x.dial(t, "/ws/user") // the right ones are accepted
	u.userSub(t, a.c)
}

// TestWebSocketSlowConsumerDropped: a market subscriber that stops reading
// while its books keep changing is closed with 1008 "slow consumer: send
// queue full" once its queue is full; the engine never waits for it.
func TestWebSocketSlowConsumerDropped(t *testing.T) {
	clk := &fixedClock{t: time.Unix(now0, 0)}
	x := newExchangeGated(t, "", clk, "off", nil, func(o *clobsvc.Options) { o.StreamQueue = 4 })
	const mm = "0x00000000000000000000000000000000000000aa"
	x.must(t, clobengine.Command{Op: clobengine.OpDeposit, Addr: mm, Amount: 1_000_000 * 1_000_000})
	x.must(t, clobengine.Command{Op: clobengine.OpSplit, Addr: mm, Cond: condB, Amount: 500_000 * 1_000_000})
	// A deep book on B's 0.001 grid (so every book frame is large): asks
	// at 0.501..0.999 of 1,000 shares each.
	var ins []clobengine.OrderInput
	for p := int64(501); p < 1000; p++ {
		ins = append(ins, clobengine.OrderInput{Hash: fmt.Sprintf("0x%064x", p), Token: yesB, Side: 1, Type: "GTC",
			Maker: mm, Signer: mm, APIKey: "mm", Version: 2, Stamp: 1, MakerAmt: 1000_000_000, TakerAmt: 1000_000 * p, NegRisk: true})
	}
	x.must(t, clobengine.Command{Op: clobengine.OpPlace, Orders: ins})
	slow := x.dial(t, "/ws/market")
	slow.send(t, `{"assets_ids":["`+yesB+`"],"type":"market"}`)
	slow.read(t) // the snapshot; then it reads nothing more
	for i := int64(0); x.svc.StreamDrops() == 0; i++ {
		if i > 100_000 {
			t.Fatal("the slow consumer was never dropped")
		}
		in := clobengine.OrderInput{Hash: fmt.Sprintf("0x%064x", 1_000_000+i), Token: yesB, Side: 0, Type: "FAK",
			Maker: mm, Signer: mm, APIKey: "mm", Version: 2, Stamp: 1, MakerAmt: 501_000, TakerAmt: 1_000_000, NegRisk: true}
		x.must(t, clobengine.Command{Op: clobengine.OpPlace, Orders: []clobengine.OrderInput{in}})
	}
	if code, reason := closeOf(t, slow); code != websocket.StatusPolicyViolation || reason != "slow consumer: send queue full" {
		t.Fatalf("closed %d %q", code, reason)
	}
	fresh := x.dial(t, "/ws/market") // others are unaffected
	fresh.send(t, `{"assets_ids":["`+yesB+`"],"type":"market"}`)
	if m := fresh.read(t); !strings.Contains(m, `"event_type":"book"`) {
		t.Fatalf("snapshot %s", m)
	}
}

// rawWS opens /ws/market by hand, so the test can send what a client
// library refuses to.
func rawWS(t *testing.T, x *xenv) (net.Conn, *bufio.Reader) {
	t.Helper()
	c, err := net.Dial("tcp", strings.TrimPrefix(x.srv.URL, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	fmt.Fprintf(c, "GET /ws/market HTTP/1.1\r\nHost: x\r\nConnection: Upgrade\r\nUpgrade: websocket\r\n"+
		"Sec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n\r\n")
	br := bufio.NewReader(c)
	if res, err := http.ReadResponse(br, nil); err != nil || res.StatusCode != 101 {
		t.Fatalf("handshake: %v %v", res, err)
	}
	return c, br
}

// closeCode reads server frames until a close frame and returns its code.
func closeCode(t *testing.T, c net.Conn, br *bufio.Reader) int {
	t.Helper()
	c.SetReadDeadline(time.Now().Add(10 * time.Second)) // a hang fails; nothing is timed
	for {
		var h [2]byte
		if _, err := io.ReadFull(br, h[:]); err != nil {
			t.Fatalf("no close frame: %v", err)
		}
		p := make([]byte, h[1]&0x7f) // the server's frames here are short
		io.ReadFull(br, p)
		if h[0]&0x0f == 8 && len(p) >= 2 {
			return int(binary.BigEndian.Uint16(p))
		}
	}
}

// TestWebSocketFramingAndConnectionLimits: the frame guard closes an
// unmasked frame with 1002 and a header claiming more than the read limit
// with 1009 at once; one IP opens at most 100 sockets (then a JSON 429).
func TestWebSocketFramingAndConnectionLimits(t *testing.T) {
	x, _ := newClocked(t)
	c, br := rawWS(t, x)
	c.Write([]byte{0x81, 0x04, 'P', 'I', 'N', 'G'}) // text, FIN, unmasked
	if code := closeCode(t, c, br); code != 1002 {
		t.Errorf("unmasked frame: close %d, want 1002", code)
	}
	c, br = rawWS(t, x)
	h := []byte{0x81, 0x80 | 127, 0, 0, 0, 0, 0, 0, 0, 0, 1, 2, 3, 4}
	binary.BigEndian.PutUint64(h[2:10], math.MaxInt64)
	c.Write(h) // the header only: no payload follows
	if code := closeCode(t, c, br); code != 1009 {
		t.Errorf("a header claiming 2^63-1 bytes: close %d, want 1009", code)
	}

	y, _ := newClocked(t)
	for range 100 {
		y.dial(t, "/ws/market").ping(t)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	_, resp, err := websocket.Dial(ctx, "ws"+strings.TrimPrefix(y.srv.URL, "http")+"/ws/user", nil)
	if err == nil || resp == nil || resp.StatusCode != http.StatusTooManyRequests {
		t.Fatalf("the 101st socket: %v %v", resp, err)
	}
	body, _ := io.ReadAll(resp.Body)
	if string(body) != `{"error":"too many websocket connections"}` {
		t.Fatalf("429 body %s", body)
	}
}

// TestWebSocketGTDExpiryIsACancellation: a GTD order that time retires is
// a CANCELLATION on its owner's user socket and a level gone on the market
// socket, as a cancel is.
func TestWebSocketGTDExpiryIsACancellation(t *testing.T) {
	x, clk := newClocked(t)
	a := x.trader(t, priv0)
	x.fund(t, a.w.addr, 100, 0)
	mkt := x.dial(t, "/ws/market")
	mkt.send(t, `{"assets_ids":["`+yesA+`"],"type":"market"}`)
	mkt.read(t) // the snapshot
	ua := x.dial(t, "/ws/user")
	ua.userSub(t, a.c)

	o := limitOrder(yesA, "BUY", 40, 10)
	o.Expiration = now0 + 120
	r, id := a.post(t, o, "GTD", false)
	if r.status != 200 {
		t.Fatalf("%s", r.body)
	}
	want(t, ua.next(t), map[string]any{"type": "PLACEMENT", "id": id, "order_type": "GTD"})
	want(t, mkt.next(t), map[string]any{"event_type": "price_change"})
	clk.set(time.Unix(now0+120, 0))
	x.svc.Tick()
	want(t, ua.next(t), map[string]any{"event_type": "order", "type": "CANCELLATION", "id": id, "status": "CANCELED"})
	pc := mkt.next(t)
	want(t, pc["price_changes"].([]any)[0].(map[string]any), map[string]any{"price": "0.4", "size": "0", "side": "BUY"})
}
