// Package perpshttp is the perpetuals exchange's HTTP API (REST under /v1)
// and its operator API. It authenticates (internal/perps/perpsauth), rate-limits,
// turns requests into perps commands and submits them through the journaled
// engine: nothing is acknowledged before its command is durable. Reads run on
// the engine's apply goroutine through engine.View.
package perpshttp

import (
	"encoding/json"
	"errors"
	"log/slog"
	"net/http"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/coder/websocket"

	"pmx/internal/crypto/secp"
	"pmx/internal/exchange/engine"
	"pmx/internal/perps/perps"
	"pmx/internal/perps/perpsauth"
)

// Options configures a Server. Zero fields take defaults.
type Options struct {
	Dir   string       // data directory (journal and snapshots); required
	Log   *slog.Logger // default slog.Default()
	Clock func() time.Time
	// DomainName is the EIP-712 domain name (default "Polymarket").
	DomainName string
	// KnownKeys is perpsauth.Config.KnownKeys (0: default 256, <0: off).
	KnownKeys int
	// MaxModifies per order (default 10,000); tests lower it.
	MaxModifies int
	// IPBudget is request weight per IP per minute (default 1,000);
	// ActionBudget action weight per account per minute (default 5,000).
	IPBudget, ActionBudget int
	// SnapshotEvery journal records (default 10,000).
	SnapshotEvery uint64
	// WSIdle closes a WebSocket with no inbound message for this long
	// (default 65 s).
	WSIdle time.Duration
	// WSMessages is inbound WebSocket message weight per IP per minute
	// (default 1,000).
	WSMessages int
	// RiskDelay, AcceptDelay, TakerDelay and ModifyDelay open the in-flight
	// windows of the order lifecycle (docs/perps.md; default 0: orders enter
	// the book and modifies apply in their own step); NoHeldCancels answers
	// order_in_flight instead of holding a cancel during an accept. They are
	// journaled when they change (modes.go), so a replay never depends on them.
	RiskDelay, AcceptDelay, TakerDelay, ModifyDelay time.Duration
	NoHeldCancels                                   bool
	// COIDWait is how long a cancel-by-coid naming an unknown coid waits for
	// a racing create before order_unknown (production: ~100 ms; default 0).
	COIDWait time.Duration
	// GroupLinger is how long a journal group commit may wait for more
	// concurrent commands (engine.Config.JournalLinger; default 3 ms,
	// negative: never). Only a group that follows a group of several
	// commands waits, and only while commands keep arriving: under load it
	// cuts the fdatasyncs per order several-fold (docs/perf/perps.md),
	// a lone client never waits.
	GroupLinger time.Duration

	// queueWait, tests only: runs after a trading command was verified and
	// charged, before its deadline check. It stands for the time a command
	// can spend waiting before it is sequenced, which no real option can
	// stretch deterministically.
	queueWait func()
}

// Server is the perps API over one engine.
type Server struct {
	opt   Options
	log   *slog.Logger
	now   func() time.Time
	eng   *engine.Engine[perps.Event]
	ver   *perpsauth.Verifier
	ip    *buckets
	acts  *buckets
	creds creds

	wsMsgs  *buckets
	hub     hub
	stop    chan struct{}
	fanDone chan struct{}
	// lastKline: the last candle pushed per klines:: channel (bookTicker's
	// goroutine only).
	lastKline map[string]string

	recovered atomic.Bool // engine.Open returned: seedReplay is a no-op

	closeOnce sync.Once
	closeErr  error
}

// creds mirrors the machine's proxies for authentication without a trip
// through the engine. Only this server submits proxy commands, so updating
// the mirror after each accepted one keeps it exact.
type creds struct {
	mu      sync.RWMutex
	proxies map[string]perps.Proxy
}

func (c *creds) get(addr string) (perps.Proxy, bool) {
	c.mu.RLock()
	p, ok := c.proxies[addr]
	c.mu.RUnlock()
	return p, ok
}

func (c *creds) put(p perps.Proxy) {
	c.mu.Lock()
	c.proxies[p.Addr] = p
	c.mu.Unlock()
}

// New opens (or recovers) the exchange in opt.Dir.
func New(opt Options) (*Server, error) {
	if opt.Dir == "" {
		return nil, errors.New("perpshttp: Options.Dir is required")
	}
	if opt.Log == nil {
		opt.Log = slog.Default()
	}
	if opt.Clock == nil {
		opt.Clock = time.Now
	}
	if opt.IPBudget <= 0 {
		opt.IPBudget = 1000
	}
	if opt.ActionBudget <= 0 {
		opt.ActionBudget = 5000
	}
	if opt.WSIdle <= 0 {
		opt.WSIdle = 65 * time.Second
	}
	if opt.WSMessages <= 0 {
		opt.WSMessages = 1000
	}
	if opt.SnapshotEvery == 0 {
		opt.SnapshotEvery = 10000
	}
	if opt.GroupLinger == 0 {
		opt.GroupLinger = 3 * time.Millisecond
	}
	s := &Server{opt: opt, log: opt.Log, now: opt.Clock, creds: creds{proxies: map[string]perps.Proxy{}}}
	s.ver = perpsauth.New(perpsauth.Config{DomainName: opt.DomainName, KnownKeys: opt.KnownKeys})
	s.ip = newBuckets(opt.IPBudget, time.Minute)
	s.acts = newBuckets(opt.ActionBudget, time.Minute)
	s.wsMsgs = newBuckets(opt.WSMessages, time.Minute)
	s.hub.conns = map[*wsConn]struct{}{}
	s.stop, s.fanDone = make(chan struct{}), make(chan struct{})
	// Zero windows: the journal sets them (applyFlight).
	m := perps.New(perps.Config{MaxModifies: opt.MaxModifies, OnReplay: s.seedReplay})
	// No Validate hook: every command is built by this package, and the
	// machine answers a malformed one with an event anyway.
	eng, rec, err := engine.Open(engine.Config{Dir: opt.Dir, SnapshotEvery: opt.SnapshotEvery,
		JournalLinger: max(opt.GroupLinger, 0)},
		engine.Machine[perps.Event](m))
	if err != nil {
		return nil, err
	}
	s.eng = eng
	s.recovered.Store(true)
	s.log.Info("perps recovered", "snapshot", rec.SnapshotSeq, "replayed", rec.Replayed)
	err = eng.View(func(mm engine.Machine[perps.Event], _ uint64) {
		for _, p := range mm.(*perps.Machine).Proxies() {
			s.creds.put(p)
		}
	})
	var pump bool
	if err == nil {
		pump, err = s.applyFlight()
	}
	if err != nil {
		eng.Close()
		return nil, err
	}
	go s.fanout(s.stop)
	go s.bookTicker(s.stop)
	if pump {
		go s.pump(s.stop)
	}
	return s, nil
}

// seedReplay re-seeds the replay cache from journaled commands during
// recovery (Add ignores keys that already expired or are present). Once
// recovered it does nothing: every live command's key was added by its
// verification before it was submitted.
func (s *Server) seedReplay(b []byte) {
	if s.recovered.Load() || len(b) != 32 {
		return
	}
	_ = s.ver.Replay().Add(perpsauth.ReplayKeyFromBytes([32]byte(b)), s.now().UnixMilli())
}

// Close stops the engine (everything acknowledged is already durable).
// Open WebSockets are closed first.
// Close is idempotent.
func (s *Server) Close() error {
	s.closeOnce.Do(func() { s.closeErr = s.close() })
	return s.closeErr
}

func (s *Server) close() error {
	close(s.stop)
	for _, c := range s.conns() {
		c.c.Close(websocket.StatusGoingAway, "server shutting down")
	}
	err := s.eng.Close()
	<-s.fanDone
	return err
}

// submit journals and applies c; the single event is the command's outcome.
func (s *Server) submit(c *perps.Command) (perps.Event, error) {
	res, err := s.eng.Submit(s.now().UnixMilli(), c.Encode())
	if err != nil {
		return perps.Event{}, err
	}
	return res.Events[0], nil
}

// viewJSON answers 200 with what read returns, read on the apply goroutine
// (a consistent state), or the engine's error.
func viewJSON[T any](s *Server, w http.ResponseWriter, read func(m *perps.Machine) T) {
	var out T
	if err := s.view(func(m *perps.Machine) { out = read(m) }); err != nil {
		s.engineErr(w, err, false)
		return
	}
	writeJSON(w, 200, out)
}

// view runs fn on the apply goroutine.
func (s *Server) view(fn func(m *perps.Machine)) error {
	return s.eng.View(func(mm engine.Machine[perps.Event], _ uint64) { fn(mm.(*perps.Machine)) })
}

// resolve maps an active proxy to its account (perpsauth.Resolver).
func (s *Server) resolve(signer secp.Address, nowMs int64) (secp.Address, bool) {
	p, ok := s.creds.get(signer.Hex())
	if !ok || !p.Active(nowMs) {
		return secp.Address{}, false
	}
	a, err := secp.ParseAddress(p.Account)
	return a, err == nil
}

type errBody struct {
	Status string `json:"status"`
	Error  string `json:"error,omitempty"` // absent on {status:"ok"} (WebSocket acks)
}

func writeJSON(w http.ResponseWriter, code int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	if acks, ok := v.([]perps.Ack); ok && writeAcks(w, acks) {
		return
	}
	_ = json.NewEncoder(w).Encode(v)
}

func writeErr(w http.ResponseWriter, code int, msg string) {
	writeJSON(w, code, errBody{Status: "err", Error: msg})
}

// writeErrBatch answers a whole-request rejection on a batch route: a
// one-element array.
func writeErrBatch(w http.ResponseWriter, code int, msg string) {
	writeJSON(w, code, []errBody{{Status: "err", Error: msg}})
}

func retryAfter(w http.ResponseWriter, d time.Duration) {
	sec := int64((d + time.Second - 1) / time.Second)
	if sec < 1 {
		sec = 1
	}
	w.Header().Set("Retry-After", strconv.FormatInt(sec, 10))
}

// engineErr answers a failed Submit or View: the engine is closed or its
// journal failed; the outcome is unknown to the client.
func (s *Server) engineErr(w http.ResponseWriter, err error, batch bool) {
	s.log.Error("perps engine", "err", err)
	if batch {
		writeErrBatch(w, http.StatusServiceUnavailable, "service_unavailable")
		return
	}
	writeErr(w, http.StatusServiceUnavailable, "service_unavailable")
}
