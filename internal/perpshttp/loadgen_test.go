package perpshttp

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"testing"
)

// rawConn is the placement benchmarks' load generator: one persistent
// HTTP/1.1 connection over real TCP that writes pre-built requests and reads
// answers with a minimal parser. A net/http client costs about as much CPU
// per request as the server's whole non-crypto path, and in these benchmarks
// it shares the two cores with the server; this one costs a write and a read.
type rawConn struct {
	c   net.Conn
	r   *bufio.Reader
	buf []byte // reused body buffer
}

func dialRaw(addr string) (*rawConn, error) {
	c, err := net.Dial("tcp", addr)
	if err != nil {
		return nil, err
	}
	return &rawConn{c: c, r: bufio.NewReaderSize(c, 8192)}, nil
}

// rawRequest is a complete HTTP/1.1 request with a body.
func rawRequest(method, host, path string, body []byte) []byte {
	h := fmt.Sprintf("%s %s HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n",
		method, path, host, len(body))
	return append([]byte(h), body...)
}

// do writes one request and reads its response; body is valid until the
// next call.
func (rc *rawConn) do(req []byte) (code int, body []byte, err error) {
	if _, err := rc.c.Write(req); err != nil {
		return 0, nil, err
	}
	code, body, err = readResponse(rc.r, rc.buf[:0])
	rc.buf = body
	return code, body, err
}

var errResponse = errors.New("malformed response")

// readResponse reads one HTTP/1.1 response that carries Content-Length (what
// net/http sends for a small body written at once); chunked bodies are
// refused. The body is appended to buf.
func readResponse(r *bufio.Reader, buf []byte) (int, []byte, error) {
	line, err := r.ReadSlice('\n')
	if err != nil {
		return 0, nil, err
	}
	// "HTTP/1.1 200 OK\r\n"
	if len(line) < 12 || !bytes.HasPrefix(line, []byte("HTTP/1.1 ")) {
		return 0, nil, errResponse
	}
	code, err := strconv.Atoi(string(line[9:12]))
	if err != nil {
		return 0, nil, errResponse
	}
	n := -1
	for {
		line, err := r.ReadSlice('\n')
		if err != nil {
			return 0, nil, err
		}
		line = bytes.TrimRight(line, "\r\n")
		if len(line) == 0 {
			break
		}
		k, v, ok := bytes.Cut(line, []byte(":"))
		if !ok {
			return 0, nil, errResponse
		}
		if bytes.EqualFold(k, []byte("Content-Length")) {
			n, err = strconv.Atoi(string(bytes.TrimSpace(v)))
			if err != nil || n < 0 || n > MaxBody {
				return 0, nil, errResponse
			}
		}
		if bytes.EqualFold(k, []byte("Transfer-Encoding")) {
			return 0, nil, errResponse
		}
	}
	if n < 0 {
		return 0, nil, errResponse
	}
	start := len(buf)
	buf = append(buf, make([]byte, n)...)
	if _, err := io.ReadFull(r, buf[start:]); err != nil {
		return 0, nil, err
	}
	return code, buf, nil
}

// FuzzReadResponse: when the load generator's parser accepts a response,
// net/http reads the same status and body from it.
func FuzzReadResponse(f *testing.F) {
	f.Add([]byte("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 27\r\n\r\n[{\"status\":\"ok\",\"oid\":12}]\n"))
	f.Add([]byte("HTTP/1.1 429 Too Many Requests\r\ncontent-length: 2\r\nRetry-After: 1\r\n\r\n[]"))
	f.Add([]byte("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n"))
	f.Add([]byte("HTTP/1.1 200 OK\r\n\r\n"))
	f.Fuzz(func(t *testing.T, raw []byte) {
		code, body, err := readResponse(bufio.NewReader(bytes.NewReader(raw)), nil)
		if err != nil {
			return
		}
		res, err := http.ReadResponse(bufio.NewReader(bytes.NewReader(raw)), nil)
		if err != nil {
			t.Skip("net/http is stricter about the status line or headers")
		}
		defer res.Body.Close()
		want, err := io.ReadAll(res.Body)
		if err != nil || res.StatusCode != code || !bytes.Equal(body, want) {
			t.Fatalf("%q: got %d %q, net/http %d %q (%v)", raw, code, body, res.StatusCode, want, err)
		}
	})
}

func TestReadResponse(t *testing.T) {
	for _, tc := range []struct {
		raw  string
		code int
		body string
		ok   bool
	}{
		{"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\n[]", 200, "[]", true},
		{"HTTP/1.1 400 Bad Request\r\ncontent-length: 3\r\n\r\n{}\n", 400, "{}\n", true},
		{"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n", 0, "", false},
		{"HTTP/1.1 200 OK\r\n\r\n", 0, "", false},
		{"HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\n[]", 0, "", false},
		{"HTTP/1.0 200 OK\r\nContent-Length: 0\r\n\r\n", 0, "", false},
	} {
		code, body, err := readResponse(bufio.NewReader(strings.NewReader(tc.raw)), nil)
		if (err == nil) != tc.ok || code != tc.code || string(body) != tc.body {
			t.Errorf("%q: got %d %q %v", tc.raw, code, body, err)
		}
	}
}
