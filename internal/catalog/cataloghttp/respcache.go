package cataloghttp

import (
	"bytes"
	"container/list"
	"net/http"
	"net/url"
	"strconv"
	"sync"

	"pmx/internal/acceptencoding"
	"pmx/internal/catalog/catalog"
)

// DefaultResponseCacheBytes bounds the whole-response cache (bodies only).
const DefaultResponseCacheBytes = 64 << 20

// respCache holds whole 200 response bodies keyed by (path, canonical
// query), for one (store, live) generation pair. Invariant: an entry was
// rendered after both generations were read with the values of the pair,
// so it reflects a state at least that new; a hit requires the current
// generations to equal the pair, and generations move whenever the state
// does, so a hit is exactly what rendering now would give. When the pair
// moves the whole cache is dropped (no old entry can ever hit again).
// Memory is bounded by max body bytes, least recently used out first.
type respCache struct {
	store catalog.Generational
	live  catalog.LiveGenerational
	max   int

	mu       sync.Mutex
	sgen     uint64
	lgen     uint64
	size     int
	entries  map[string]*list.Element
	lru      list.List // front = most recently used; values are *respEntry
	inflight map[string]*respCall
}

type respEntry struct {
	key    string
	body   []byte
	length []string // Content-Length header value, built once

	// The gzip form, made on the first request that accepts it
	// (respgzip.go); gz is written under respCache.mu inside gzOnce.
	gzOnce   sync.Once
	gz       []byte
	gzLength []string
}

// cost is what the entry counts against the byte bound (under c.mu).
func (e *respEntry) cost() int { return len(e.body) + len(e.gz) }

// respCall lets concurrent misses on one key render once: after a
// generation moves, 32 clients asking for the same page would otherwise
// render it 32 times on one core.
type respCall struct {
	sgen, lgen uint64
	done       chan struct{}
	e          *respEntry // nil when the response was not cacheable
}

var contentTypeJSON = []string{"application/json"}

func newRespCache(store catalog.Store, live catalog.LiveFields, max int) *respCache {
	sg, ok1 := store.(catalog.Generational)
	lg, ok2 := live.(catalog.LiveGenerational)
	if !ok1 || !ok2 || max < 0 {
		return nil
	}
	if max == 0 {
		max = DefaultResponseCacheBytes
	}
	return &respCache{store: sg, live: lg, max: max,
		entries: map[string]*list.Element{}, inflight: map[string]*respCall{}}
}

// cacheKey is the escaped path and the query with its keys sorted (values
// keep their order, which handlers may depend on). Handlers read only the
// path segments and r.URL.Query(), so requests with one key get one answer.
func cacheKey(r *http.Request) string {
	p := r.URL.EscapedPath()
	if r.URL.RawQuery == "" {
		return p
	}
	q, _ := url.ParseQuery(r.URL.RawQuery)
	if len(q) == 0 {
		return p // nothing parsed: the handlers see no query either
	}
	return p + "?" + q.Encode()
}

// serve answers r from the cache or through next, caching a 200 answer.
func (c *respCache) serve(w http.ResponseWriter, r *http.Request, next func(http.ResponseWriter, *http.Request)) {
	key := cacheKey(r)
	// Generations are read before rendering (see the invariant).
	sg, lg := c.store.Generation(), c.live.LiveGeneration()
	c.mu.Lock()
	c.advance(sg, lg)
	if el, ok := c.entries[key]; ok && c.sgen == sg && c.lgen == lg {
		c.lru.MoveToFront(el)
		e := el.Value.(*respEntry)
		c.mu.Unlock()
		c.writeEntry(w, r, e)
		return
	}
	if call, ok := c.inflight[key]; ok && call.sgen == sg && call.lgen == lg {
		c.mu.Unlock()
		<-call.done
		if call.e != nil {
			c.writeEntry(w, r, call.e)
		} else {
			next(w, r)
		}
		return
	}
	call := &respCall{sgen: sg, lgen: lg, done: make(chan struct{})}
	c.inflight[key] = call
	c.mu.Unlock()

	defer func() {
		c.mu.Lock()
		if c.inflight[key] == call {
			delete(c.inflight, key)
		}
		c.mu.Unlock()
		close(call.done)
	}()
	rec := &recorder{h: http.Header{}, code: http.StatusOK}
	next(rec, r)
	for k, v := range rec.h {
		w.Header()[k] = v
	}
	if rec.code == http.StatusOK && len(rec.h) == 2 && rec.h.Get("Content-Type") == "application/json" &&
		rec.h.Get("Content-Length") == strconv.Itoa(rec.body.Len()) {
		e := &respEntry{key: key, body: bytes.Clone(rec.body.Bytes())}
		e.length = []string{strconv.Itoa(len(e.body))}
		call.e = e
		c.put(sg, lg, e)
		w.Header()["Vary"] = varyAcceptEncoding
	}
	w.WriteHeader(rec.code)
	_, _ = w.Write(rec.body.Bytes())
}

// advance drops everything when newer generations are seen. Generations
// only grow, so an older pair (a slow reader) changes nothing.
func (c *respCache) advance(sg, lg uint64) {
	if (sg == c.sgen && lg == c.lgen) || sg < c.sgen || lg < c.lgen {
		return
	}
	c.sgen, c.lgen, c.size = sg, lg, 0
	clear(c.entries)
	c.lru.Init()
}

func (c *respCache) put(sg, lg uint64, e *respEntry) {
	if len(e.body) > c.max/8 {
		return // one page must not flush the cache
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.advance(sg, lg)
	if c.sgen != sg || c.lgen != lg {
		return
	}
	if old, ok := c.entries[e.key]; ok {
		c.size -= old.Value.(*respEntry).cost()
		c.lru.Remove(old)
	}
	c.entries[e.key] = c.lru.PushFront(e)
	c.size += e.cost()
	c.evict()
}

// evict drops least recently used entries until the bound holds (c.mu held).
func (c *respCache) evict() {
	for c.size > c.max {
		back := c.lru.Back()
		old := back.Value.(*respEntry)
		c.lru.Remove(back)
		delete(c.entries, old.key)
		c.size -= old.cost()
	}
}

// writeEntry writes a cached body: the headers the handler set, one Write;
// gzip-compressed when the request accepts it.
func (c *respCache) writeEntry(w http.ResponseWriter, r *http.Request, e *respEntry) {
	h := w.Header()
	h["Content-Type"] = contentTypeJSON
	h["Vary"] = varyAcceptEncoding
	if ae := r.Header["Accept-Encoding"]; len(ae) > 0 && acceptencoding.Gzip(ae) {
		if gz, n := c.gzipped(e); gz != nil {
			h["Content-Encoding"] = contentEncodingGzip
			h["Content-Length"] = n
			_, _ = w.Write(gz)
			return
		}
	}
	h["Content-Length"] = e.length
	_, _ = w.Write(e.body)
}

// recorder buffers a handler's answer so it can be cached.
type recorder struct {
	h     http.Header
	code  int
	wrote bool
	body  bytes.Buffer
}

func (r *recorder) Header() http.Header { return r.h }

func (r *recorder) WriteHeader(code int) {
	if !r.wrote {
		r.code, r.wrote = code, true
	}
}

func (r *recorder) Write(b []byte) (int, error) {
	r.wrote = true
	return r.body.Write(b)
}
