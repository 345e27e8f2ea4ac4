// Package wsguard is the frame guard both exchanges' WebSockets sit on: it
// checks each client frame header on the hijacked connection before the
// WebSocket library reads the frame, and names the close code.
package wsguard

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"net"
	"net/http"
	"strings"
	"sync/atomic"

	"github.com/coder/websocket"
)

// The WebSocket library refuses an unmasked client frame without a close
// code of its own, and reads a frame whose header claims more than the read
// limit until the limit is reached, so a header claiming 2^63-1 bytes holds
// the connection until the idle close. Guard sits under the library on
// the hijacked connection and checks each client frame header as it
// arrives: an unmasked frame or a frame longer than the read limit fails the
// read at once, and the handler closes with 1002 (protocol error) or 1009
// (message too big).

const (
	guardOK int32 = iota
	guardUnmasked
	guardTooBig
)

var errFrameRefused = errors.New("websocket frame refused")

type Guard struct {
	net.Conn
	src   io.Reader // bytes the HTTP server had buffered, then the connection
	Limit uint64

	hdr    [14]byte
	hn     int    // header bytes seen
	hneed  int    // header length (2 until the second byte is seen)
	remain uint64 // payload bytes of the current frame still to come
	state  atomic.Int32
}

func (g *Guard) Read(p []byte) (int, error) {
	if g.state.Load() != guardOK {
		return 0, errFrameRefused
	}
	n, err := g.src.Read(p)
	if st := g.scan(p[:n]); st != guardOK {
		g.state.Store(st)
		return 0, errFrameRefused
	}
	return n, err
}

// scan follows frame boundaries through b.
func (g *Guard) scan(b []byte) int32 {
	for len(b) > 0 {
		if g.remain > 0 {
			k := uint64(len(b))
			if k > g.remain {
				k = g.remain
			}
			g.remain -= k
			b = b[k:]
			continue
		}
		if g.hneed == 0 {
			g.hneed = 2
		}
		for g.hn < g.hneed && len(b) > 0 {
			g.hdr[g.hn] = b[0]
			g.hn++
			b = b[1:]
			if g.hn == 2 {
				switch g.hdr[1] & 0x7f {
				case 126:
					g.hneed += 2
				case 127:
					g.hneed += 8
				}
				if g.hdr[1]&0x80 == 0 {
					return guardUnmasked
				}
				g.hneed += 4
			}
		}
		if g.hn < g.hneed {
			return guardOK
		}
		var n uint64
		switch l := g.hdr[1] & 0x7f; l {
		case 126:
			n = uint64(binary.BigEndian.Uint16(g.hdr[2:4]))
		case 127:
			n = binary.BigEndian.Uint64(g.hdr[2:10])
		default:
			n = uint64(l)
		}
		if n > g.Limit {
			return guardTooBig
		}
		g.remain, g.hn, g.hneed = n, 0, 2
	}
	return guardOK
}

// Writer hands the WebSocket library a guarded connection when it
// hijacks.
type Writer struct {
	http.ResponseWriter
	G *Guard
}

func (w *Writer) Hijack() (net.Conn, *bufio.ReadWriter, error) {
	// Through the ResponseController: the listener's writers (metrics, body
	// guard) wrap the connection's and only Unwrap to it.
	c, brw, err := http.NewResponseController(w.ResponseWriter).Hijack()
	if err != nil {
		return nil, nil, err
	}
	buffered, _ := brw.Reader.Peek(brw.Reader.Buffered())
	g := w.G
	g.Conn, g.src = c, io.MultiReader(bytes.NewReader(bytes.Clone(buffered)), c)
	return g, bufio.NewReadWriter(bufio.NewReader(g), brw.Writer), nil
}

// closeCode is the close status for a failed read: the guard's refusal, or
// a normal closure (the peer left, the idle timer or shutdown closed it).
func (g *Guard) CloseCode() (websocket.StatusCode, string) {
	switch g.state.Load() {
	case guardUnmasked:
		return websocket.StatusProtocolError, "unmasked client frame"
	case guardTooBig:
		return websocket.StatusMessageTooBig, "frame larger than the read limit"
	}
	return websocket.StatusNormalClosure, ""
}

// HasToken reports whether header name lists token (comma-separated,
// case-insensitive), as Connection and Upgrade do.
func HasToken(h http.Header, name, token string) bool {
	for _, v := range h.Values(name) {
		for _, t := range strings.Split(v, ",") {
			if strings.EqualFold(strings.TrimSpace(t), token) {
				return true
			}
		}
	}
	return false
}
