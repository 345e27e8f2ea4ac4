package server

import (
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"path"
	"strings"
	"sync"
	"time"

	"pmx/internal/ratelimit"
)

// Refuser writes a listener-level refusal (unclean path, request body too
// large, too slow or unreadable, too many bodies in flight) in the service's
// own error shape. status is the HTTP status the listener chose; a service
// whose contract has no such status maps it to its nearest code.
type Refuser func(w http.ResponseWriter, r *http.Request, status int, msg string)

// JSONRefuse is the default Refuser: {"error": msg, "code": ...} (the admin
// listener's shape).
func JSONRefuse(w http.ResponseWriter, _ *http.Request, status int, msg string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = fmt.Fprintf(w, `{"error":%q,"code":%q}`, msg, RefusalCode(status))
}

// RefusalCode names a refusal status in the codes every pmx error shape
// shares (not_found, invalid_request, rate_limited, ...).
func RefusalCode(status int) string {
	switch status {
	case http.StatusNotFound:
		return "not_found"
	case http.StatusRequestEntityTooLarge:
		return "body_too_large"
	case http.StatusRequestTimeout:
		return "request_timeout"
	case http.StatusTooManyRequests:
		return "rate_limited"
	case http.StatusMethodNotAllowed:
		return "method_not_allowed"
	}
	return "invalid_request"
}

// BodyLimit bounds one request body: its size and the time the whole body
// may take to arrive (from the end of the headers).
type BodyLimit struct {
	Max     int64
	Timeout time.Duration
}

// DefaultBody is the limit of a route that names none: JSON request bodies
// of every pmx service are far below 1 MiB.
var DefaultBody = BodyLimit{Max: 1 << 20, Timeout: 10 * time.Second}

// DefaultBodyReadsPerIP caps the request bodies one client address may be
// reading at once, on each listener.
const DefaultBodyReadsPerIP = 16

// Client faults the guard counts (a metric, never an ERROR log line).
const (
	faultUnclean  = "unclean_path"
	faultTooLarge = "body_too_large"
	faultTimeout  = "body_timeout"
	faultAborted  = "body_unreadable"
	faultBusy     = "body_reads_per_ip"
)

// guard is the listener-level protection in front of every service:
//   - a path that is not clean ("//v2/trades", "/a/../b") is refused with 404
//     in the service's shape instead of ServeMux's text/html redirect;
//   - a declared Content-Length above the route's limit is refused at once,
//     without reading a byte;
//   - the body must arrive within the route's timeout (a connection read
//     deadline, so a stalled client holds nothing past it);
//   - the body is read lazily, through the handler's own reads, so the
//     service charges its IP budget before any byte is read, and only
//     DefaultBodyReadsPerIP bodies per client address are read at once;
//   - a handler that answers without reading the body (a 405, a 401) answers
//     at once and the connection closes: net/http would otherwise read up to
//     256 KiB of the unwanted body before sending the answer;
//   - a body that fails (too large, too slow, aborted, over the per-IP cap)
//     is answered by the guard, in the service's shape, whatever the handler
//     tried to write.
type guard struct {
	name   string
	next   http.Handler
	refuse Refuser
	limit  func(r *http.Request) BodyLimit
	slots  *ipSlots
	fault  func(listener, reason string)
	debug  func(msg string, args ...any)
}

func (g *guard) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if p := r.URL.Path; p == "" || p[0] != '/' || cleanPath(p) != p {
		g.fault(g.name, faultUnclean)
		g.refuse(w, r, http.StatusNotFound, "no such route: the path is not in canonical form")
		return
	}
	if r.Body == nil || r.Body == http.NoBody || r.ContentLength == 0 {
		g.next.ServeHTTP(w, r)
		return
	}
	lim := g.limit(r)
	rc := http.NewResponseController(w)
	if r.ContentLength > lim.Max {
		g.fault(g.name, faultTooLarge)
		w.Header().Set("Connection", "close")
		g.refuse(w, r, http.StatusRequestEntityTooLarge, fmt.Sprintf("request body too large: at most %d bytes", lim.Max))
		_ = rc.SetReadDeadline(aLongTimeAgo) // Close must not wait for the unread body
		return
	}
	_ = rc.SetReadDeadline(time.Now().Add(lim.Timeout))
	// One allocation for the writer and the body (a hot path: every order).
	gw := &guardWriter{ResponseWriter: w, g: g, r: r}
	b := &gw.b
	b.src, b.left, b.slots, b.key = r.Body, lim.Max, g.slots, ratelimit.ClientIP(r)
	gw.body = b
	r.Body = b // in place, as http.MaxBytesReader is used
	g.next.ServeHTTP(gw, r)
	b.release()
	if !gw.wrote && b.failed() != nil {
		gw.WriteHeader(http.StatusOK) // the handler wrote nothing: the guard answers
	}
	if !b.eof() {
		// Unread body: the connection closes (Connection: close was sent);
		// fail the server's discard of the rest at once.
		_ = rc.SetReadDeadline(aLongTimeAgo)
	}
}

var aLongTimeAgo = time.Unix(1, 0)

// cleanPath is ServeMux's notion of a canonical path.
func cleanPath(p string) string {
	np := path.Clean(p)
	if p[len(p)-1] == '/' && np != "/" {
		np += "/"
	}
	return np
}

// errBusy is the failure of a body read over the per-IP cap.
var errBusy = errors.New("too many request bodies in flight from this address")

// guardBody reads the request body through the limit, taking a per-IP read
// slot on the first read.
type guardBody struct {
	src   io.ReadCloser
	left  int64
	slots *ipSlots
	key   string

	mu      sync.Mutex
	held    bool
	started bool
	sawEOF  bool
	err     error // the first failure: *http.MaxBytesError, timeout, errBusy, or the read error
	max     int64
}

func (b *guardBody) Read(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.err != nil {
		return 0, b.err
	}
	if b.sawEOF {
		return 0, io.EOF
	}
	if !b.started {
		b.started, b.max = true, b.left
		if !b.slots.take(b.key) {
			b.err = errBusy
			return 0, b.err
		}
		b.held = true
	}
	if int64(len(p)) > b.left+1 {
		p = p[:b.left+1] // one byte past the limit tells "too large" from "exactly the limit"
	}
	n, err := b.src.Read(p)
	if int64(n) > b.left {
		n = int(b.left)
		b.err = &http.MaxBytesError{Limit: b.max}
		b.releaseLocked()
		return n, b.err
	}
	b.left -= int64(n)
	switch {
	case err == io.EOF:
		b.sawEOF = true
		b.releaseLocked()
	case err != nil:
		b.err = err
		b.releaseLocked()
	}
	return n, err
}

func (b *guardBody) Close() error { return b.src.Close() }

func (b *guardBody) release() {
	b.mu.Lock()
	b.releaseLocked()
	b.mu.Unlock()
}

func (b *guardBody) releaseLocked() {
	if b.held {
		b.held = false
		b.slots.put(b.key)
	}
}

func (b *guardBody) failed() error {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.err
}

func (b *guardBody) eof() bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.sawEOF
}

// guardWriter lets the guard answer for a failed body and closes the
// connection when the answer starts before the body was read to its end.
type guardWriter struct {
	http.ResponseWriter
	g       *guard
	r       *http.Request
	body    *guardBody
	b       guardBody // body's storage
	wrote   bool
	swallow bool // the guard answered; the handler's writes go nowhere
}

func (w *guardWriter) WriteHeader(code int) {
	if w.wrote {
		if !w.swallow {
			w.ResponseWriter.WriteHeader(code)
		}
		return
	}
	w.wrote = true
	if !w.body.eof() {
		w.Header().Set("Connection", "close")
	}
	err := w.body.failed()
	if err == nil {
		w.ResponseWriter.WriteHeader(code)
		return
	}
	w.swallow = true
	h := w.Header()
	for k := range h {
		if k != "Connection" && !strings.EqualFold(k, "x-trace-id") {
			delete(h, k)
		}
	}
	status, msg, reason := w.g.classify(err, w.body.max)
	w.g.fault(w.g.name, reason)
	w.g.debug("request body refused", "listener", w.g.name, "path", w.r.URL.Path, "reason", reason, "err", err)
	if status == http.StatusTooManyRequests {
		h.Set("Retry-After", "1")
	}
	w.g.refuse(w.ResponseWriter, w.r, status, msg)
}

func (w *guardWriter) Write(p []byte) (int, error) {
	if !w.wrote {
		w.WriteHeader(http.StatusOK)
	}
	if w.swallow {
		return len(p), nil
	}
	return w.ResponseWriter.Write(p)
}

// Flush keeps streaming handlers streaming.
func (w *guardWriter) Flush() {
	if !w.swallow {
		_ = http.NewResponseController(w.ResponseWriter).Flush()
	}
}

// Unwrap lets http.ResponseController reach the connection.
func (w *guardWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

func (g *guard) classify(err error, max int64) (status int, msg, reason string) {
	var tooBig *http.MaxBytesError
	var ne net.Error
	switch {
	case errors.As(err, &tooBig):
		return http.StatusRequestEntityTooLarge, fmt.Sprintf("request body too large: at most %d bytes", max), faultTooLarge
	case errors.Is(err, errBusy):
		return http.StatusTooManyRequests, errBusy.Error(), faultBusy
	case errors.As(err, &ne) && ne.Timeout():
		return http.StatusRequestTimeout, "request body not received in time", faultTimeout
	}
	return http.StatusBadRequest, "request body unreadable (incomplete or malformed)", faultAborted
}

// ipSlots counts the bodies being read per client address.
type ipSlots struct {
	mu  sync.Mutex
	max int
	n   map[string]int
}

func newIPSlots(max int) *ipSlots { return &ipSlots{max: max, n: map[string]int{}} }

func (s *ipSlots) take(key string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.n[key] >= s.max {
		return false
	}
	s.n[key]++
	return true
}

func (s *ipSlots) put(key string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.n[key] <= 1 {
		delete(s.n, key)
		return
	}
	s.n[key]--
}

// BodyByRoute is a Listener.Body: the limit of the route "METHOD /path"
// (exact path), or def.
func BodyByRoute(def BodyLimit, routes map[string]BodyLimit) func(r *http.Request) BodyLimit {
	return func(r *http.Request) BodyLimit {
		if l, ok := routes[r.Method+" "+r.URL.Path]; ok {
			return l
		}
		return def
	}
}

// RefuseByPrefix is a Refuser for a listener serving several services'
// routes (the admin listener): the Refuser of the longest matching path
// prefix, or def.
func RefuseByPrefix(def Refuser, byPrefix map[string]Refuser) Refuser {
	return func(w http.ResponseWriter, r *http.Request, status int, msg string) {
		best, f := -1, def
		for p, rf := range byPrefix {
			if strings.HasPrefix(r.URL.Path, p) && len(p) > best {
				best, f = len(p), rf
			}
		}
		f(w, r, status, msg)
	}
}
