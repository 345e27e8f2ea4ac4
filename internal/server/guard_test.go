package server

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"
)

// hangGuard bounds a read that must not block forever; a test failing on it
// found a hang, it does not measure speed.
const hangGuard = 30 * time.Second

// rawConn sends head (and body) as written, bypassing any client's checks.
func rawConn(t *testing.T, base, raw string) net.Conn {
	t.Helper()
	c, err := net.Dial("tcp", strings.TrimPrefix(base, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	if _, err := io.WriteString(c, raw); err != nil {
		t.Fatal(err)
	}
	return c
}

func readAnswer(t *testing.T, c net.Conn) (*http.Response, string) {
	t.Helper()
	_ = c.SetReadDeadline(time.Now().Add(hangGuard))
	res, err := http.ReadResponse(bufio.NewReader(c), nil)
	if err != nil {
		t.Fatalf("no answer: %v", err)
	}
	b, _ := io.ReadAll(res.Body)
	res.Body.Close()
	return res, string(b)
}

// shapeRefuser marks the guard's answers so tests see the service's shape.
func shapeRefuser(w http.ResponseWriter, _ *http.Request, status int, msg string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(map[string]any{"shape": "svc", "status": status, "error": msg})
}

func wantShape(t *testing.T, res *http.Response, body string, status int) {
	t.Helper()
	var v map[string]any
	if res.StatusCode != status || json.Unmarshal([]byte(body), &v) != nil || v["shape"] != "svc" {
		t.Fatalf("answer %d %q; want %d in the service's shape", res.StatusCode, body, status)
	}
}

// echo reads the whole body and answers its length; GET-only routes answer
// 405 without reading.
func guardedGroup(t *testing.T, lim BodyLimit, perIP int) (*Group, *Listener) {
	mux := http.NewServeMux()
	mux.HandleFunc("POST /echo", func(w http.ResponseWriter, r *http.Request) {
		b, err := io.ReadAll(r.Body)
		if err != nil {
			http.Error(w, "handler saw: "+err.Error(), http.StatusInternalServerError)
			return
		}
		_, _ = io.WriteString(w, `{"n":`+itoa(len(b))+`}`)
	})
	// /first signals once it has read the first byte (holding a read slot).
	mux.HandleFunc("POST /first", func(w http.ResponseWriter, r *http.Request) {
		var one [1]byte
		if _, err := io.ReadFull(r.Body, one[:]); err == nil {
			firstByte <- struct{}{}
		}
		b, err := io.ReadAll(r.Body)
		if err != nil {
			http.Error(w, "handler saw: "+err.Error(), http.StatusInternalServerError)
			return
		}
		_, _ = io.WriteString(w, `{"n":`+itoa(len(b)+1)+`}`)
	})
	// /exact reads exactly the declared length and never asks for EOF.
	mux.HandleFunc("POST /exact", func(w http.ResponseWriter, r *http.Request) {
		b := make([]byte, r.ContentLength)
		if _, err := io.ReadFull(r.Body, b); err != nil {
			http.Error(w, "handler saw: "+err.Error(), http.StatusInternalServerError)
			return
		}
		_, _ = io.WriteString(w, `{"n":`+itoa(len(b))+`}`)
	})
	mux.HandleFunc("GET /only-get", func(w http.ResponseWriter, r *http.Request) { _, _ = io.WriteString(w, "{}") })
	l := &Listener{Name: "t", Addr: "127.0.0.1:0", Handler: mux, Refuse: shapeRefuser,
		Body: func(*http.Request) BodyLimit { return lim }}
	g := &Group{Log: slog.New(slog.DiscardHandler), Metrics: NewMetrics(), Listeners: []*Listener{l}, BodyReadsPerIP: perIP}
	if err := g.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = g.Shutdown(ctx)
	})
	return g, l
}

var firstByte = make(chan struct{}, 16)

func itoa(n int) string { b, _ := json.Marshal(n); return string(b) }

var longBody = BodyLimit{Max: 1 << 10, Timeout: time.Hour}

func TestUncleanPathIsRefusedInTheServiceShapeNotRedirected(t *testing.T) {
	_, l := guardedGroup(t, longBody, 4)
	for _, p := range []string{"//ok", "/a/../ok", "/./ok", "//echo"} {
		c := rawConn(t, l.URL(), "GET "+p+" HTTP/1.1\r\nHost: x\r\n\r\n")
		res, body := readAnswer(t, c)
		wantShape(t, res, body, http.StatusNotFound)
		if res.Header.Get("Location") != "" {
			t.Errorf("%s redirected to %s", p, res.Header.Get("Location"))
		}
	}
}

func TestDeclaredBodyOverTheRouteLimitIsRefusedWithoutReading(t *testing.T) {
	_, l := guardedGroup(t, longBody, 4)
	c := rawConn(t, l.URL(), "POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: 1099511627776\r\n\r\nx")
	res, body := readAnswer(t, c)
	wantShape(t, res, body, http.StatusRequestEntityTooLarge)
	if !res.Close {
		t.Error("connection kept open after refusing an unread body")
	}
}

func TestChunkedBodyOverTheRouteLimitIsRefused(t *testing.T) {
	_, l := guardedGroup(t, longBody, 4)
	chunk := strings.Repeat("a", 600)
	c := rawConn(t, l.URL(), "POST /echo HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n258\r\n"+chunk+"\r\n258\r\n"+chunk+"\r\n")
	res, body := readAnswer(t, c)
	wantShape(t, res, body, http.StatusRequestEntityTooLarge)
}

func TestBodyAtTheLimitIsServed(t *testing.T) {
	_, l := guardedGroup(t, longBody, 4)
	res, err := http.Post(l.URL()+"/echo", "application/json", bytes.NewReader(make([]byte, 1<<10)))
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if res.StatusCode != 200 || string(b) != `{"n":1024}` {
		t.Fatalf("%d %s", res.StatusCode, b)
	}
}

// A 405 (or any answer that ignores the body) must not wait for a body the
// client never finishes: the body timeout here is an hour.
func TestAnswerThatIgnoresTheBodyDoesNotWaitForIt(t *testing.T) {
	_, l := guardedGroup(t, longBody, 4)
	c := rawConn(t, l.URL(), "POST /only-get HTTP/1.1\r\nHost: x\r\nContent-Length: 1000\r\n\r\nx")
	res, _ := readAnswer(t, c)
	if res.StatusCode != http.StatusMethodNotAllowed || !res.Close {
		t.Fatalf("answer %d close=%v; want 405 and the connection closed", res.StatusCode, res.Close)
	}
}

func TestStalledBodyIsAnsweredAtItsDeadlineInTheServiceShape(t *testing.T) {
	g, l := guardedGroup(t, BodyLimit{Max: 1 << 10, Timeout: 50 * time.Millisecond}, 4)
	c := rawConn(t, l.URL(), "POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: 1000\r\n\r\nx")
	res, body := readAnswer(t, c)
	wantShape(t, res, body, http.StatusRequestTimeout)
	if n := faultCount(t, g, "body_timeout"); n != 1 {
		t.Errorf("body_timeout faults = %v", n)
	}
}

func TestBodyReadsPerIPAreCapped(t *testing.T) {
	_, l := guardedGroup(t, longBody, 2)
	var stalled []net.Conn
	for range 2 {
		stalled = append(stalled, rawConn(t, l.URL(), "POST /first HTTP/1.1\r\nHost: x\r\nContent-Length: 1000\r\n\r\nx"))
	}
	for range stalled {
		<-firstByte
	}
	c := rawConn(t, l.URL(), "POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: 1000\r\n\r\nx")
	res, body := readAnswer(t, c)
	wantShape(t, res, body, http.StatusTooManyRequests)
	// A finished body frees its slot.
	for _, c := range stalled {
		_, _ = io.WriteString(c, strings.Repeat("y", 999))
		if res, _ := readAnswer(t, c); res.StatusCode != 200 {
			t.Fatalf("stalled body completed: %d", res.StatusCode)
		}
	}
	res, err := http.Post(l.URL()+"/echo", "application/json", strings.NewReader("{}"))
	if err != nil || res.StatusCode != 200 {
		t.Fatalf("after the slots freed: %v %v", res, err)
	}
	res.Body.Close()
}

func TestAbortedBodyIsAClientFaultNotAServerError(t *testing.T) {
	g, l := guardedGroup(t, longBody, 4)
	c := rawConn(t, l.URL(), "POST /echo HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n")
	res, body := readAnswer(t, c)
	wantShape(t, res, body, http.StatusBadRequest) // the handler's 500 is replaced
	if n := faultCount(t, g, "body_unreadable"); n != 1 {
		t.Errorf("body_unreadable faults = %v", n)
	}
}

func faultCount(t *testing.T, g *Group, reason string) float64 {
	t.Helper()
	mfs, err := g.Metrics.Registry.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, mf := range mfs {
		if mf.GetName() != "pmx_http_client_faults_total" {
			continue
		}
		for _, m := range mf.GetMetric() {
			for _, lp := range m.GetLabel() {
				if lp.GetName() == "reason" && lp.GetValue() == reason {
					return m.GetCounter().GetValue()
				}
			}
		}
	}
	return 0
}

// FuzzGuardBody: whatever the body and the limit, the handler never sees
// more than the limit, sees exactly the body when it fits, is told "too
// large" only when it does not, and the per-IP read slot is always given
// back.
func FuzzGuardBody(f *testing.F) {
	f.Add([]byte("{}"), uint16(2), uint8(1))
	f.Add([]byte(strings.Repeat("a", 300)), uint16(299), uint8(7))
	f.Add([]byte(""), uint16(0), uint8(3))
	f.Fuzz(func(t *testing.T, body []byte, max uint16, chunk uint8) {
		slots := newIPSlots(1)
		b := &guardBody{src: io.NopCloser(&chunky{b: body, n: int(chunk) + 1}), left: int64(max), slots: slots, key: "k"}
		got, err := io.ReadAll(b)
		b.release()
		if len(got) > int(max) {
			t.Fatalf("read %d bytes past the limit %d", len(got), max)
		}
		var tooBig *http.MaxBytesError
		switch {
		case len(body) <= int(max):
			if err != nil || !bytes.Equal(got, body) {
				t.Fatalf("body of %d under limit %d: %d bytes, %v", len(body), max, len(got), err)
			}
		case !errors.As(err, &tooBig):
			t.Fatalf("body of %d over limit %d: %v", len(body), max, err)
		}
		if !slots.take("k") {
			t.Fatal("read slot not given back")
		}
	})
}

// chunky returns at most n bytes per Read.
type chunky struct {
	b []byte
	n int
}

func (c *chunky) Read(p []byte) (int, error) {
	if len(c.b) == 0 {
		return 0, io.EOF
	}
	k := copy(p[:min(len(p), c.n)], c.b)
	c.b = c.b[k:]
	return k, nil
}

// A body read to its end keeps the connection alive (the guard closes only
// connections whose body was left unread or failed).
func TestReadBodiesKeepTheConnectionAlive(t *testing.T) {
	_, l := guardedGroup(t, longBody, 4)
	c := rawConn(t, l.URL(), "")
	br := bufio.NewReader(c)
	for i := range 4 {
		_, _ = io.WriteString(c, "POST "+[]string{"/echo", "/exact"}[i%2]+" HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\n\r\nhello")
		_ = c.SetReadDeadline(time.Now().Add(hangGuard))
		res, err := http.ReadResponse(br, nil)
		if err != nil {
			t.Fatalf("request %d on the same connection: %v", i, err)
		}
		b, _ := io.ReadAll(res.Body)
		if res.StatusCode != 200 || res.Close || string(b) != `{"n":5}` {
			t.Fatalf("request %d: %d close=%v %s", i, res.StatusCode, res.Close, b)
		}
	}
}
