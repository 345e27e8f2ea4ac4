package dataapi

import (
	"context"
	"crypto/rand"
	"encoding/binary"
	"encoding/hex"
	"net/http"
	"sync/atomic"
)

// TraceHeader carries the request's trace id on every response.
const TraceHeader = "x-trace-id"

type traceKey struct{}

// Trace ids are a random 64-bit process prefix plus a counter: unique per
// process lifetime, unguessable across restarts, and cheap (no syscall per
// request). They are opaque to clients.
var (
	tracePrefix [8]byte
	traceSeq    atomic.Uint64
)

func init() {
	if _, err := rand.Read(tracePrefix[:]); err != nil {
		panic(err)
	}
}

// NewTraceID mints a fresh 32-hex-digit id.
func NewTraceID() string {
	var b [16]byte
	copy(b[:8], tracePrefix[:])
	binary.BigEndian.PutUint64(b[8:], traceSeq.Add(1))
	return hex.EncodeToString(b[:])
}

// Trace mints a trace id per request, sets x-trace-id on the response before
// the handler runs (so success, error and panic answers all carry it), and
// puts the id in the request context for WriteError. An incoming x-trace-id
// is ignored: ids are minted, never taken from clients. A request already
// traced by an outer Trace keeps its id.
func Trace(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if TraceID(r.Context()) != "" {
			next.ServeHTTP(w, r)
			return
		}
		id := NewTraceID()
		w.Header().Set(TraceHeader, id)
		next.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), traceKey{}, id)))
	})
}

// TraceID is the request's trace id, or "" outside Trace.
func TraceID(ctx context.Context) string {
	id, _ := ctx.Value(traceKey{}).(string)
	return id
}

// traceOf returns the request's id, minting one (and setting the header) for
// a request that did not pass through Trace, so no error goes untraced.
func traceOf(w http.ResponseWriter, r *http.Request) string {
	if id := TraceID(r.Context()); id != "" {
		return id
	}
	if id := w.Header().Get(TraceHeader); id != "" {
		return id
	}
	id := NewTraceID()
	w.Header().Set(TraceHeader, id)
	return id
}
