// Package clobws is the CLOB's WebSocket on the CLOB listener: the market
// channel (/ws/market) and the authenticated user channel (/ws/user) in
// production's message shapes (docs/clob.md "WebSocket"). It parses client
// messages, checks the user channel's credentials and moves frames between
// the socket and the service's session (clobsvc), which derives every frame
// from the engine's results.
package clobws

import (
	"context"
	"encoding/base64"
	"errors"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/coder/websocket"

	"pmx/internal/clob/clobsvc"
	"pmx/internal/tokenbucket"
	"pmx/internal/wsguard"
)

// Credentials checks a user channel's credentials (clobhttp.Handler.Credentials).
type Credentials func(ctx context.Context, apiKey, secret, passphrase string) (bool, error)

// Options configure the sockets. Service and Credentials are required.
type Options struct {
	Service     *clobsvc.Service
	Credentials Credentials
	Log         *slog.Logger
	Idle        time.Duration // no inbound message for this long closes; default 65 s
	MaxConns    int           // open sockets on the listener; default 10,000
	MaxPerIP    int           // open sockets per client IP; default 100
	// ReadLimit is the largest client message; default 1 MiB.
	ReadLimit int64
}

// Limits of inbound messages per client IP (as the perps socket's).
var msgSpec = tokenbucket.Spec{Rate: 17, Burst: 1000} // about 1,000 a minute

// Server serves the two paths.
type Server struct {
	opt  Options
	log  *slog.Logger
	msgs *tokenbucket.Buckets
	mu   sync.Mutex
	open int
	byIP map[string]int
}

// New builds the server.
func New(opt Options) *Server {
	if opt.Idle <= 0 {
		opt.Idle = 65 * time.Second
	}
	if opt.MaxConns <= 0 {
		opt.MaxConns = 10_000
	}
	if opt.MaxPerIP <= 0 {
		opt.MaxPerIP = 100
	}
	if opt.ReadLimit <= 0 {
		opt.ReadLimit = 1 << 20
	}
	s := &Server{opt: opt, log: opt.Log, msgs: tokenbucket.NewBuckets(0), byIP: map[string]int{}}
	if s.log == nil {
		s.log = slog.New(slog.DiscardHandler)
	}
	return s
}

// Routes are the socket routes for the CLOB listener's mux.
func (s *Server) Routes() map[string]http.Handler {
	return map[string]http.Handler{
		"GET /ws/market": http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { s.serve(w, r, false) }),
		"GET /ws/user":   http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { s.serve(w, r, true) }),
	}
}

// Close codes and texts (docs/clob.md "WebSocket").
const (
	invalidOp  = "INVALID OPERATION"
	reasonAuth = "invalid credentials"
	reasonRate = "message rate limited"
	reasonIdle = "idle timeout"
)

func writeErr(w http.ResponseWriter, status int, msg string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	b := []byte(`{"error":"` + msg + `"}`)
	_, _ = w.Write(b)
}

// handshakeOK answers a request that is not a valid WebSocket handshake in
// the CLOB's JSON error shape (the library would answer in plain text).
func handshakeOK(w http.ResponseWriter, r *http.Request) bool {
	switch {
	case !r.ProtoAtLeast(1, 1) || !wsguard.HasToken(r.Header, "Connection", "upgrade") || !wsguard.HasToken(r.Header, "Upgrade", "websocket"):
		w.Header().Set("Connection", "Upgrade")
		w.Header().Set("Upgrade", "websocket")
		writeErr(w, http.StatusUpgradeRequired, "websocket upgrade required")
		return false
	case r.Header.Get("Sec-WebSocket-Version") != "13":
		w.Header().Set("Sec-WebSocket-Version", "13")
		writeErr(w, http.StatusBadRequest, "Sec-WebSocket-Version must be 13")
		return false
	}
	keys := r.Header.Values("Sec-WebSocket-Key")
	if len(keys) != 1 {
		writeErr(w, http.StatusBadRequest, "exactly one Sec-WebSocket-Key is required")
		return false
	}
	if v, err := base64.StdEncoding.DecodeString(strings.TrimSpace(keys[0])); err != nil || len(v) != 16 {
		writeErr(w, http.StatusBadRequest, "Sec-WebSocket-Key must be 16 bytes in base64")
		return false
	}
	return true
}

func clientIP(r *http.Request) string {
	if h, _, err := net.SplitHostPort(r.RemoteAddr); err == nil {
		return h
	}
	return r.RemoteAddr
}

// admit counts a new socket against the limits; release undoes it.
func (s *Server) admit(ip string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.open >= s.opt.MaxConns || s.byIP[ip] >= s.opt.MaxPerIP {
		return false
	}
	s.open++
	s.byIP[ip]++
	return true
}

func (s *Server) release(ip string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.open--
	if s.byIP[ip]--; s.byIP[ip] <= 0 {
		delete(s.byIP, ip)
	}
}

// conn is one socket.
type conn struct {
	s    *Server
	c    *websocket.Conn
	ip   string
	user bool
	sess *clobsvc.StreamSession
}

func (s *Server) serve(w http.ResponseWriter, r *http.Request, user bool) {
	if !handshakeOK(w, r) {
		return
	}
	ip := clientIP(r)
	if !s.admit(ip) {
		writeErr(w, http.StatusTooManyRequests, "too many websocket connections")
		return
	}
	defer s.release(ip)
	guard := &wsguard.Guard{Limit: uint64(s.opt.ReadLimit)}
	c, err := websocket.Accept(&wsguard.Writer{ResponseWriter: w, G: guard}, r, &websocket.AcceptOptions{InsecureSkipVerify: true})
	if err != nil {
		return
	}
	c.SetReadLimit(s.opt.ReadLimit)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	k := &conn{s: s, c: c, ip: ip, user: user}
	k.sess = s.opt.Service.NewStreamSession(user, func(reason string, shutdown bool) {
		if shutdown {
			c.Close(websocket.StatusGoingAway, reason)
		} else {
			c.Close(websocket.StatusPolicyViolation, reason)
		}
	})
	defer k.sess.Close()
	go k.writer(ctx, cancel)
	// Idle close: a timer reset by every inbound message (a read deadline
	// would tear the connection down without a close reason).
	idle := time.AfterFunc(s.opt.Idle, func() { c.Close(websocket.StatusPolicyViolation, reasonIdle) })
	defer idle.Stop()
	for {
		_, data, err := c.Read(ctx)
		if err != nil {
			c.Close(guard.CloseCode())
			return
		}
		idle.Reset(s.opt.Idle)
		if v := s.msgs.Take(ip, msgSpec, 1, time.Now()); !v.OK {
			c.Close(websocket.StatusPolicyViolation, reasonRate)
			return
		}
		if !k.handle(ctx, data) {
			return
		}
	}
}

func (k *conn) writer(ctx context.Context, cancel context.CancelFunc) {
	for {
		select {
		case <-ctx.Done():
			return
		case b := <-k.sess.Out():
			wctx, stop := context.WithTimeout(ctx, 10*time.Second)
			err := k.c.Write(wctx, websocket.MessageText, b)
			stop()
			if err != nil {
				cancel()
				return
			}
		}
	}
}

// handle answers one message; false ends the connection.
func (k *conn) handle(ctx context.Context, data []byte) bool {
	if t := strings.TrimSpace(string(data)); strings.EqualFold(t, "PING") {
		k.sess.Reply([]byte("PONG"))
		return true
	}
	m, err := Parse(data, k.user)
	if err != nil {
		k.sess.Reply([]byte(invalidOp))
		return true
	}
	if !k.user {
		err = k.sess.SubscribeAssets(m.Assets, m.Op != "unsubscribe")
	} else if m.Type != "" {
		ok, cerr := k.s.opt.Credentials(ctx, m.Auth.APIKey, m.Auth.Secret, m.Auth.Passphrase)
		switch {
		case cerr != nil:
			k.s.log.Error("clob websocket credentials", "err", cerr)
			k.c.Close(websocket.StatusInternalError, "internal error")
			return false
		case !ok:
			k.c.Close(websocket.StatusPolicyViolation, reasonAuth)
			return false
		}
		err = k.sess.AuthUser(m.Auth.APIKey, m.Markets)
	} else if k.sess.UserKey() == "" {
		err = ErrInvalid // an update before the authenticated subscription
	} else {
		err = k.sess.FilterMarkets(m.Markets, m.Op == "subscribe")
	}
	switch {
	case errors.Is(err, clobsvc.ErrStreamClosed):
		return false
	case errors.Is(err, clobsvc.ErrNotReady):
		k.c.Close(websocket.StatusTryAgainLater, "engine replaying")
		return false
	case err != nil:
		k.sess.Reply([]byte(invalidOp))
	}
	return true
}
