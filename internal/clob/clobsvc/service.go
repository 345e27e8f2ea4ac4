// Package clobsvc is the CLOB exchange service: it owns the journaled
// engine around clobengine's machine (replayed in the background, so the
// trading routes can answer 425 meanwhile), keeps the markets in step with
// the catalog, and runs the timers: expiries and delayed orders, heartbeats,
// tier recomputation. clobhttp only translates HTTP to it.
package clobsvc

import (
	"context"
	"errors"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"pmx/internal/chain"
	"pmx/internal/clob/clob"
	"pmx/internal/clob/clobengine"
	"pmx/internal/clock"
	"pmx/internal/data/ledger"
	"pmx/internal/exchange/engine"
	"pmx/internal/tokenbucket"
)

// Clock is the time source.
type Clock interface{ Now() time.Time }

// MarketSource lists the catalog's order-book markets.
type MarketSource func(ctx context.Context) ([]clob.Market, error)

// Options configure the service.
type Options struct {
	Dir     string // engine journal and snapshots
	Markets MarketSource
	Clock   Clock
	Log     *slog.Logger
	ChainID uint64 // default 137
	// Chain is the simulated chain a trade settles on (MATCHED while pending,
	// then MINED, then CONFIRMED); zero fields take the chain's defaults.
	Chain chain.Params
	// Heartbeat is how long after the last heartbeat a key's orders are
	// canceled; default 10 s.
	Heartbeat time.Duration
	// SyncEvery re-reads the catalog's markets; default 30 s, <0 never.
	SyncEvery time.Duration
	// Limits is the per-signer bucket mode: "enforce" (default), "warn", "off".
	Limits string
	// SnapshotEvery is the engine's snapshot interval in commands (default 10,000).
	SnapshotEvery uint64
	// Engine carries engine settings (journal sync hooks in tests); Dir and
	// SnapshotEvery are set from the fields above. JournalLinger 0 means
	// 3 ms, negative never: a group commit that follows a group of several
	// commands may wait that long for more while commands keep arriving,
	// which cuts the fdatasyncs per order under load (as in perps).
	Engine engine.Config
	// Gate, when set, holds the engine's opening until it is closed (tests
	// use it to observe the replay window).
	Gate <-chan struct{}
	// Ledger, when set, receives every fill and operator split/merge as
	// ledger events (the CLOB → ledger feed, docs/clob.md).
	Ledger Ledger
	// StreamQueue is each WebSocket session's queue in frames (default
	// StreamQueue); a session that falls that far behind is closed.
	StreamQueue int
	// AutoRedeem is how long after a market's resolution its remaining
	// holders are redeemed automatically; default 1 h, <0 never.
	AutoRedeem time.Duration
	// BookTops, when set, receives the markets' book tops whose figures
	// changed, at most once per BookTopsEvery (default 250 ms) and once more
	// at Close: what PostgreSQL read nodes show (booktops.go).
	BookTops      BookTopSink
	BookTopsEvery time.Duration
}

// Service is the running exchange.
type Service struct {
	opt       Options
	clock     Clock
	log       *slog.Logger
	Domains   *clob.Domains
	eng       atomic.Pointer[engine.Engine[clobengine.Result]]
	openErr   atomic.Pointer[error]
	ready     chan struct{}
	markets   atomic.Pointer[marketIndex]
	buckets   *tokenbucket.Buckets
	tiers     sync.Map // signer -> int (computed tier), refreshed every 3 h
	hbMu      sync.Mutex
	hb        map[string]time.Time // api key -> last heartbeat
	hbSeq     atomic.Uint64
	stop      chan struct{}
	wg        sync.WaitGroup
	syncMu    sync.Mutex // serialises SyncMarkets
	closeOnce sync.Once
	closeErr  error
	feedWG    sync.WaitGroup // the ledger feed and the WebSocket fan-out, which outlive the engine's last command
	feedEvs   []ledger.Event // the ledger feed's event buffer (deliver; the feed goroutine's)
	hub       streamHub      // WebSocket sessions (stream.go)
	bookVer   atomic.Uint64  // moves after every applied command: the catalog's live generation (BookLive)
}

// ErrNotReady is returned while the journal replays.
var ErrNotReady = clob.E(clob.ErrTooEarly)

// Open starts the service; the engine opens (replays) in the background.
func Open(opt Options) *Service {
	if opt.ChainID == 0 {
		opt.ChainID = 137
	}
	if opt.Heartbeat <= 0 {
		opt.Heartbeat = 10 * time.Second
	}
	if opt.SyncEvery == 0 {
		opt.SyncEvery = 30 * time.Second
	}
	if opt.AutoRedeem == 0 {
		opt.AutoRedeem = time.Hour
	}
	if opt.Limits == "" {
		opt.Limits = "enforce"
	}
	if opt.StreamQueue <= 0 {
		opt.StreamQueue = StreamQueue
	}
	if opt.SnapshotEvery == 0 {
		opt.SnapshotEvery = 10_000
	}
	switch {
	case opt.Engine.JournalLinger == 0:
		opt.Engine.JournalLinger = 3 * time.Millisecond
	case opt.Engine.JournalLinger < 0:
		opt.Engine.JournalLinger = 0
	}
	s := &Service{opt: opt, clock: opt.Clock, log: opt.Log, Domains: clob.NewDomains(opt.ChainID),
		ready: make(chan struct{}), buckets: tokenbucket.NewBuckets(0), hb: map[string]time.Time{}, stop: make(chan struct{})}
	if s.clock == nil {
		s.clock = clock.System{}
	}
	if s.log == nil {
		s.log = slog.New(slog.DiscardHandler)
	}
	s.markets.Store(&marketIndex{})
	s.hub.sessions, s.hub.byAsset, s.hub.byKey = map[*StreamSession]struct{}{}, map[string]map[*StreamSession]struct{}{}, map[string]map[*StreamSession]struct{}{}
	s.hub.seeds = map[uint32]*sentBook{}
	s.wg.Add(1)
	go s.start()
	return s
}

func (s *Service) start() {
	defer s.wg.Done()
	if s.opt.Gate != nil {
		<-s.opt.Gate
	}
	cfg := s.opt.Engine
	cfg.Dir, cfg.SnapshotEvery = s.opt.Dir, s.opt.SnapshotEvery
	e, _, err := engine.Open[clobengine.Result](cfg, clobengine.New(clobengine.Config{}))
	if err != nil {
		s.openErr.Store(&err)
		s.log.Error("clob engine failed to open", "err", err)
		close(s.ready)
		return
	}
	s.eng.Store(e)
	s.refreshIndex()
	if s.opt.Ledger != nil {
		s.feedWG.Add(1)
		go s.feed(e.Subscribe(feedBuffer))
	}
	s.startStream(e)
	if s.opt.Markets != nil {
		// Before Ready: a book route must not 404 a catalog market just
		// because the first sync has not run yet.
		if err := s.SyncMarkets(context.Background()); err != nil {
			s.log.Warn("clob market sync", "err", err)
		}
	}
	close(s.ready)
	if err := s.RecomputeTiers(); err != nil {
		s.log.Warn("clob tiers", "err", err)
	}
	s.wg.Add(1)
	go s.loop()
	if s.opt.BookTops != nil {
		s.wg.Add(1)
		go s.publishTops()
	}
}

// Ready is closed once the engine has replayed and the initial market sync
// has run (or the engine failed to open).
func (s *Service) Ready() <-chan struct{} { return s.ready }

// Err is the engine's open error, if it failed.
func (s *Service) Err() error {
	if p := s.openErr.Load(); p != nil {
		return *p
	}
	return nil
}

// Close stops the timers and the engine, then waits for the ledger feed
// to deliver what the engine applied. Calling it again returns the first
// call's error.
func (s *Service) Close() error {
	s.closeOnce.Do(func() {
		<-s.ready
		close(s.stop)
		s.closeStreams()
		s.wg.Wait()
		if e := s.eng.Load(); e != nil {
			s.closeErr = e.Close()
		}
		s.feedWG.Wait()
	})
	return s.closeErr
}

// now is the service clock in Unix ms.
func (s *Service) now() int64 { return s.clock.Now().UnixMilli() }

// Now is the service clock.
func (s *Service) Now() time.Time { return s.clock.Now() }

// Submit journals and applies one command and returns its result; 425
// (ErrTooEarly) while the engine replays.
func (s *Service) Submit(c *clobengine.Command) (clobengine.Result, error) {
	e := s.eng.Load()
	if e == nil {
		return clobengine.Result{}, ErrNotReady
	}
	b, err := clobengine.Encode(c)
	if err != nil {
		return clobengine.Result{}, err
	}
	res, err := e.Submit(s.now(), b)
	if err != nil {
		return clobengine.Result{}, err
	}
	if len(res.Events) != 1 {
		return clobengine.Result{}, errors.New("clobsvc: command without a result")
	}
	r := res.Events[0]
	s.bookVer.Add(1)
	if (c.Op == clobengine.OpMarket || c.Op == clobengine.OpTickSize) && r.Err == nil {
		s.refreshIndex()
	}
	return r, nil
}

// View runs fn on the engine goroutine with the machine; 425 while the
// engine replays.
func (s *Service) View(fn func(m *clobengine.Machine)) error {
	e := s.eng.Load()
	if e == nil {
		return ErrNotReady
	}
	return e.View(func(m engine.Machine[clobengine.Result], _ uint64) { fn(m.(*clobengine.Machine)) })
}

// Hash is the machine's state hash (tests compare it across restarts).
func (s *Service) Hash() ([32]byte, error) {
	e := s.eng.Load()
	if e == nil {
		return [32]byte{}, ErrNotReady
	}
	h, _, err := e.Hash()
	return h, err
}

// loop runs the timers: ticks for expiries and delayed orders, heartbeat
// cancels, catalog syncs.
func (s *Service) loop() {
	defer s.wg.Done()
	t := time.NewTicker(250 * time.Millisecond)
	defer t.Stop()
	lastSync, lastTiers := time.Now(), time.Now()
	for {
		select {
		case <-s.stop:
			return
		case <-t.C:
		}
		s.Tick()
		if time.Since(lastTiers) >= TierRefresh {
			lastTiers = time.Now()
			_ = s.RecomputeTiers()
		}
		if s.opt.SyncEvery > 0 && time.Since(lastSync) >= s.opt.SyncEvery && s.opt.Markets != nil {
			lastSync = time.Now()
			if err := s.SyncMarkets(context.Background()); err != nil {
				s.log.Warn("clob market sync", "err", err)
			}
		}
	}
}

// Tick does what the service clock has made due: a tick command when an
// expiry or a delayed order is due, the automatic redemptions and the
// heartbeat cancels. Tests call it after moving their clock.
func (s *Service) Tick() {
	var due int64
	var redeem []string
	if err := s.View(func(m *clobengine.Machine) {
		due = m.NextDue()
		if s.opt.AutoRedeem > 0 {
			redeem = m.RedeemDue(s.now(), s.opt.AutoRedeem.Milliseconds())
		}
	}); err != nil {
		return
	}
	for _, cond := range redeem {
		if _, err := s.Submit(&clobengine.Command{Op: clobengine.OpRedeemAll, Cond: cond}); err != nil {
			s.log.Warn("clob automatic redemption", "err", err)
		}
	}
	if due > 0 && due <= s.now() {
		if _, err := s.Submit(&clobengine.Command{Op: clobengine.OpTick}); err != nil {
			s.log.Warn("clob tick", "err", err)
		}
	}
	for _, key := range s.expiredHeartbeats() {
		if _, err := s.Submit(&clobengine.Command{Op: clobengine.OpCancelAll, APIKey: key}); err != nil {
			s.log.Warn("clob heartbeat cancel", "err", err)
		}
	}
}

// Chain is the simulated chain trades settle on (MATCHED -> MINED -> CONFIRMED).
func (s *Service) Chain() chain.Params { return s.opt.Chain }

// Replaying reports whether the engine is still opening (trading answers 425).
func (s *Service) Replaying() bool { return s.eng.Load() == nil }
