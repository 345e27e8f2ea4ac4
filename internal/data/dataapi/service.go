package dataapi

import (
	"cmp"
	"log/slog"
	"net/http"
	"runtime"
	"time"

	"pmx/internal/clock"
	"pmx/internal/data/store"
	"pmx/internal/ratelimit"
)

// Options configures the data service. Zero values take the defaults.
type Options struct {
	Store     store.Store
	CursorKey []byte
	Log       *slog.Logger
	// Clock drives "now" for windows and the deadline; nil = system clock.
	Clock clock.Clock
	// RequestTimeout bounds each request (503 request_timeout). Default 10 s.
	RequestTimeout time.Duration
	// HeavySlots/HeavyWait size the heavy-query queue. Defaults: 2×CPU
	// slots, 2 s wait.
	HeavySlots int
	HeavyWait  time.Duration
	// DBSlots/DBWait size the database-acquire budget every route passes
	// (after the heavy queue): a request that cannot get a database slot
	// within DBWait is 503 request_timeout with Retry-After, never a 429.
	// Defaults: max(CPU, 2) slots — the embedded store's read pool, so a
	// slot is a connection — and a 1 s wait. Set DBSlots to the pool size of
	// any other store.
	DBSlots int
	DBWait  time.Duration
	// Limits is the per-client (IP) allowance; nil = ratelimit.DataDefaults,
	// a config with no rules = no per-client limit (benchmarks, local use).
	Limits *ratelimit.Config
	// PageCacheBytes bounds the page cache (pagecache.go) of the wallet
	// routes, value, holders and the boards; 0 = DefaultPageCacheBytes,
	// negative = off. The cache is on only when the store implements
	// Generational.
	PageCacheBytes int64
}

// Service is the data service v2 handler.
type Service struct {
	store   store.Store
	cursors *Cursors
	clock   clock.Clock
	mux     *Mux
	handler http.Handler
	pages   *pageCache // nil: off
}

// New builds the data service. It panics on a bad cursor key or limiter
// configuration, which are programming errors in the caller's wiring.
func New(o Options) *Service {
	if o.Clock == nil {
		o.Clock = clock.System{}
	}
	if o.RequestTimeout == 0 {
		o.RequestTimeout = 10 * time.Second
	}
	if o.HeavySlots == 0 {
		o.HeavySlots = 8
	}
	if o.HeavyWait == 0 {
		o.HeavyWait = 2 * time.Second
	}
	if o.DBSlots == 0 {
		o.DBSlots = max(runtime.NumCPU(), 2)
	}
	if o.DBWait == 0 {
		o.DBWait = time.Second
	}
	cur, err := NewCursors(o.CursorKey)
	if err != nil {
		panic(err)
	}
	limits := ratelimit.DataDefaults()
	if o.Limits != nil {
		limits = *o.Limits
	}
	var lim *ratelimit.Limiter
	if len(limits.Rules) > 0 {
		var err error
		if lim, err = ratelimit.New(limits, o.Clock); err != nil {
			panic(err)
		}
	}
	s := &Service{store: o.Store, cursors: cur, clock: o.Clock, mux: NewMux()}
	heavy := NewHeavyQueue(GateConfig{Slots: o.HeavySlots, Wait: o.HeavyWait, Clock: o.Clock}, time.Second)
	// The database queue is bounded by its wait, not its length: every
	// admitted request may wait for a database slot.
	db := NewDBGate(GateConfig{Slots: o.DBSlots, MaxQueue: 1 << 16, Wait: o.DBWait, Clock: o.Clock})

	// Heavy routes (production words their 429 "heavy-query capacity") queue
	// for a heavy slot, then every route takes a database slot.
	heavyRoute := func(path string, h HandlerFunc) { s.mux.Handle(path, heavy.Wrap(db.Wrap(h))) }
	lightRoute := func(path string, h HandlerFunc) { s.mux.Handle(path, db.Wrap(h)) }
	heavyRoute("/v2/positions", s.positions)
	heavyRoute("/v2/positions/combos", s.comboPositions)
	heavyRoute("/v2/value", s.value)
	heavyRoute("/v2/user-pnl", s.userPnL)
	heavyRoute("/v2/trades", s.trades)
	heavyRoute("/v2/activity", s.activity)
	heavyRoute("/v2/activity/combos", s.comboActivity)
	lightRoute("/v2/approvals", s.approvals)
	lightRoute("/v2/user-stats", s.userStats)
	lightRoute("/v2/user-volume", s.userVolume)
	s.registerBoards(lightRoute)              // boards.go
	s.registerMarkets(heavyRoute, lightRoute) // markets.go
	s.registerV1()
	s.mux.HandleFunc("/v2/openapi.json", s.openAPI) // openapi.go: static, no database slot

	// The data listener's health check answers here, not in front of the
	// service, so it counts against the contract's /ok allowance (100/10 s).
	var h http.Handler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/ok" && (r.Method == http.MethodGet || r.Method == http.MethodHead) {
			w.Header().Set("Content-Type", "application/json")
			_, _ = w.Write([]byte(`{"data":"ok"}`))
			return
		}
		s.mux.ServeHTTP(w, r)
	})
	h = Deadline(o.RequestTimeout, o.Clock)(h)
	if g, ok := o.Store.(Generational); ok && o.PageCacheBytes >= 0 {
		// Inside the client limit (hits count against it), outside the
		// deadline and the gates (a hit takes no slot and no timer).
		var wg func(string) uint64
		if w, ok := o.Store.(WalletGenerational); ok {
			wg = w.WalletGeneration
		}
		sg, _ := o.Store.(ScopedGenerational)
		s.pages = newPageCache(cmp.Or(o.PageCacheBytes, DefaultPageCacheBytes), g.Generation, wg, sg, o.Clock)
		h = s.pages.Wrap(h)
	}
	if lim != nil {
		h = ClientLimit(lim)(h)
	}
	s.handler = Trace(h)
	return s
}

// Routes lists the served paths.
func (s *Service) Routes() []string { return s.mux.Routes() }

func (s *Service) ServeHTTP(w http.ResponseWriter, r *http.Request) { s.handler.ServeHTTP(w, r) }

func (s *Service) now() int64 { return s.clock.Now().Unix() }
