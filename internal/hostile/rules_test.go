package hostile

import (
	"bufio"
	"io"
	"net"
	"net/http"
	"runtime"
	"strings"
	"testing"
	"time"
)

// Issue 14 §3: an over-budget client cannot make perps read (and hold) a
// body: the IP budget is charged before the first body byte, so a request
// that declares 1,000 bytes and sends one is refused at once with 429, not
// held until its body deadline.
func TestPerpsChargesTheIPBudgetBeforeReadingABody(t *testing.T) {
	p := start(t, options{perpsIPBudget: 3})
	for i := 0; ; i++ {
		status, _, _ := do(t, "POST", p.url["perps"]+"/v1/trade/orders", "{}", nil)
		if status == http.StatusTooManyRequests {
			break
		}
		if i == 10 {
			t.Fatal("budget of 3 never ran out")
		}
	}
	res, body := raw(t, p.url["perps"], "POST /v1/trade/orders HTTP/1.1\r\nHost: x\r\nContent-Length: 1000\r\n\r\n[")
	if res.StatusCode != http.StatusTooManyRequests || !res.Close || !strings.Contains(body, "ip_rate_limited") {
		t.Fatalf("over budget with a stalled body: %d close=%v %s", res.StatusCode, res.Close, body)
	}
}

// fuzzTarget is one route a fuzz input is sent to.
type fuzzTarget struct {
	probe
	query bool // the input is the query string; else the body
}

var fuzzTargets = []fuzzTarget{
	{probe{"data", "GET", "/v2/trades", false}, true},
	{probe{"data", "GET", "/v2/positions", false}, true},
	{probe{"data", "GET", "/v2/activity", false}, true},
	{probe{"data", "GET", "/v2/leaderboard", false}, true},
	{probe{"catalog", "GET", "/events", false}, true},
	{probe{"catalog", "GET", "/markets", false}, true},
	{probe{"catalog", "GET", "/tags", false}, true},
	{probe{"catalog", "GET", "/series", false}, true},
	{probe{"perps", "GET", "/v1/info/book", false}, true},
	{probe{"perps", "GET", "/v1/info/tickers", false}, true},
	{probe{"perps", "POST", "/v1/trade/orders", false}, false},
	{probe{"perps", "POST", "/v1/account/proxy", false}, false},
	{probe{"perps", "PATCH", "/v1/trade/orders", false}, false},
	{probe{"perps", "DELETE", "/v1/trade/orders-coid", false}, false},
	{probe{"admin", "POST", "/admin/perps/instruments", true}, false},
	{probe{"admin", "POST", "/admin/perps/deposits", true}, false},
	{probe{"admin", "POST", "/admin/perps/mode", true}, false},
	{probe{"admin", "POST", "/admin/catalog", true}, false},
	{probe{"admin", "POST", "/admin/ledger", true}, false},
}

// FuzzRequestDecoders sends each input as the query string or the body of
// every decoding route of every listener (IP limits off, so the input
// reaches the decoder) and applies the hostile test's rules to the answer.
func FuzzRequestDecoders(f *testing.F) {
	for _, s := range []string{"limit=1", "limit=-1&offset=x", "user=0x00&cursor=%ff", "instrument_id=1&depth=9999999999",
		"id=1&id=2&tag_id=x", "[]", "{", `{"id":"1","title":"\u202e"}`, `{"kind":"trade","log_index":"x"}`, `["op",[]]`} {
		f.Add(s)
	}
	p := start(f, options{noIPLimits: true, perpsIPBudget: 1 << 30})
	f.Fuzz(func(t *testing.T, in string) {
		for _, ft := range fuzzTargets {
			hdr := map[string]string{}
			if ft.admin {
				hdr["Authorization"] = "Bearer " + adminToken
			}
			url, body := p.url[ft.service]+ft.path, in
			if ft.query {
				url, body = url+"?"+in, ""
				if strings.IndexFunc(in, func(r rune) bool { return r <= ' ' || r == '#' || r == 0x7f }) >= 0 {
					continue // not a query string a client can send
				}
			}
			status, h, b := do(t, ft.method, url, body, hdr)
			check(t, ft.probe, status, h, b)
		}
	})
}

// Oversized WebSocket frames: frame headers claiming 2^63-1 bytes on many
// connections to every socket (perps /v1/ws, the CLOB's /ws/market and
// /ws/user) allocate nothing near the claim. (The close codes and the
// prompt refusal are issue 14 §10's own tests.)
func TestOversizedWebSocketFramesKeepTheHeapBounded(t *testing.T) {
	p := start(t, options{clobEngine: true})
	for _, sock := range []struct{ listener, path string }{{"perps", "/v1/ws"}, {"clob", "/ws/market"}, {"clob", "/ws/user"}} {
		t.Run(sock.listener+sock.path, func(t *testing.T) { oversizedFrames(t, p.url[sock.listener], sock.path) })
	}
}

func oversizedFrames(t *testing.T, url, path string) {
	const n = 100
	runtime.GC()
	var before runtime.MemStats
	runtime.ReadMemStats(&before)
	base := runtime.NumGoroutine()
	upgraded := 0
	var conns []net.Conn
	for range n {
		c := dial(t, url)
		conns = append(conns, c)
		_, _ = io.WriteString(c, "GET "+path+" HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"+
			"Sec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n\r\n")
		_ = c.SetReadDeadline(time.Now().Add(hangGuard))
		br := bufio.NewReader(c)
		res, err := http.ReadResponse(br, nil)
		if err != nil {
			t.Fatalf("handshake: %v", err)
		}
		if res.StatusCode != http.StatusSwitchingProtocols {
			continue
		}
		upgraded++
		// FIN, text; masked, 64-bit length 2^63-1; mask key; a few bytes.
		frame := []byte{0x81, 0xff, 0x7f, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 1, 2, 3, 4, 'x', 'y'}
		_, _ = c.Write(frame)
	}
	if upgraded == 0 {
		t.Fatal("no WebSocket handshake succeeded")
	}
	settle()
	runtime.GC()
	var during runtime.MemStats
	runtime.ReadMemStats(&during)
	grown := int64(during.HeapAlloc) - int64(before.HeapAlloc)
	t.Logf("%d WebSocket connections to %s with a 2^63-1 byte frame header: live heap %+d KiB, goroutines %d (base %d)",
		upgraded, path, grown/1024, runtime.NumGoroutine(), base)
	if grown > int64(upgraded)*128<<10 {
		t.Errorf("live heap grew %d KiB for %d oversized frames", grown/1024, upgraded)
	}
	if g := runtime.NumGoroutine(); g > base+4*upgraded+20 {
		t.Errorf("%d goroutines for %d WebSocket connections (base %d)", g, upgraded, base)
	}
	for _, c := range conns {
		c.Close()
	}
}

// Slow bodies: on every route that reads a body, a body that stops
// arriving is answered when its deadline passes, in the service's shape
// (408; the data service's contract words it invalid_request), and the
// connection is closed. The deadline is shortened here; serve's is 10 s.
func TestSlowBodiesAreAnsweredAtTheirDeadlineOnEveryListener(t *testing.T) {
	p := start(t, options{bodyTimeout: 100 * time.Millisecond})
	uploads := []struct{ service, head string }{
		{"admin", "POST /admin/ledger HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer " + adminToken + "\r\n"},
		{"admin", "POST /admin/catalog HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer " + adminToken + "\r\n"},
	}
	for _, tg := range append(readingTargets, uploads...) {
		res, body := raw(t, p.url[tg.service], tg.head+"Content-Type: application/json\r\nContent-Length: 100\r\n\r\n{\"a\":")
		path := strings.Fields(tg.head)[1]
		pr := probe{tg.service, strings.Fields(tg.head)[0], path, false}
		check(t, pr, res.StatusCode, res.Header, body)
		if res.StatusCode != http.StatusRequestTimeout || !res.Close {
			t.Errorf("%s %s with a stalled body: %d close=%v %s", tg.service, path, res.StatusCode, res.Close, body)
		}
	}
}
