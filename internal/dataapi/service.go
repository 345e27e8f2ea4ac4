package dataapi

import (
	"log/slog"
	"net/http"
	"time"

	"pmx/internal/ratelimit"
	"pmx/internal/store"
)

// Options configures the data service. Zero values take the defaults.
type Options struct {
	Store     store.Store
	CursorKey []byte
	Log       *slog.Logger
	// Clock drives "now" for windows and the deadline; nil = system clock.
	Clock ratelimit.Clock
	// RequestTimeout bounds each request (503 request_timeout). Default 10 s.
	RequestTimeout time.Duration
	// HeavySlots/HeavyWait size the heavy-query queue. Defaults: 2×CPU
	// slots, 2 s wait.
	HeavySlots int
	HeavyWait  time.Duration
	// Limits is the per-client (IP) allowance; nil = ratelimit.DataDefaults.
	Limits *ratelimit.Config
}

// Service is the data service v2 handler.
type Service struct {
	store   store.Store
	cursors *Cursors
	clock   ratelimit.Clock
	mux     *Mux
	handler http.Handler
}

// New builds the data service. It panics on a bad cursor key or limiter
// configuration, which are programming errors in the caller's wiring.
func New(o Options) *Service {
	if o.Clock == nil {
		o.Clock = ratelimit.SystemClock{}
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
	cur, err := NewCursors(o.CursorKey)
	if err != nil {
		panic(err)
	}
	limits := ratelimit.DataDefaults()
	if o.Limits != nil {
		limits = *o.Limits
	}
	lim, err := ratelimit.New(limits, o.Clock)
	if err != nil {
		panic(err)
	}
	s := &Service{store: o.Store, cursors: cur, clock: o.Clock, mux: NewMux()}
	heavy := NewHeavyQueue(GateConfig{Slots: o.HeavySlots, Wait: o.HeavyWait, Clock: o.Clock}, time.Second)

	// Heavy routes (production words their 429 "heavy-query capacity") queue
	// for a slot; the rest run directly.
	heavyRoute := func(path string, h HandlerFunc) { s.mux.Handle(path, heavy.Wrap(h)) }
	heavyRoute("/v2/positions", s.positions)
	heavyRoute("/v2/positions/combos", s.comboPositions)
	heavyRoute("/v2/value", s.value)
	heavyRoute("/v2/user-pnl", s.userPnL)
	heavyRoute("/v2/trades", s.trades)
	heavyRoute("/v2/activity", s.activity)
	heavyRoute("/v2/activity/combos", s.comboActivity)
	s.mux.HandleFunc("/v2/approvals", s.approvals)
	s.mux.HandleFunc("/v2/user-stats", s.userStats)
	s.mux.HandleFunc("/v2/user-volume", s.userVolume)
	s.registerMarkets(heavyRoute) // markets.go
	s.registerV1()

	var h http.Handler = s.mux
	h = Deadline(o.RequestTimeout, o.Clock)(h)
	h = ClientLimit(lim)(h)
	s.handler = Trace(h)
	return s
}

// Routes lists the served paths.
func (s *Service) Routes() []string { return s.mux.Routes() }

func (s *Service) ServeHTTP(w http.ResponseWriter, r *http.Request) { s.handler.ServeHTTP(w, r) }

func (s *Service) now() int64 { return s.clock.Now().Unix() }
