package dataapi

import (
	"container/list"
	"net/http"

	"pmx/internal/acceptencoding"
)

// Misses of one page are answered once (single flight). When a page's
// generation moves (an ingest touched the wallet or one of its markets, or
// a feed's second turned), every client polling it misses at once; without
// this each built the same page — 32 pollers of a 120 KB positions page
// queued 32 builds (~0.3 ms each on one core) behind one another, the
// route's p99 tail (docs/perf/hotpath.md, fourth pass). Now the first miss
// builds and the others wait for its bytes.
//
// Freshness: a request joins a flight only if the flight's generation is at
// least the one the request read on arrival; the flight's answer was built
// at that generation or later, so it is as fresh as an answer the request
// would have built itself. A request that finds an older flight starts its
// own (later arrivals join the newer one).

// flight is one miss being answered. The leader sets el or body before done
// closes; waiters read them after.
type flight struct {
	gen  uint64
	done chan struct{}
	el   *list.Element // the cache entry holding the answer, if it was cached
	body []byte        // the answer, if it was cacheable but not cached
}

// join returns the flight a miss of key at gen should wait for, or a new
// flight it leads (lead true).
func (c *pageCache) join(key string, gen uint64) (f *flight, lead bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if f := c.flights[key]; f != nil && f.gen >= gen {
		return f, false
	}
	f = &flight{gen: gen, done: make(chan struct{})}
	c.flights[key] = f // an older flight still lands for its own waiters
	return f, true
}

// land ends the leader's flight: later misses start their own, waiters
// wake. nil is a no-op.
func (c *pageCache) land(f *flight, key string) {
	if f == nil {
		return
	}
	c.mu.Lock()
	if c.flights[key] == f {
		delete(c.flights, key)
	}
	c.mu.Unlock()
	close(f.done)
}

// await waits for f and answers with its page; false when the leader got no
// cacheable answer (an error, a panic, a page over the size limit), so the
// caller answers alone. A client that leaves while waiting gets nothing.
func (c *pageCache) await(f *flight, w http.ResponseWriter, r *http.Request) bool {
	c.waiting.Add(1)
	select {
	case <-f.done:
		c.waiting.Add(-1)
	case <-r.Context().Done():
		c.waiting.Add(-1)
		return true
	}
	switch {
	case f.el != nil:
		c.shared.Add(1)
		c.serve(w, r, f.el)
	case f.body != nil:
		c.shared.Add(1)
		writeBody(w, http.StatusOK, f.body)
	default:
		return false
	}
	return true
}

// serve answers with a cached entry, compressed for a client that asks. It
// is writeBody with the header values made once per entry.
func (c *pageCache) serve(w http.ResponseWriter, r *http.Request, el *list.Element) {
	e := el.Value.(*pageEntry)
	h := w.Header()
	h["Content-Type"] = hdrJSON
	body, clen := e.body, e.clen
	if acceptencoding.Gzip(r.Header["Accept-Encoding"]) {
		if gz := c.gzipped(el); gz != nil {
			h["Content-Encoding"] = hdrGzip
			body, clen = gz, e.gzlen
		}
	}
	h["Content-Length"] = clen
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write(body)
}
