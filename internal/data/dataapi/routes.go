package dataapi

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"runtime/debug"
)

// HandlerFunc is a route handler that returns its failure instead of writing
// it: the adapter writes the contract's error body for it.
type HandlerFunc func(w http.ResponseWriter, r *http.Request) error

// ServeHTTP runs the handler, turns its error into the error body (see
// AsError; a request whose deadline fired is 503 request_timeout even when
// the store reports the cancellation), and turns a panic into a 500.
func (h HandlerFunc) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	defer func() {
		if p := recover(); p != nil {
			if p == http.ErrAbortHandler {
				panic(p)
			}
			slog.Error("data handler panic", "path", r.URL.Path, "panic", p, "stack", string(debug.Stack()))
			WriteError(w, r, Internal(fmt.Errorf("panic: %v", p)))
		}
	}()
	if err := h(w, r); err != nil {
		if errors.Is(err, context.Canceled) && r.Context().Err() != nil {
			// The deadline (injected clock) or the client ended the
			// request; either way it timed out, it did not fail.
			err = RequestTimeout(err)
		}
		WriteError(w, r, err)
	}
}

// Mux routes exact paths to GET handlers. HEAD is served as GET (net/http
// drops the body); any other method on a known path is 405
// method_not_allowed with Allow; an unknown path is 404 not_found. Both are
// the contract's JSON error body.
type Mux struct {
	routes map[string]http.Handler
}

// NewMux makes an empty mux.
func NewMux() *Mux { return &Mux{routes: map[string]http.Handler{}} }

// Handle registers a GET route. Registering a path twice panics.
func (m *Mux) Handle(path string, h http.Handler) {
	if _, dup := m.routes[path]; dup {
		panic("dataapi: route registered twice: " + path)
	}
	m.routes[path] = h
}

// HandleFunc registers an error-returning GET handler.
func (m *Mux) HandleFunc(path string, h HandlerFunc) { m.Handle(path, h) }

// Routes lists the registered paths (for the OpenAPI coverage test).
func (m *Mux) Routes() []string {
	out := make([]string, 0, len(m.routes))
	for p := range m.routes {
		out = append(out, p)
	}
	return out
}

func (m *Mux) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	h, ok := m.routes[r.URL.Path]
	if !ok {
		WriteError(w, r, NotFound("no route for "+clip(r.URL.Path)))
		return
	}
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		w.Header().Set("Allow", "GET, HEAD")
		WriteError(w, r, &Error{Code: CodeMethodNotAllowed, Message: "method " + clip(r.Method) + " not allowed; use GET"})
		return
	}
	h.ServeHTTP(w, r)
}
