package dataapi

import (
	"crypto/rand"
	"encoding/binary"
	"encoding/hex"
	"net/http"
	"sync/atomic"
)

// TraceHeader carries the request's trace id on every response.
const TraceHeader = "x-trace-id"

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
	var h [32]byte
	hex.Encode(h[:], b[:])
	return string(h[:])
}

// traceKey is TraceHeader in canonical form: the id is stored in the header
// map directly (a hit on the page cache is a few microseconds of pmx's own
// work; Header.Set's canonicalizing would allocate a key per request).
var traceKey = http.CanonicalHeaderKey(TraceHeader)

// Trace mints a trace id per request and sets x-trace-id on the response
// before the handler runs, so success, error and panic answers all carry it.
// The response header is where handlers read it (traceOf); it is not put in
// the request's context, which would copy the request. An incoming
// x-trace-id is ignored: ids are minted, never taken from clients. A
// response already traced by an outer Trace keeps its id.
func Trace(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		if len(h[traceKey]) == 0 {
			h[traceKey] = []string{NewTraceID()}
		}
		next.ServeHTTP(w, r)
	})
}

// traceOf returns the response's trace id, minting one (and setting the
// header) for a request that did not pass through Trace, so no error goes
// untraced.
func traceOf(w http.ResponseWriter, _ *http.Request) string {
	h := w.Header()
	if v := h[traceKey]; len(v) > 0 && v[0] != "" {
		return v[0]
	}
	id := NewTraceID()
	h[traceKey] = []string{id}
	return id
}
