// Package perpsvc is the perpetuals exchange as a running service: it owns
// the journaled engine over the perps machine, recovery (replay-cache
// seeding, the in-flight windows in force), the credentials mirror, signed
// trading (verify, charge, submit, resolve held steps), the in-flight pump
// and the WebSocket fan-out with its subscription index. Its goroutines and
// timers live here; perpshttp only translates HTTP and WebSocket frames to
// it. The funding and liquidation drivers belong here too.
//
// Errors it returns are catalogue entries (errors.go); the HTTP status of
// each is in the catalogue, so transports map them once.
package perpsvc

import (
	"errors"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"pmx/internal/crypto/secp"
	"pmx/internal/exchange/engine"
	"pmx/internal/perps/perps"
	"pmx/internal/perps/perpsauth"
)

// Options configures a Service. Zero fields take defaults.
type Options struct {
	Dir   string       // data directory (journal and snapshots); required
	Log   *slog.Logger // default slog.Default()
	Clock func() time.Time
	// DomainName is the EIP-712 domain name (default "Polymarket").
	DomainName string
	// MaxModifies per order (default 10,000); tests lower it.
	MaxModifies int
	// ActionBudget is action weight per account per minute (default 5,000).
	ActionBudget int
	// SnapshotEvery journal records (default 10,000).
	SnapshotEvery uint64
	// RiskDelay, AcceptDelay, TakerDelay, ModifyDelay, NoHeldCancels and
	// COIDWait are the in-flight windows (docs/perps.md), journaled when
	// they change (modes.go) so a replay never depends on them.
	RiskDelay, AcceptDelay, TakerDelay, ModifyDelay time.Duration
	NoHeldCancels                                   bool
	COIDWait                                        time.Duration
	// GroupLinger is engine.Config.JournalLinger (default 3 ms, negative:
	// never).
	GroupLinger time.Duration
	// QueueWait, tests only: runs after a trading command was verified and
	// charged, before its deadline check (the time a command can spend
	// waiting before it is sequenced).
	QueueWait func()
	// FundingInterval is how often funding settles (default 1 h; each
	// settlement applies one hourly rate); PremiumInterval how often the
	// premium is sampled (default 5 s). funding.go.
	FundingInterval, PremiumInterval time.Duration
	// AutoCancelDaily is the auto-cancel triggers allowed per account per
	// UTC day (default 1,000; autocancel.go).
	AutoCancelDaily int
	// CloseOnlyWindow and IndexWindow: settlement's windows (default 30
	// minutes each; retire.go).
	CloseOnlyWindow, IndexWindow time.Duration
	// Money configures withdrawals and the simulated chain (withdraw.go).
	Money MoneyOptions
}

// Service is one perps exchange over one engine.
type Service struct {
	opt   Options
	log   *slog.Logger
	now   func() time.Time
	eng   *engine.Engine[perps.Event]
	ver   *perpsauth.Verifier
	acts  *Buckets
	creds creds
	hub   hub
	reg   regCache // negative answers of Registered (registered.go)

	stop    chan struct{}
	fanDone chan struct{}
	fundOff chan struct{} // closed when the funding driver returned
	// lastKline: the last candle pushed per klines:: channel (the ticker
	// goroutine's only).
	lastKline map[string]string

	recovered atomic.Bool // engine.Open returned: seedReplay is a no-op

	closeOnce sync.Once
	closeErr  error
}

// New opens (or recovers) the exchange in opt.Dir and starts its goroutines.
func New(opt Options) (*Service, error) {
	if opt.Dir == "" {
		return nil, errors.New("perpsvc: Options.Dir is required")
	}
	if opt.Log == nil {
		opt.Log = slog.Default()
	}
	if opt.Clock == nil {
		opt.Clock = time.Now
	}
	if opt.ActionBudget <= 0 {
		opt.ActionBudget = 5000
	}
	if opt.SnapshotEvery == 0 {
		opt.SnapshotEvery = 10000
	}
	if opt.GroupLinger == 0 {
		opt.GroupLinger = 3 * time.Millisecond
	}
	if opt.FundingInterval <= 0 {
		opt.FundingInterval = DefaultFundingInterval
	}
	if opt.PremiumInterval <= 0 {
		opt.PremiumInterval = DefaultPremiumInterval
	}
	if opt.CloseOnlyWindow <= 0 {
		opt.CloseOnlyWindow = perps.DefaultRetireWindow * time.Millisecond
	}
	if opt.IndexWindow <= 0 {
		opt.IndexWindow = perps.DefaultRetireWindow * time.Millisecond
	}
	if opt.AutoCancelDaily <= 0 {
		opt.AutoCancelDaily = perps.DefaultAutoCancelDaily
	}
	s := &Service{opt: opt, log: opt.Log, now: opt.Clock, creds: creds{proxies: map[string]cred{}}}
	s.ver = perpsauth.New(perpsauth.Config{DomainName: opt.DomainName})
	s.acts = NewBuckets(opt.ActionBudget, time.Minute)
	s.hub.init()
	s.stop, s.fanDone, s.fundOff = make(chan struct{}), make(chan struct{}), make(chan struct{})
	// Zero windows: the journal sets them (applyFlight).
	m := perps.New(perps.Config{MaxModifies: opt.MaxModifies, OnReplay: s.seedReplay})
	// No Validate hook: every command is built by this service, and the
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
	err = s.View(func(m *perps.Machine) {
		for _, p := range m.Proxies() {
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
	go s.ticker(s.stop)
	go s.funding(s.stop)
	if pump {
		go s.pump(s.stop)
	}
	s.startChain()
	return s, nil
}

// seedReplay re-seeds the replay cache from journaled commands during
// recovery (Add ignores keys that already expired or are present). Once
// recovered it does nothing: every live command's key was added by its
// verification before it was submitted.
func (s *Service) seedReplay(b []byte) {
	if s.recovered.Load() || len(b) != 32 {
		return
	}
	_ = s.ver.Replay().Add(perpsauth.ReplayKeyFromBytes([32]byte(b)), s.now().UnixMilli())
}

// Close ends every session, stops the goroutines and the engine (everything
// acknowledged is already durable). It is idempotent.
func (s *Service) Close() error {
	s.closeOnce.Do(func() {
		close(s.stop)
		<-s.fundOff // its last command lands before the engine closes
		for _, c := range s.hub.all() {
			if c.kill != nil {
				c.kill("server shutting down", true)
			}
		}
		s.closeErr = s.eng.Close()
		<-s.fanDone
	})
	return s.closeErr
}

// Now is the service clock.
func (s *Service) Now() time.Time { return s.now() }

// Engine is the journaled engine (metrics, tests).
func (s *Service) Engine() *engine.Engine[perps.Event] { return s.eng }

// Verifier is the signed-request verifier (its EIP-712 domain, replay cache).
func (s *Service) Verifier() *perpsauth.Verifier { return s.ver }

// recordBufs are the journal records' encoding buffers, reused once Submit
// returns (records larger than maxPooledRecord are left to the GC).
var recordBufs = sync.Pool{New: func() any { b := make([]byte, 0, 1024); return &b }}

const maxPooledRecord = 16 << 10

// Submit journals and applies c; the single event is the command's outcome.
// Only operator paths and this package build commands.
func (s *Service) Submit(c *perps.Command) (perps.Event, error) {
	bp := recordBufs.Get().(*[]byte)
	rec := c.AppendEncode((*bp)[:0])
	var hint any // the machine applies an order batch as decoded here, not from rec (perps.Machine.ApplyDecoded)
	if c.Kind == perps.KCreateOrders {
		hint = c
	}
	res, err := s.eng.SubmitDecoded(s.now().UnixMilli(), rec, hint)
	if cap(rec) <= maxPooledRecord { // the engine is done with it: the journal copied it, Apply has run
		*bp = rec[:0]
		recordBufs.Put(bp)
	}
	if registers(c.Kind) {
		s.reg.bump() // also on an error: the command may have been applied
	}
	if err != nil {
		return perps.Event{}, err
	}
	return res.Events[0], nil
}

// View runs fn on the apply goroutine (a consistent state). fn must only
// read, and should not encode: build values, encode after View returns.
func (s *Service) View(fn func(m *perps.Machine)) error {
	return s.eng.View(func(mm engine.Machine[perps.Event], _ uint64) { fn(mm.(*perps.Machine)) })
}

// resolve maps an active proxy to its account (perpsauth.Resolver).
func (s *Service) resolve(signer secp.Address, nowMs int64) (secp.Address, bool) {
	p, ok := s.creds.lookup(signer)
	if !ok || !p.Active(nowMs) || !p.acctOK {
		return secp.Address{}, false
	}
	return p.acct, true
}

// Recovered counts the signed ops whose signer was recovered (all of them).
func (s *Service) Recovered() uint64 { return s.ver.Recovered() }
