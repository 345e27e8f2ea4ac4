package loadgen

import (
	"bufio"
	"bytes"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// TestConnReadsEveryBodyFraming drives a real net/http server through one
// connection: fixed length, chunked (a streamed body), no body, and a server
// that closes the connection, each followed by another request.
func TestConnReadsEveryBodyFraming(t *testing.T) {
	big := strings.Repeat("x", 200<<10) // larger than the reader's buffer
	var conns int
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/fixed":
			w.Header().Set("Content-Length", "5")
			io.WriteString(w, "hello")
		case "/big":
			io.WriteString(w, big) // > 2 KB: net/http picks its own framing
		case "/chunked":
			for range 3 {
				io.WriteString(w, "chunk")
				w.(http.Flusher).Flush()
			}
		case "/empty":
			w.WriteHeader(http.StatusNoContent)
		case "/close":
			w.Header().Set("Connection", "close")
			io.WriteString(w, "bye")
		case "/missing":
			http.NotFound(w, r)
		}
	}))
	srv.Config.ConnState = func(_ net.Conn, s http.ConnState) {
		if s == http.StateNew {
			conns++
		}
	}
	srv.Start()
	defer srv.Close()
	c, err := Dial(strings.TrimPrefix(srv.URL, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	for _, tc := range []struct {
		path   string
		status int
		n      int64
	}{
		{"/fixed", 200, 5}, {"/big", 200, int64(len(big))}, {"/chunked", 200, 15}, {"/empty", 204, 0},
		{"/fixed?again=1", 200, 5}, {"/close", 200, 3}, {"/fixed", 200, 5}, {"/missing", 404, 19},
	} {
		status, n, err := c.Get(tc.path)
		if err != nil || status != tc.status || n != tc.n {
			t.Fatalf("GET %s = %d, %d bytes, %v; want %d, %d bytes", tc.path, status, n, err, tc.status, tc.n)
		}
	}
	if conns != 2 {
		t.Fatalf("%d connections; want 2 (one re-dial after Connection: close)", conns)
	}
}

// FuzzReadResponse holds readResponse to net/http's reading of the same
// bytes: whenever net/http reads a complete response to a GET, readResponse
// reads the same status and body length, and it never panics or loops on
// input net/http rejects.
func FuzzReadResponse(f *testing.F) {
	for _, s := range []string{
		"HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhello",
		"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n3;x=y\r\nabc\r\n0\r\nTrailer: 1\r\n\r\n",
		"HTTP/1.1 204 No Content\r\n\r\n",
		"HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok",
		"HTTP/1.1 200 OK\r\nConnection: close\r\n\r\nuntil the end",
		"HTTP/1.0 404 Not Found\r\ncontent-length: 0\r\n\r\n",
		"HTTP/1.1 200 OK\r\nContent-Length: 3\r\nContent-Length: 4\r\n\r\nabcd",
		"HTTP/1.1 2000 OK\r\n\r\n",
		"garbage\r\n\r\n",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		var body []byte
		status, n, _, err := readResponse(bufio.NewReaderSize(strings.NewReader(s), 16), &body)
		res, herr := http.ReadResponse(bufio.NewReader(strings.NewReader(s)), &http.Request{Method: "GET"})
		if herr != nil || err != nil {
			return // only compare what both read
		}
		hbody, berr := io.ReadAll(res.Body)
		if berr != nil || res.StatusCode < 200 { // net/http returns a 1xx answer itself
			return
		}
		if res.StatusCode != status || int64(len(hbody)) != n || !bytes.Equal(hbody, body) {
			t.Fatalf("readResponse = %d, %q; net/http = %d, %q", status, body, res.StatusCode, hbody)
		}
	})
}

// TestConnDoKeepsTheBody: Do sends a pre-built POST and returns the answer's
// body (fixed length and chunked) in the caller's buffer.
func TestConnDoKeepsTheBody(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		if r.URL.Path == "/chunked" {
			w.Write(bytes.Repeat(b, 1000)) // over net/http's buffer: chunked
			return
		}
		w.Header().Set("X-Method", r.Method)
		w.Write(append([]byte(r.Method+":"), b...))
	}))
	defer srv.Close()
	host := strings.TrimPrefix(srv.URL, "http://")
	c, err := Dial(host)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	buf := make([]byte, 0, 64)
	status, body, err := c.Do(Request("POST", host, "/echo", "Content-Type: application/json\r\n", []byte(`{"a":1}`)), buf)
	if err != nil || status != 200 || string(body) != `POST:{"a":1}` {
		t.Fatalf("%d %q %v", status, body, err)
	}
	status, body, err = c.Do(Request("PATCH", host, "/chunked", "", []byte("xyz")), body)
	if err != nil || status != 200 || string(body) != strings.Repeat("xyz", 1000) {
		t.Fatalf("%d %d bytes %v", status, len(body), err)
	}
	status, body, err = c.Do(Request("GET", host, "/echo", "", nil), body)
	if err != nil || status != 200 || string(body) != "GET:" {
		t.Fatalf("%d %q %v", status, body, err)
	}
}
