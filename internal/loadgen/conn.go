package loadgen

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"net"
	"strconv"
	"time"
)

// Conn is one keep-alive HTTP/1.1 connection that sends GET requests and
// reads whole answers, discarding their bodies. It exists because the load
// generator shares the machine with the server it measures: net/http's
// client spends ~25 µs and a dozen allocations per request (two goroutines
// and channel hand-offs per connection), which on a 2-core machine is CPU
// taken from the server and latency added to every sample. Conn costs a
// write, the reads of the answer, and no allocation in the steady state.
//
// It speaks only what a pmx listener answers to a GET: a status line,
// headers, and a body delimited by Content-Length, chunked encoding or the
// connection's end. It is not a general HTTP client (no redirects, no
// 1xx handling beyond skipping, no TLS).
type Conn struct {
	// Header is sent with every request: whole "Name: value\r\n" lines.
	Header string

	addr string
	host string
	nc   net.Conn
	r    *bufio.Reader
	req  []byte
}

// Dial opens a connection to addr (host:port); requests carry it as Host.
func Dial(addr string) (*Conn, error) {
	c := &Conn{addr: addr, host: addr}
	return c, c.redial()
}

func (c *Conn) redial() error {
	if c.nc != nil {
		_ = c.nc.Close()
	}
	nc, err := net.DialTimeout("tcp", c.addr, 10*time.Second)
	if err != nil {
		c.nc = nil
		return err
	}
	c.nc = nc
	if c.r == nil {
		c.r = bufio.NewReaderSize(nc, 64<<10)
	} else {
		c.r.Reset(nc)
	}
	return nil
}

// Close closes the connection.
func (c *Conn) Close() error {
	if c.nc == nil {
		return nil
	}
	err := c.nc.Close()
	c.nc = nil
	return err
}

// Get sends GET target (path and query) and reads the whole answer. It
// returns the status and the body's length. A connection the server closed
// (or asked to close) is re-dialled before the next request.
func (c *Conn) Get(target string) (status int, n int64, err error) {
	c.req = appendRequest(c.req[:0], "GET", c.host, target, c.Header, nil)
	return c.roundTrip(c.req, nil)
}

// Request builds the bytes of one HTTP/1.1 request: method, target, Host,
// extra header lines ("Name: value\r\n" each), and a body with its
// Content-Length (none when body is nil).
func Request(method, host, target, header string, body []byte) []byte {
	return appendRequest(make([]byte, 0, 128+len(header)+len(body)), method, host, target, header, body)
}

func appendRequest(b []byte, method, host, target, header string, body []byte) []byte {
	b = append(b, method...)
	b = append(b, ' ')
	b = append(b, target...)
	b = append(b, " HTTP/1.1\r\nHost: "...)
	b = append(b, host...)
	b = append(b, "\r\nUser-Agent: pmx-bench\r\n"...)
	b = append(b, header...)
	if body != nil {
		b = append(b, "Content-Length: "...)
		b = strconv.AppendInt(b, int64(len(body)), 10)
		b = append(b, "\r\n"...)
	}
	b = append(b, "\r\n"...)
	return append(b, body...)
}

// Do sends req (whole bytes, as Request builds them) and reads the answer,
// appending its body to buf[:0]; the returned body aliases buf's storage,
// so reuse buf for the next call without allocating.
func (c *Conn) Do(req, buf []byte) (status int, body []byte, err error) {
	body = buf[:0]
	status, _, err = c.roundTrip(req, &body)
	return status, body, err
}

// roundTrip writes req and reads the answer (its body appended to *body
// when body is non-nil, else discarded), dialling first if needed and
// closing when the answer or the server says so.
func (c *Conn) roundTrip(req []byte, body *[]byte) (status int, n int64, err error) {
	if c.nc == nil {
		if err := c.redial(); err != nil {
			return 0, 0, err
		}
	}
	if _, err := c.nc.Write(req); err != nil {
		_ = c.Close()
		return 0, 0, err
	}
	status, n, keep, err := readResponse(c.r, body)
	if err != nil || !keep {
		_ = c.Close()
	}
	return status, n, err
}

var errMalformed = errors.New("loadgen: malformed HTTP response")

// readResponse reads one HTTP/1.1 response from r (to a request that is not
// HEAD), appending the body to *sink, or discarding it when sink is nil. keep
// is false when the connection cannot carry another request (Connection:
// close, or a body delimited by the connection's end).
func readResponse(r *bufio.Reader, sink *[]byte) (status int, n int64, keep bool, err error) {
	for {
		line, err := r.ReadSlice('\n')
		if err != nil {
			return 0, 0, false, err
		}
		// "HTTP/1.x NNN reason\r\n"
		if len(line) < 14 || !bytes.HasPrefix(line, []byte("HTTP/1.")) || line[8] != ' ' {
			return 0, 0, false, errMalformed
		}
		status, err = strconv.Atoi(string(line[9:12])) // the compiler does not allocate for this conversion
		if err != nil || status < 100 || (len(line) > 12 && line[12] != ' ' && line[12] != '\r') {
			return 0, 0, false, errMalformed
		}
		if status >= 200 {
			break
		}
		if err := skipHeaders(r); err != nil { // 1xx: headers only, then the real answer
			return 0, 0, false, err
		}
	}
	length, chunked, keep := int64(-1), false, true
	for {
		line, err := r.ReadSlice('\n')
		if err != nil {
			return 0, 0, false, err
		}
		line = bytes.TrimRight(line, "\r\n")
		if len(line) == 0 {
			break
		}
		colon := bytes.IndexByte(line, ':')
		if colon <= 0 {
			return 0, 0, false, errMalformed
		}
		name, value := line[:colon], bytes.TrimSpace(line[colon+1:])
		switch {
		case bytes.EqualFold(name, []byte("Content-Length")):
			v, err := strconv.ParseInt(string(value), 10, 64)
			if err != nil || v < 0 || (length >= 0 && v != length) {
				return 0, 0, false, errMalformed
			}
			length = v
		case bytes.EqualFold(name, []byte("Transfer-Encoding")):
			if !bytes.EqualFold(value, []byte("chunked")) {
				return 0, 0, false, fmt.Errorf("loadgen: unsupported Transfer-Encoding %q", value)
			}
			chunked = true
		case bytes.EqualFold(name, []byte("Connection")):
			if bytes.EqualFold(value, []byte("close")) {
				keep = false
			}
		}
	}
	switch {
	case status == 204 || status == 304:
		return status, 0, keep, nil
	case chunked:
		n, err = readChunked(r, sink)
		return status, n, keep && err == nil, err
	case length >= 0:
		d, err := readN(r, int(length), sink)
		return status, int64(d), keep && err == nil, err
	default: // the body runs to the connection's end
		if sink == nil {
			n, err = io.Copy(io.Discard, r)
		} else {
			var rest []byte
			rest, err = io.ReadAll(r)
			*sink, n = append(*sink, rest...), int64(len(rest))
		}
		return status, n, false, err
	}
}

// readN reads n body bytes, keeping them in *sink unless it is nil.
func readN(r *bufio.Reader, n int, sink *[]byte) (int, error) {
	if sink == nil {
		return r.Discard(n)
	}
	done := 0
	for done < n {
		p, err := r.Peek(min(n-done, r.Size()))
		*sink = append(*sink, p...)
		_, _ = r.Discard(len(p))
		done += len(p)
		if err != nil {
			return done, err
		}
	}
	return done, nil
}

func skipHeaders(r *bufio.Reader) error {
	for {
		line, err := r.ReadSlice('\n')
		if err != nil {
			return err
		}
		if len(bytes.TrimRight(line, "\r\n")) == 0 {
			return nil
		}
	}
}

// readChunked reads a chunked body and its trailers, keeping the data in
// *sink unless it is nil.
func readChunked(r *bufio.Reader, sink *[]byte) (int64, error) {
	var total int64
	for {
		line, err := r.ReadSlice('\n')
		if err != nil {
			return total, err
		}
		line = bytes.TrimRight(line, "\r\n")
		if i := bytes.IndexByte(line, ';'); i >= 0 { // chunk extensions
			line = line[:i]
		}
		size, err := strconv.ParseInt(string(bytes.TrimSpace(line)), 16, 64)
		if err != nil || size < 0 || size > 1<<40 {
			return total, errMalformed
		}
		if size == 0 {
			return total, skipHeaders(r)
		}
		d, err := readN(r, int(size), sink)
		total += int64(d)
		if err != nil {
			return total, err
		}
		crlf, err := r.ReadSlice('\n')
		if err != nil {
			return total, err
		}
		if len(bytes.TrimRight(crlf, "\r\n")) != 0 {
			return total, errMalformed
		}
	}
}
