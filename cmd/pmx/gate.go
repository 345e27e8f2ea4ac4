package main

import (
	"io"
	"net/http"
	"sync/atomic"

	"pmx/internal/server"
)

// gate is a listener's handler from the moment its port is bound: until the
// service is ready (the demo world loaded, the stores open, the journal
// replayed) it answers 503 with Retry-After, so a client sees "starting"
// instead of a hung connection and a port clash is reported before any long
// work. ready installs the service's full handler.
type gate struct {
	h atomic.Pointer[http.Handler]
}

func (g *gate) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if h := g.h.Load(); h != nil {
		(*h).ServeHTTP(w, r)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Retry-After", "5")
	w.WriteHeader(http.StatusServiceUnavailable)
	_, _ = io.WriteString(w, `{"error":"pmx is starting: the service is not ready yet"}`)
}

// ready installs h as the listener's handler, with GET /ok in front unless
// the service answers it itself, and wrap (the IP limits) around both.
func (g *gate) ready(h http.Handler, servesOK bool, wrap func(http.Handler) http.Handler) {
	if !servesOK {
		mux := http.NewServeMux()
		mux.HandleFunc("GET /ok", server.OK)
		mux.Handle("/", h)
		h = mux
	}
	if wrap != nil {
		h = wrap(h)
	}
	g.h.Store(&h)
}
