// Package clob is the order-book exchange's HTTP layer on the CLOB listener:
// the CLOB error contract (body {"error"}, status override), API-key routes
// under /auth (L1 to create and derive, L2 to list and delete), GET / and
// GET /time, and RequireL2 for the authenticated routes trading will add.
package clobhttp

import (
	"errors"
	"log/slog"
	"net/http"
	"time"

	"pmx/internal/clob/clob"
	"pmx/internal/clob/clobauth"
	"pmx/internal/clob/clobsvc"
	"pmx/internal/clock"
)

// Clock is the time source (clock.System satisfies it).
type Clock interface{ Now() time.Time }

// Options configure the handler. Store and MasterKey are required.
type Options struct {
	Store     clob.Store
	Service   *clobsvc.Service // the exchange; nil serves only the API-key routes
	MasterKey []byte           // at least 32 secret bytes; see clobauth.Deriver
	Log       *slog.Logger
	Clock     Clock             // default: the system clock
	L1        clobauth.L1Config // domain, chain id (default 137) and window (default 5 min)
	L2Window  time.Duration     // |now - POLY_TIMESTAMP| bound for L2; default 5 min
	MaxBody   int64             // largest L2 request body read; default 1 MiB
}

// Handler serves the CLOB routes.
type Handler struct {
	store    clob.Store
	svc      *clobsvc.Service
	deriver  *clobauth.Deriver
	secrets  *clobauth.SecretCache // derived L2 credentials of recently used keys
	l1       *clobauth.L1
	l2Window time.Duration
	maxBody  int64
	log      *slog.Logger
	clock    Clock
	mux      *http.ServeMux
}

// New builds the handler. It fails only on a missing store or a short
// master key.
func New(opt Options) (*Handler, error) {
	if opt.Store == nil {
		return nil, errors.New("clob: Options.Store is required")
	}
	d, err := clobauth.NewDeriver(opt.MasterKey)
	if err != nil {
		return nil, err
	}
	h := &Handler{
		store:    opt.Store,
		svc:      opt.Service,
		deriver:  d,
		secrets:  clobauth.NewSecretCache(d, 0),
		l1:       clobauth.NewL1(opt.L1),
		l2Window: opt.L2Window,
		maxBody:  opt.MaxBody,
		log:      opt.Log,
		clock:    opt.Clock,
		mux:      http.NewServeMux(),
	}
	if h.l2Window <= 0 {
		h.l2Window = clobauth.DefaultL2Window
	}
	if h.maxBody <= 0 {
		h.maxBody = 1 << 20
	}
	if h.log == nil {
		h.log = slog.New(slog.DiscardHandler)
	}
	if h.clock == nil {
		h.clock = clock.System{}
	}
	h.routes()
	return h, nil
}

func (h *Handler) routes() {
	h.mux.HandleFunc("GET /{$}", h.root)
	h.mux.HandleFunc("GET /time", h.time)
	h.mux.HandleFunc("POST /auth/api-key", h.createKey)
	h.mux.HandleFunc("GET /auth/derive-api-key", h.deriveKey)
	h.mux.Handle("GET /auth/api-keys", h.RequireL2(http.HandlerFunc(h.listKeys)))
	h.mux.Handle("DELETE /auth/api-key", h.RequireL2(http.HandlerFunc(h.deleteKey)))
	if h.svc != nil {
		h.exchangeRoutes()
	}
	// Anything else, including a known path with another method, is the
	// contract's 404 body rather than net/http's plain text.
	h.mux.HandleFunc("/", func(w http.ResponseWriter, _ *http.Request) {
		fail(w, clob.ErrNotFound)
	})
}

func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) { h.mux.ServeHTTP(w, r) }

// root answers GET / with the JSON string "OK" (the official clients only
// need a 2xx; production's body is believed to be "OK").
func (h *Handler) root(w http.ResponseWriter, _ *http.Request) { writeJSON(w, http.StatusOK, "OK") }

// time answers GET /time with the server's Unix time in seconds, a bare
// integer; clients with useServerTime sign L1/L2 timestamps with it.
func (h *Handler) time(w http.ResponseWriter, _ *http.Request) {
	writeJSON(w, http.StatusOK, h.clock.Now().Unix())
}
