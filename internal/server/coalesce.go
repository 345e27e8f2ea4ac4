package server

import (
	"context"
	"net"
	"net/http"
	"sync/atomic"
)

// Coalesced writes. net/http writes a response through a 4 KB buffer per
// connection: a response larger than that leaves in two write calls, the full
// buffer (status line, header, first part of the body) and then the rest. On
// loopback each call is a TCP push and a wake-up of the reader: for a cached
// 121 KB page (issue 20, one core) the 4 KB call took a median 18 µs against
// 40 µs for the other 117 KB. A handler about to write a large body in one
// Write arms its connection; the connection then holds the next write (the
// full buffer) and sends it with the following one (the body) in one writev.

// CoalesceMin is the smallest body a handler may arm for: a body this large
// always overflows the buffer that already holds the header, so a second
// write is certain to follow the held one within the same response.
const CoalesceMin = 4096

// CoalesceConn is a TCP connection of a listener with Coalesce set. Only the
// goroutine serving the connection's requests writes to it (net/http's rule
// for HTTP/1.1), so its fields need no lock.
type CoalesceConn struct {
	*net.TCPConn
	armed bool
	held  []byte
	buf   [4096]byte // net/http's connection buffer size: what a held write is
	vec   [2][]byte
	bufs  net.Buffers
}

type coalesceKey struct{}

// Coalescer is the connection serving r if its listener coalesces writes,
// else nil (its methods are then no-ops).
func Coalescer(r *http.Request) *CoalesceConn {
	c, _ := r.Context().Value(coalesceKey{}).(*CoalesceConn)
	return c
}

// Arm makes the connection hold its next write, up to 4 KB, and send it with
// the write after. The caller must then write a GET response body of at
// least CoalesceMin bytes in one Write (a HEAD response or a smaller body
// leaves one write only, and the held one would wait for the next
// response), and Disarm after it.
func (c *CoalesceConn) Arm() {
	if c != nil {
		c.armed = true
	}
}

// Disarm ends an Arm whose write did not happen (a failed response). A held
// write stays held until the write that follows it.
func (c *CoalesceConn) Disarm() {
	if c != nil {
		c.armed = false
	}
}

func (c *CoalesceConn) Write(p []byte) (int, error) {
	if c.armed {
		c.armed = false
		if len(p) <= len(c.buf) {
			c.held = append(c.buf[:0], p...)
			return len(p), nil
		}
	}
	if c.held == nil {
		return c.TCPConn.Write(p)
	}
	h := len(c.held)
	c.vec = [2][]byte{c.held, p}
	c.bufs = c.vec[:]
	n, err := c.bufs.WriteTo(c.TCPConn) // one writev
	c.held, c.vec = nil, [2][]byte{}
	coalesced.Add(1)
	if n < int64(h) {
		return 0, err
	}
	return int(n) - h, err
}

// CoalesceWrites makes srv's connections accepted from ln CoalesceConns:
// serve srv on the listener it returns. Start does this for a Listener with
// Coalesce; tests of handlers that arm use it with an httptest server.
func CoalesceWrites(srv *http.Server, ln net.Listener) net.Listener {
	next := srv.ConnContext
	srv.ConnContext = func(ctx context.Context, c net.Conn) context.Context {
		if cc, ok := c.(*CoalesceConn); ok {
			ctx = context.WithValue(ctx, coalesceKey{}, cc)
		}
		if next != nil {
			ctx = next(ctx, c)
		}
		return ctx
	}
	return coalesceListener{ln}
}

// CoalescedWrites is how many held writes have left with the write after
// them, process-wide (pmx_http_coalesced_writes_total).
func CoalescedWrites() uint64 { return coalesced.Load() }

var coalesced atomic.Uint64

// coalesceListener hands out CoalesceConns.
type coalesceListener struct{ net.Listener }

func (l coalesceListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if tc, ok := c.(*net.TCPConn); ok && err == nil {
		return &CoalesceConn{TCPConn: tc}, nil
	}
	return c, err
}
