// Package server runs pmx's listeners: one http.Server per service, each with
// GET /ok, request metrics and structured access logs, started together and
// shut down gracefully together.
package server

import (
	"cmp"
	"context"
	"crypto/subtle"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"sync"
	"time"
)

// Listener is one service on one address.
type Listener struct {
	Name    string // data, catalog, clob, perps, admin
	Addr    string
	Handler http.Handler // the service's routes; /ok is added here
	// Wrap, if set, wraps the whole listener, /ok included (e.g. trace ids).
	Wrap func(http.Handler) http.Handler
	// ServesOK: Handler answers GET /ok itself (e.g. behind its own limits).
	ServesOK bool
	// ConnContext, if set, is the http.Server's: per-connection state.
	ConnContext func(ctx context.Context, c net.Conn) context.Context
	// Refuse writes the listener's own refusals (see guard) in the
	// service's error shape; nil: JSONRefuse.
	Refuse Refuser
	// Body is the body limit of a request's route; nil: DefaultBody.
	Body func(r *http.Request) BodyLimit

	ln  net.Listener
	srv *http.Server
}

// URL is the base URL the listener serves on (valid after Start).
func (l *Listener) URL() string {
	if l.ln == nil {
		return ""
	}
	return "http://" + l.ln.Addr().String()
}

// OK answers the health check: 200 {"data":"ok"}.
func OK(w http.ResponseWriter, _ *http.Request) {
	w.Header().Set("Content-Type", "application/json")
	_, _ = io.WriteString(w, `{"data":"ok"}`)
}

// Group is a set of listeners run together.
type Group struct {
	Log       *slog.Logger
	Metrics   *Metrics
	Listeners []*Listener
	// BodyReadsPerIP caps the bodies one client address reads at once per
	// listener; 0: DefaultBodyReadsPerIP.
	BodyReadsPerIP int
	wg             sync.WaitGroup
	errc           chan error
}

// Start binds every listener (failing fast if an address is taken) and serves.
// GET /ok is mounted in front of each handler.
func (g *Group) Start() error {
	g.errc = make(chan error, len(g.Listeners))
	for _, l := range g.Listeners {
		ln, err := net.Listen("tcp", l.Addr)
		if err != nil {
			g.closeAll()
			return fmt.Errorf("%s listener on %s: %w", l.Name, l.Addr, err)
		}
		l.ln = ln
		var root http.Handler
		if l.ServesOK && l.Handler != nil {
			// The handler answers every path: no mux to consult per request
			// (its pattern matching was ~2.5 % of a small cached data page).
			root = rootPattern{l.Handler}
		} else {
			mux := http.NewServeMux()
			if !l.ServesOK {
				mux.HandleFunc("GET /ok", OK)
			}
			if l.Handler != nil {
				mux.Handle("/", l.Handler)
			}
			root = mux
		}
		var h http.Handler = g.guard(l, root)
		if l.Wrap != nil {
			h = l.Wrap(h)
		}
		if g.Metrics != nil {
			h = g.Metrics.Instrument(l.Name, h)
		}
		l.srv = &http.Server{
			Handler:           h,
			ConnContext:       l.ConnContext,
			ReadHeaderTimeout: 10 * time.Second,
			MaxHeaderBytes:    MaxHeaderBytes,
			IdleTimeout:       120 * time.Second,
			ErrorLog:          slog.NewLogLogger(g.Log.Handler(), slog.LevelWarn),
		}
	}
	for _, l := range g.Listeners {
		g.wg.Add(1)
		go func(l *Listener) {
			defer g.wg.Done()
			if err := l.srv.Serve(l.ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
				g.errc <- fmt.Errorf("%s listener: %w", l.Name, err)
			}
		}(l)
	}
	return nil
}

// rootPattern serves every request with h as a ServeMux with the one pattern
// "/" would (the guard has already refused unclean paths): r.Pattern is "/",
// the metrics' route label.
type rootPattern struct{ h http.Handler }

func (p rootPattern) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	r.Pattern = "/"
	p.h.ServeHTTP(w, r)
}

// MaxHeaderBytes bounds a request's header block on every listener (pmx
// clients send a few hundred bytes; net/http's default is 1 MiB).
const MaxHeaderBytes = 64 << 10

func (g *Group) guard(l *Listener, next http.Handler) http.Handler {
	gd := &guard{name: l.Name, next: next, refuse: l.Refuse, limit: l.Body,
		slots: newIPSlots(cmp.Or(g.BodyReadsPerIP, DefaultBodyReadsPerIP)),
		fault: func(string, string) {}, debug: func(string, ...any) {}}
	if gd.refuse == nil {
		gd.refuse = JSONRefuse
	}
	if gd.limit == nil {
		gd.limit = func(*http.Request) BodyLimit { return DefaultBody }
	}
	if g.Metrics != nil {
		gd.fault = g.Metrics.ClientFault
	}
	if g.Log != nil {
		gd.debug = g.Log.Debug
	}
	return gd
}

// Err reports the first listener that failed while serving.
func (g *Group) Err() <-chan error { return g.errc }

// Shutdown stops accepting, waits for in-flight requests up to ctx, then closes.
func (g *Group) Shutdown(ctx context.Context) error {
	var first error
	for _, l := range g.Listeners {
		if l.srv == nil {
			continue
		}
		if err := l.srv.Shutdown(ctx); err != nil && first == nil {
			first = err
			_ = l.srv.Close()
		}
	}
	g.wg.Wait()
	return first
}

func (g *Group) closeAll() {
	for _, l := range g.Listeners {
		if l.ln != nil {
			_ = l.ln.Close()
		}
	}
}

// RequireToken guards h with Authorization: Bearer <token>, compared in
// constant time. /ok and /metrics stay open (they are mounted outside h).
func RequireToken(token string, h http.Handler) http.Handler {
	want := []byte("Bearer " + token)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got := []byte(strings.TrimSpace(r.Header.Get("Authorization")))
		if subtle.ConstantTimeCompare(got, want) != 1 {
			w.Header().Set("Content-Type", "application/json")
			w.Header().Set("WWW-Authenticate", `Bearer realm="pmx-admin"`)
			w.WriteHeader(http.StatusUnauthorized)
			_, _ = io.WriteString(w, `{"error":"missing or invalid admin token","code":"unauthorized"}`)
			return
		}
		h.ServeHTTP(w, r)
	})
}
