package perpshttp

import (
	"bufio"
	"context"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"
)

// Regression tests for the perps items of issue 14, each through the real
// server (REST, admin and WebSocket listeners of httptest).

// TestAdminDepositsRefuseWhatDoesNotFit (issue 14 item 1): two deposits of
// 9,000,000,000,000 used to wrap the balance to -446744073709.551616; the
// second is now refused (422, in the error shape) and the balance stays,
// across a restart too.
func TestAdminDepositsRefuseWhatDoesNotFit(t *testing.T) {
	e := newEnv(t, Options{})
	tr := e.trader(1, "")
	body := fmt.Sprintf(`{"address":%q,"amount":"9000000000000"}`, tr.owner.hex)
	if code, b := e.do("POST", e.admin.URL+"/admin/perps/deposits", []byte(body), nil, nil); code != 200 {
		t.Fatalf("first deposit: %d %s", code, b)
	}
	code, b := e.do("POST", e.admin.URL+"/admin/perps/deposits", []byte(body), nil, nil)
	if code != 422 || strings.TrimSpace(b) != `{"status":"err","error":"amount out of range"}` {
		t.Fatalf("second deposit: %d %s", code, b)
	}
	for range 2 {
		var bal []map[string]string
		if tr.read("/v1/account/balances", &bal); len(bal) != 1 || bal[0]["balance"] != "9000000000000" {
			t.Fatalf("balance: %v", bal)
		}
		e.restart()
	}
}

// TestFailedReauthDropsTheSession (issue 14 item 4): after a successful auth,
// an auth with a wrong secret answers unauthorized and the connection loses
// its authentication and private subscriptions: no more private pushes, and
// private channels need a new auth.
func TestFailedReauthDropsTheSession(t *testing.T) {
	e := newEnv(t, Options{})
	e.instrument()
	a := e.trader(1, "100000")
	w, witness := e.dial(t), e.dial(t)
	w.auth(a)
	witness.auth(a)
	for _, c := range []*wsClient{w, witness} {
		if d := c.call("sub", `"chs":["orders"]`); string(d) != `[{"status":"ok"}]` {
			t.Fatalf("sub: %s", d)
		}
	}
	if d := w.call("post", `"op":{"type":"auth","args":{"proxy":"`+a.proxy.hex+`","secret":"wrong"}}`); string(d) != `{"status":"err","error":"unauthorized"}` {
		t.Fatalf("failed re-auth: %s", d)
	}
	// Two orders: once the witness has the second push, the fan-out is past
	// the first for every session; a ping then orders w's queue after any
	// push it was given.
	a.placeOK(ord{iid: 1, buy: true, p: "100", qty: "1"})
	a.placeOK(ord{iid: 1, buy: true, p: "101", qty: "1"})
	witness.pushOn("orders")
	witness.pushOn("orders")
	w.call("post", `"op":{"type":"ping"}`)
	for _, f := range w.buf {
		if _, push := f["ch"]; push {
			t.Fatalf("private push after a failed re-auth: %v", f)
		}
	}
	if d := w.call("sub", `"chs":["orders"]`); string(d) != `[{"status":"err","error":"unauthorized"}]` {
		t.Errorf("private sub after a failed re-auth: %s", d)
	}
	w.auth(a) // a good auth restores it
	if d := w.call("sub", `"chs":["orders"]`); string(d) != `[{"status":"ok"}]` {
		t.Errorf("sub after re-auth: %s", d)
	}
}

// TestCreateProxyRefusesOwnerZeroAndAbsurdExpiry (issue 14 item 5): an
// account's own address, the zero address and an expiry of 2^64-1 are
// refused in the error shape, and none registers a proxy.
func TestCreateProxyRefusesOwnerZeroAndAbsurdExpiry(t *testing.T) {
	e := newEnv(t, Options{})
	owner := newKey(t, 7)
	zero := tKey{addr: make([]byte, 20), hex: "0x0000000000000000000000000000000000000000"}
	week := e.now() + 7*86400000
	for _, tc := range []struct {
		name   string
		proxy  tKey
		expiry uint64
		want   string
	}{
		{"own address", owner, week, "invalid request: proxy: an account's own address cannot be its proxy"},
		{"zero address", zero, week, "invalid request: proxy: the zero address cannot be a proxy"},
		{"expiry 2^64-1", newKey(t, 8), math.MaxUint64, "invalid request: expiry: at most 10 years ahead"},
	} {
		tr := &trader{e: e, owner: owner, proxy: tc.proxy}
		code, body := tr.createProxy(tc.expiry, "")
		if code != 400 || strings.TrimSpace(body) != `{"status":"err","error":"`+tc.want+`"}` {
			t.Errorf("%s: %d %s", tc.name, code, body)
		}
	}
	var reg map[string]bool
	if e.get("/v1/info/registered?address="+owner.hex, &reg); reg["registered"] {
		t.Error("a refused createProxy registered the account")
	}
	// The refused requests left no replay key: a valid one goes through.
	tr := &trader{e: e, owner: owner, proxy: newKey(t, 9)}
	if code, body := tr.createProxy(week, ""); code != 200 {
		t.Errorf("valid createProxy: %d %s", code, body)
	}
}

// TestNoGoTypeNamesInPerpsBodies (issue 14 item 6): malformed bodies on every
// perps and admin-perps route are answered in the error shape, naming the
// field and what was expected, never a Go type or package.
func TestNoGoTypeNamesInPerpsBodies(t *testing.T) {
	e := newEnv(t, Options{})
	e.instrument()
	a := e.trader(1, "1000")
	bodies := []string{`[]`, `{`, `""`, `1`, `{"op":[]}`, `{"op":{"type":"createOrders","args":{}},"sig":1}`,
		`{"op":{"type":"createOrders","args":[{"iid":"x"}]},"sig":"0x","salt":1,"ts":1}`, `{"mode":1}`,
		`{"symbol":1}`, `{"address":[],"amount":{}}`, `{"instrument_id":-1,"price":2}`, `{"retry_after_seconds":"x"}`}
	routes := []struct{ method, url string }{
		{"POST", e.api.URL + "/v1/trade/orders"}, {"PATCH", e.api.URL + "/v1/trade/orders"},
		{"DELETE", e.api.URL + "/v1/trade/orders"}, {"DELETE", e.api.URL + "/v1/trade/orders-coid"},
		{"PATCH", e.api.URL + "/v1/trade/orders-coid"}, {"DELETE", e.api.URL + "/v1/trade/orders/all"},
		{"POST", e.api.URL + "/v1/account/proxy"}, {"DELETE", e.api.URL + "/v1/account/proxy"},
		{"POST", e.admin.URL + "/admin/perps/instruments"}, {"POST", e.admin.URL + "/admin/perps/deposits"},
		{"POST", e.admin.URL + "/admin/perps/index"}, {"POST", e.admin.URL + "/admin/perps/mode"},
	}
	for _, rt := range routes {
		for _, b := range bodies {
			code, body := e.do(rt.method, rt.url, []byte(b), a.hdr(), nil)
			if code >= 500 || code < 400 {
				t.Errorf("%s %s %s: %d %s", rt.method, rt.url, b, code, body)
			}
			for _, bad := range []string{"Go ", "perpsauth.", "perps.", "perpshttp.", "modeWire", "InstrumentSpec", "json: "} {
				if strings.Contains(body, bad) {
					t.Errorf("%s %s %s: %q in %s", rt.method, rt.url, b, bad, body)
				}
			}
			var v any
			if json.Unmarshal([]byte(body), &v) != nil || !strings.Contains(body, `"status":"err"`) {
				t.Errorf("%s %s %s: not the error shape: %s", rt.method, rt.url, b, body)
			}
		}
	}
	if code, body := e.do("POST", e.api.URL+"/v1/trade/orders", []byte(`[]`), nil, nil); code != 400 ||
		strings.TrimSpace(body) != `[{"status":"err","error":"invalid request: body: expected an object, got array"}]` {
		t.Errorf("the issue's reproduction: %d %s", code, body)
	}
}

// TestWebSocketHandshakeAndEmptyBatchAnswerInJSON (issue 14 item 7): a
// failed handshake is answered in the JSON error shape, and an empty batch
// `[]` gets a reply.
func TestWebSocketHandshakeAndEmptyBatchAnswerInJSON(t *testing.T) {
	e := newEnv(t, Options{})
	for _, tc := range []struct {
		hdr  map[string]string
		code int
		want string
	}{
		{nil, 426, "websocket upgrade required"},
		{map[string]string{"Connection": "Upgrade", "Upgrade": "websocket", "Sec-WebSocket-Version": "8"}, 400,
			"invalid request: Sec-WebSocket-Version must be 13"},
		{map[string]string{"Connection": "Upgrade", "Upgrade": "websocket", "Sec-WebSocket-Version": "13",
			"Sec-WebSocket-Key": "short"}, 400, "invalid request: Sec-WebSocket-Key must be 16 bytes in base64"},
	} {
		code, body := e.do("GET", e.api.URL+"/v1/ws", nil, tc.hdr, nil)
		if code != tc.code || strings.TrimSpace(body) != `{"status":"err","error":"`+tc.want+`"}` {
			t.Errorf("%v: %d %s", tc.hdr, code, body)
		}
	}
	w := e.dial(t)
	w.send(`[]`)
	if f := w.next(); string(f["data"]) != `{"status":"err","error":"invalid request: empty batch"}` {
		t.Errorf("empty batch: %v", f)
	}
	if d := w.call("post", `"op":{"type":"ping"}`); !strings.Contains(string(d), `"status":"ok"`) {
		t.Errorf("connection after an empty batch: %s", d)
	}
}

// TestOperatorInputIsValidated (issue 14 item 9): retry_after_seconds outside
// 1..86400 is 422 (absent still takes the default), instrument symbols must
// be short and printable, and an index price must lie on the grid.
func TestOperatorInputIsValidated(t *testing.T) {
	e := newEnv(t, Options{})
	post := func(path, body string) (int, string) {
		return e.do("POST", e.admin.URL+path, []byte(body), nil, nil)
	}
	for _, b := range []string{`{"mode":"cancel_only","retry_after_seconds":0}`, `{"mode":"post_only","retry_after_seconds":86401}`,
		`{"mode":"cancel_only","retry_after_seconds":-5}`} {
		if code, body := post("/admin/perps/mode", b); code != 422 || !strings.Contains(body, "retry_after_seconds must be 1..86400") {
			t.Errorf("%s: %d %s", b, code, body)
		}
	}
	if got := e.setMode(`{"mode":"cancel_only"}`); got != `{"mode":"cancel_only","retry_after_seconds":60}` {
		t.Errorf("default retry: %s", got)
	}
	if got := e.setMode(`{"mode":"post_only","retry_after_seconds":86400}`); got != `{"mode":"post_only","retry_after_seconds":86400}` {
		t.Errorf("maximum retry: %s", got)
	}
	for _, sym := range []string{strings.Repeat("A", 100_000), "BTC\u202eUSD", "BTC\x00", "BTC USD", "", strings.Repeat("B", 33)} {
		spec, _ := json.Marshal(map[string]any{"symbol": sym, "category": "crypto", "price_decimals": 1,
			"quantity_decimals": 4, "max_leverage": 20, "min_notional": "1"})
		if code, body := post("/admin/perps/instruments", string(spec)); code != 422 || !strings.Contains(body, "symbol: 1 to 32 printable characters") {
			t.Errorf("symbol %.40q: %d %.200s", sym, code, body)
		}
	}
	if code, body := post("/admin/perps/instruments", `{"symbol":"XAU-USD","base_asset":"GO\u0000LD","category":"commodity","price_decimals":1,"quantity_decimals":3,"max_leverage":20,"min_notional":"1"}`); code != 422 {
		t.Errorf("base_asset with NUL: %d %s", code, body)
	}
	var inst []any
	if e.get("/v1/info/instruments", &inst); len(inst) != 0 {
		t.Errorf("refused instruments were listed: %v", inst)
	}
	e.instrument() // a good one still works
	if code, body := post("/admin/perps/index", `{"instrument_id":1,"price":"100000"}`); code != 422 || !strings.Contains(body, "price: above the instrument's max_price") {
		t.Errorf("index above the grid: %d %s", code, body)
	}
	if code, body := post("/admin/perps/index", `{"instrument_id":1,"price":"99999"}`); code != 200 {
		t.Errorf("index on the grid: %d %s", code, body)
	}
}

// rawWS opens a WebSocket by hand so a test can write frames the client
// library would never send.
func rawWS(t *testing.T, e *env) (net.Conn, *bufio.Reader) {
	t.Helper()
	c, err := net.Dial("tcp", strings.TrimPrefix(e.api.URL, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	fmt.Fprintf(c, "GET /v1/ws HTTP/1.1\r\nHost: x\r\nConnection: Upgrade\r\nUpgrade: websocket\r\n"+
		"Sec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n\r\n")
	br := bufio.NewReader(c)
	res, err := http.ReadResponse(br, nil)
	if err != nil || res.StatusCode != 101 {
		t.Fatalf("handshake: %v %v", res, err)
	}
	return c, br
}

// closeFrame reads server frames until a close frame and returns its code.
func closeFrame(t *testing.T, c net.Conn, br *bufio.Reader) int {
	t.Helper()
	c.SetReadDeadline(time.Now().Add(10 * time.Second)) // a hang fails, it does not time the answer
	for {
		var h [2]byte
		if _, err := io.ReadFull(br, h[:]); err != nil {
			t.Fatalf("no close frame: %v", err)
		}
		n := int(h[1] & 0x7f)
		switch n {
		case 126:
			var x [2]byte
			io.ReadFull(br, x[:])
			n = int(binary.BigEndian.Uint16(x[:]))
		case 127:
			var x [8]byte
			io.ReadFull(br, x[:])
			n = int(binary.BigEndian.Uint64(x[:]))
		}
		p := make([]byte, n)
		io.ReadFull(br, p)
		if h[0]&0x0f == 8 {
			if len(p) < 2 {
				return 1005
			}
			return int(binary.BigEndian.Uint16(p))
		}
	}
}

// TestWebSocketFramingCloseCodes (issue 14 item 10): an unmasked client frame
// is closed with 1002; a frame header claiming 2^63-1 bytes is refused at
// once with 1009 (the server does not wait for the bytes); frames over the
// read limit are refused the same way.
func TestWebSocketFramingCloseCodes(t *testing.T) {
	e := newEnv(t, Options{WSIdle: time.Hour}) // the idle close must not be what ends them
	c, br := rawWS(t, e)
	c.Write([]byte{0x81, 0x04, 'p', 'i', 'n', 'g'}) // text, FIN, unmasked
	if code := closeFrame(t, c, br); code != 1002 {
		t.Errorf("unmasked frame: close %d, want 1002", code)
	}
	for _, n := range []uint64{math.MaxInt64, MaxBody + 1} {
		c, br := rawWS(t, e)
		h := []byte{0x81, 0x80 | 127, 0, 0, 0, 0, 0, 0, 0, 0, 1, 2, 3, 4}
		binary.BigEndian.PutUint64(h[2:10], n)
		c.Write(h) // the header only: no payload follows
		if code := closeFrame(t, c, br); code != 1009 {
			t.Errorf("header claiming %d bytes: close %d, want 1009", n, code)
		}
	}
	// A frame within the limit still works after the guard.
	w := e.dial(t)
	if d := w.call("post", `"op":{"type":"ping"}`); !strings.Contains(string(d), `"status":"ok"`) {
		t.Errorf("ping: %s", d)
	}
	big := `{"id":1,"req":"post","op":{"type":"ping","pad":"` + strings.Repeat("x", 70000) + `"}}`
	if err := w.c.Write(context.Background(), websocket.MessageText, []byte(big)); err != nil {
		t.Fatal(err)
	}
	if f := w.next(); string(f["id"]) != "1" {
		t.Errorf("a 70 KB frame: %v", f)
	}
}
