// Package perpshttp is the perpetuals exchange's HTTP API (REST under /v1),
// its WebSocket /v1/ws and its operator API. It parses, rate-limits by IP and
// translates to the service (internal/perps/perpsvc), which verifies,
// journals and fans out; errors are the service's catalogue, mapped to HTTP
// in one place (errors.go).
package perpshttp

import (
	"encoding/json"
	"errors"
	"log/slog"
	"net/http"
	"strconv"
	"time"

	"pmx/internal/exchange/engine"
	"pmx/internal/perps/perps"
	"pmx/internal/perps/perpsauth"
	"pmx/internal/perps/perpsvc"
)

// Options configures a Server. Zero fields take defaults.
type Options struct {
	Dir   string       // data directory (journal and snapshots); required
	Log   *slog.Logger // default slog.Default()
	Clock func() time.Time
	// DomainName is the EIP-712 domain name (default "Polymarket").
	DomainName string
	// WSAckGap is the pause between a WebSocket trading ack and the pushes
	// it caused (default DefaultAckGap; negative: none).
	WSAckGap time.Duration
	// Money: withdrawal fee, confirmations and block time (perpsvc.MoneyOptions).
	Money perpsvc.MoneyOptions
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
	// FundingInterval and PremiumInterval drive funding (perpsvc; default
	// 1 h and 5 s).
	FundingInterval, PremiumInterval time.Duration
	// AutoCancelDaily: auto-cancel triggers per account per UTC day
	// (default 1,000).
	AutoCancelDaily int
	// CloseOnlyWindow and IndexWindow: settlement's two windows (default
	// 30 minutes each; perpsvc retire.go).
	CloseOnlyWindow, IndexWindow time.Duration

	// queueWait, tests only: runs after a trading command was verified and
	// charged, before its deadline check. It stands for the time a command
	// can spend waiting before it is sequenced, which no real option can
	// stretch deterministically.
	queueWait func()
}

// Server is the perps API over one service: it translates HTTP and
// WebSocket frames to perpsvc and its answers back.
type Server struct {
	opt    Options
	log    *slog.Logger
	now    func() time.Time
	svc    *perpsvc.Service
	eng    *engine.Engine[perps.Event] // svc's engine (tests, benchmarks)
	ver    *perpsauth.Verifier         // svc's verifier (EIP-712 domain, tests)
	ip     *perpsvc.Buckets
	wsMsgs *perpsvc.Buckets
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
	if opt.WSIdle <= 0 {
		opt.WSIdle = 65 * time.Second
	}
	if opt.WSAckGap == 0 {
		opt.WSAckGap = DefaultAckGap
	}
	if opt.WSMessages <= 0 {
		opt.WSMessages = 1000
	}
	svc, err := perpsvc.New(perpsvc.Options{Dir: opt.Dir, Log: opt.Log, Clock: opt.Clock, DomainName: opt.DomainName,
		MaxModifies: opt.MaxModifies, ActionBudget: opt.ActionBudget,
		SnapshotEvery: opt.SnapshotEvery, RiskDelay: opt.RiskDelay, AcceptDelay: opt.AcceptDelay,
		TakerDelay: opt.TakerDelay, ModifyDelay: opt.ModifyDelay, NoHeldCancels: opt.NoHeldCancels,
		COIDWait: opt.COIDWait, GroupLinger: opt.GroupLinger, QueueWait: opt.queueWait,
		FundingInterval: opt.FundingInterval, PremiumInterval: opt.PremiumInterval, AutoCancelDaily: opt.AutoCancelDaily,
		CloseOnlyWindow: opt.CloseOnlyWindow, IndexWindow: opt.IndexWindow, Money: opt.Money})
	if err != nil {
		return nil, err
	}
	return &Server{opt: opt, log: opt.Log, now: opt.Clock, svc: svc, eng: svc.Engine(), ver: svc.Verifier(),
		ip: perpsvc.NewBuckets(opt.IPBudget, time.Minute), wsMsgs: perpsvc.NewBuckets(opt.WSMessages, time.Minute)}, nil
}

// Service is the exchange behind the API.
func (s *Server) Service() *perpsvc.Service { return s.svc }

// Close ends open WebSockets and stops the service (everything acknowledged
// is already durable). Close is idempotent.
func (s *Server) Close() error { return s.svc.Close() }

// submit journals and applies c (operator routes).
func (s *Server) submit(c *perps.Command) (perps.Event, error) { return s.svc.Submit(c) }

// viewJSON answers 200 with what read returns, read on the apply goroutine
// (a consistent state) and encoded after, or the engine's error.
func viewJSON[T any](s *Server, w http.ResponseWriter, read func(m *perps.Machine) T) {
	var out T
	if err := s.view(func(m *perps.Machine) { out = read(m) }); err != nil {
		s.engineErr(w, err, false)
		return
	}
	writeJSON(w, 200, out)
}

// view runs fn on the apply goroutine.
func (s *Server) view(fn func(m *perps.Machine)) error { return s.svc.View(fn) }

type errBody struct {
	Status string `json:"status"`
	Error  string `json:"error,omitempty"` // absent on {status:"ok"} (WebSocket acks)
}

// jsonContentType is shared by every answer (Header.Set would allocate
// it per response); net/http only reads it, and an Add copies on append.
var jsonContentType = []string{"application/json"}

func writeJSON(w http.ResponseWriter, code int, v any) {
	w.Header()["Content-Type"] = jsonContentType
	w.WriteHeader(code)
	if acks, ok := v.([]perps.Ack); ok && writeAcks(w, acks) {
		return
	}
	_ = json.NewEncoder(w).Encode(v)
}

// writeErr writes an error body with a status: the query parsers of info.go
// (their texts are catalogue entry CodeInvalidQuery's; everything else goes
// through writeError or writeCatalogued).
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
	s.writeError(w, perpsvc.E(perpsvc.CodeUnavailable, ""), batch)
}
