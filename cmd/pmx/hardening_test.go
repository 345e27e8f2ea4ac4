package main

import (
	"bufio"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"
)

// rawExchange writes raw to the listener at base and reads one answer. The
// read deadline only turns a hang into a failure; it measures nothing.
func rawExchange(t *testing.T, base, raw string) (*http.Response, string) {
	t.Helper()
	c, err := net.Dial("tcp", strings.TrimPrefix(base, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if _, err := io.WriteString(c, raw); err != nil {
		t.Fatal(err)
	}
	_ = c.SetReadDeadline(time.Now().Add(30 * time.Second))
	res, err := http.ReadResponse(bufio.NewReader(c), nil)
	if err != nil {
		t.Fatalf("%s: no answer: %v", strings.SplitN(raw, "\r\n", 2)[0], err)
	}
	b, _ := io.ReadAll(res.Body)
	res.Body.Close()
	return res, string(b)
}

// errorShape says whether body is the service's JSON error shape.
func errorShape(service, body string) bool {
	var v any
	if json.Unmarshal([]byte(body), &v) != nil {
		return false
	}
	if a, ok := v.([]any); ok && service == "perps" && len(a) == 1 {
		v = a[0]
	}
	m, ok := v.(map[string]any)
	if !ok {
		return false
	}
	msg, _ := m["error"].(string)
	switch service {
	case "data":
		_, code := m["code"].(string)
		_, trace := m["trace_id"].(string)
		return msg != "" && code && trace
	case "catalog":
		_, typ := m["type"].(string)
		return msg != "" && typ
	case "perps":
		return msg != "" && m["status"] == "err"
	}
	return msg != ""
}

// Every listener of the real `pmx serve`: an unclean path is a 404 in the
// service's error shape (never a text/html redirect); a body the route does
// not read (a 405, a 401) is not waited for; a declared body over the
// route's limit is refused unread; every data-service answer has x-trace-id.
func TestServeListenersRefuseUncleanPathsAndUnwantedBodiesInTheirShape(t *testing.T) {
	urls, _ := startServe(t, "--data-dir", t.TempDir(), "--demo=false")
	paths := map[string]string{"data": "/v2/trades?limit=1", "catalog": "/events", "clob": "/time",
		"perps": "/v1/info/time", "admin": "/admin/ledger"}
	for name, p := range paths {
		res, body := rawExchange(t, urls[name], "GET /"+p+" HTTP/1.1\r\nHost: x\r\n\r\n")
		if res.StatusCode != 404 || res.Header.Get("Location") != "" || !errorShape(name, body) {
			t.Errorf("%s GET /%s: %d %q location=%q", name, p, res.StatusCode, body, res.Header.Get("Location"))
		}
		if name == "data" && res.Header.Get("x-trace-id") == "" {
			t.Errorf("data unclean path answer has no x-trace-id")
		}
	}
	// A subtree root without its slash is not redirected (ServeMux's 307).
	if res, body := rawExchange(t, urls["admin"], "GET /debug/pprof HTTP/1.1\r\nHost: x\r\n\r\n"); res.StatusCode != 401 || !errorShape("admin", body) {
		t.Errorf("admin GET /debug/pprof: %d %q", res.StatusCode, body)
	}
	// A POST to a GET route (or without the admin token) with a body that
	// never completes is answered at once, in the service's shape.
	posts := map[string]string{"data": "/v2/trades", "catalog": "/events", "clob": "/time",
		"perps": "/v1/info/time", "admin": "/admin/ledger"}
	for name, p := range posts {
		res, body := rawExchange(t, urls[name], "POST "+p+" HTTP/1.1\r\nHost: x\r\nContent-Length: 1000\r\n\r\nx")
		if res.StatusCode < 400 || res.StatusCode >= 500 || !res.Close || !errorShape(name, body) {
			t.Errorf("%s POST %s with a stalled body: %d close=%v %q", name, p, res.StatusCode, res.Close, body)
		}
		if name == "data" && res.Header.Get("x-trace-id") == "" {
			t.Errorf("data 405 has no x-trace-id")
		}
		res, body = rawExchange(t, urls[name], "POST "+p+" HTTP/1.1\r\nHost: x\r\nContent-Length: 1099511627776\r\n\r\nx")
		if res.StatusCode != 413 && !(name == "data" && res.StatusCode == 400) || !errorShape(name, body) {
			t.Errorf("%s POST %s declaring 1 TiB: %d %q", name, p, res.StatusCode, body)
		}
	}
}
