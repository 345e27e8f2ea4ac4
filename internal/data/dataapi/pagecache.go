package dataapi

import (
	"container/list"
	"net/http"
	"strconv"
	"sync"
	"sync/atomic"

	"github.com/prometheus/client_golang/prometheus"

	"pmx/internal/clock"
)

// Generational is implemented by a store whose answers are a function of
// its generation and the request: Generation only grows, and it moves after
// the effects of every acknowledged Apply are visible to readers
// (internal/data/sqlite: the published catalog's number). A store without
// it gets no page cache.
type Generational interface {
	Generation() uint64
}

// WalletGenerational is implemented by a store that can tell, per wallet,
// the generation of what its feeds (/v2/trades?user=, /v2/activity?user=)
// show: it moves whenever such a page can change (the wallet's own rows or
// profile, or the market texts that enrich them), after the change is
// visible, and never goes back. Feeds then stay cached across batches that
// did not touch the wallet.
type WalletGenerational interface {
	WalletGeneration(addr string) uint64
}

// ScopedGenerational is implemented by a store that can tell the
// generation of a wallet's /v2/positions and /v2/value pages (its positions,
// profile, and the marks and texts of its markets) and of /v2/holders for a
// set of markets (their holdings, holders' profiles, marks and texts), with
// WalletGeneration's rules: it moves whenever such a page can change, after
// the change is visible, and never goes back. Those pages then stay cached
// across batches that did not touch the wallet or the markets.
type ScopedGenerational interface {
	PositionsGeneration(addr string) uint64
	HoldersGeneration(conds []string) uint64
}

// Clock buckets of the cached routes: what else than (generation, path,
// query) an answer may depend on.
const (
	bucketNone   = iota // a function of the store alone (positions, value, holders)
	bucketSecond        // the feeds' default windows move with the second
	bucketDay           // the boards' windows are whole UTC days
)

// Scopes of the cached routes: which generation an answer is keyed by.
const (
	scopeStore     = iota // the store's
	scopeFeed             // a wallet's feeds (WalletGenerational), when the query names a user
	scopePositions        // a wallet's positions and value (ScopedGenerational), when it names a user
	scopeHolders          // the markets' holders (ScopedGenerational)
)

type cachedRoute struct{ bucket, scope int }

// cachedRoutes are the routes whose 200 answers are kept (issue 20: the
// wallet routes, value, holders and the boards).
var cachedRoutes = map[string]cachedRoute{
	"/v2/trades": {bucketSecond, scopeFeed}, "/v2/activity": {bucketSecond, scopeFeed},
	"/v2/positions": {bucketNone, scopePositions}, "/v2/value": {bucketNone, scopePositions},
	"/v2/holders":     {bucketNone, scopeHolders},
	"/v2/leaderboard": {bucketDay, scopeStore}, "/v2/biggest-winners": {bucketDay, scopeStore},
	"/v2/builders/leaderboard": {bucketDay, scopeStore}, "/v2/builders/volume": {bucketDay, scopeStore},
}

// maxCachedQuery bounds the query text of a cacheable request (the key);
// longer queries are served uncached.
const maxCachedQuery = 1024

// DefaultPageCacheBytes bounds the page cache's bodies by default.
const DefaultPageCacheBytes = 64 << 20

// pageCache keeps whole 200 answers keyed by path, raw query and clock
// bucket. Each entry carries the generation it was answered at: the store's,
// or for a wallet's feeds the wallet's (WalletGenerational), for its
// positions and value, or holders, the scoped one (ScopedGenerational). Invariant: an
// entry's body is what the handler answered for its key at the entry's
// generation or later, and a hit requires the current generation to equal
// the entry's, so a hit is byte for byte the handler's answer now (the
// generation is read before the handler runs and the bucket both before and
// after it; a hit reads the entry's scope's generation after finding it, so
// it parses nothing). An entry found older is dropped: exact invalidation by
// ingest, never a time-based staleness. Memory: bodies plus keys ≤ max, least
// recently used out; a body over max/8 is not kept.
type pageCache struct {
	max       int64
	gen       func() uint64
	walletGen func(addr string) uint64 // nil: feeds use the store's generation
	scoped    ScopedGenerational       // nil: positions, value and holders use the store's
	clock     clock.Clock

	mu      sync.Mutex
	m       map[string]*list.Element
	lru     list.List // of *pageEntry, most recent first
	bytes   int64
	flights map[string]*flight // pageflight.go: misses being answered, by key

	hits, misses, evictions, purges, shared atomic.Uint64
	size, count                             atomic.Int64 // mirrors of bytes and len(m) for metrics
	waiting                                 atomic.Int64 // requests waiting for another's build (pageflight.go)
}

type pageEntry struct {
	key   string
	gen   uint64
	scope pageScope // where gen is read from
	body  []byte
	clen  []string // Content-Length of body, made once
	// seen is 1 + a store generation at which the entry was found current
	// (read before its scope's generation; 0: never): while the store's
	// generation still equals it no Apply has been acknowledged since, so a
	// hit skips the scope's generation (for positions, a walk over the
	// wallet's markets). The 1 + lets a store at generation 0 (opened, no
	// Apply yet) take the shortcut too.
	seen   atomic.Uint64
	gzOnce sync.Once
	gz     []byte   // pagegzip.go; nil until a gzip client asks, or when it does not shrink
	gzlen  []string // Content-Length of gz
}

func newPageCache(max int64, gen func() uint64, walletGen func(string) uint64, scoped ScopedGenerational,
	clock clock.Clock) *pageCache {
	return &pageCache{max: max, gen: gen, walletGen: walletGen, scoped: scoped, clock: clock, m: map[string]*list.Element{},
		flights: map[string]*flight{}}
}

func (c *pageCache) bucket(kind int) int64 {
	switch kind {
	case bucketSecond:
		return c.clock.Now().Unix()
	case bucketDay:
		return c.clock.Now().Unix() / 86400
	}
	return 0
}

// appendPageKey appends the cache key of path, query and bucket to b. A hit
// looks the key up as bytes (no string is made); a miss makes it a string.
func appendPageKey(b []byte, path, query string, bucket int64) []byte {
	b = append(append(append(b, path...), '?'), query...)
	return strconv.AppendInt(append(b, '#'), bucket, 10)
}

// Header values a hit sets, shared by every response (net/http only reads
// them; an Add would append to a full slice, which copies it).
var (
	hdrJSON = []string{"application/json"}
	hdrVary = []string{"Accept-Encoding"}
	hdrGzip = []string{"gzip"}
)

// Wrap serves cacheable GET/HEAD requests from the cache and records the
// 200 answers of cacheable GETs that miss.
func (c *pageCache) Wrap(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		route, ok := cachedRoutes[r.URL.Path]
		kind := route.bucket
		if !ok || (r.Method != http.MethodGet && r.Method != http.MethodHead) || len(r.URL.RawQuery) > maxCachedQuery {
			next.ServeHTTP(w, r)
			return
		}
		b0 := c.bucket(kind)
		var kb [256]byte
		k := appendPageKey(kb[:0], r.URL.Path, r.URL.RawQuery, b0)
		w.Header()["Vary"] = hdrVary
		if el := c.get(k); el != nil {
			c.hits.Add(1)
			c.serve(w, r, el)
			return
		}
		key := string(k)
		sc := c.scopeOf(route.scope, r)
		gen := c.genOf(sc) // before the handler: an entry is never older than its generation
		if r.Method != http.MethodGet {
			c.misses.Add(1)
			next.ServeHTTP(w, r)
			return
		}
		f, lead := c.join(key, gen)
		if !lead {
			if c.await(f, w, r) {
				return
			}
			f = nil // the leader got no cacheable answer: answer alone
		}
		c.misses.Add(1)
		rec := &pageRecorder{ResponseWriter: w, limit: int(c.max / 8)}
		defer c.land(f, key) // also when the handler panics: waiters answer alone
		next.ServeHTTP(rec, r)
		if rec.status == http.StatusOK && !rec.over && rec.Header().Get("Content-Type") == "application/json" &&
			c.bucket(kind) == b0 {
			el := c.put(gen, sc, key, rec.body)
			if f != nil {
				f.el, f.body = el, rec.body
			}
		}
	})
}

// pageScope is what a cached answer's generation is read from: the store,
// a wallet (feeds, or positions and value) or markets (holders).
type pageScope struct {
	kind  int // scopeStore, scopeFeed, scopePositions, scopeHolders
	user  string
	conds []string
}

// scopeOf is what an answer of this request depends on: for a scoped route
// whose query parses (as the handler parses it) and names its wallet or
// markets, that wallet or those markets; else the store. A query with a
// cursor is the store's: the cursor, not the query, may pin what the page
// is about. A function of the request's path and query alone, so an entry
// keeps it and a hit needs no parse.
func (c *pageCache) scopeOf(scope int, r *http.Request) pageScope {
	store := pageScope{kind: scopeStore}
	if scope == scopeStore || (scope == scopeFeed && c.walletGen == nil) || (scope != scopeFeed && c.scoped == nil) {
		return store
	}
	q, err := ParseRequest(r)
	if err != nil || q.Has("cursor") {
		return store
	}
	if scope == scopeHolders {
		if conds, err := q.Conditions(); err == nil && len(conds) > 0 {
			return pageScope{kind: scopeHolders, conds: conds}
		}
		return store
	}
	if u, err := q.User(false); err == nil && u != "" {
		return pageScope{kind: scope, user: u}
	}
	return store
}

// genOf is the current generation of a scope.
func (c *pageCache) genOf(s pageScope) uint64 {
	switch s.kind {
	case scopeFeed:
		return c.walletGen(s.user)
	case scopePositions:
		return c.scoped.PositionsGeneration(s.user)
	case scopeHolders:
		return c.scoped.HoldersGeneration(s.conds)
	}
	return c.gen()
}

// get returns the entry cached for key if it is current: its generation
// (read after the lookup) equals the entry's. An entry found older is
// dropped. The entry's body never changes.
func (c *pageCache) get(key []byte) *list.Element {
	c.mu.Lock()
	el := c.m[string(key)]
	c.mu.Unlock()
	if el == nil {
		return nil
	}
	e := el.Value.(*pageEntry)
	gen := e.gen
	if e.scope.kind == scopeStore {
		gen = c.gen()
	} else if g := c.gen(); e.seen.Load() != g+1 {
		gen = c.genOf(e.scope) // outside mu: it may wait for a publish
		if gen == e.gen {
			e.seen.Store(g + 1)
		}
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if e.gen != gen {
		if e.gen < gen && c.m[string(key)] == el {
			c.remove(el)
			c.purges.Add(1)
		}
		return nil
	}
	if c.m[string(key)] == el {
		c.lru.MoveToFront(el)
	}
	return el
}

// put caches body as key's answer at gen and returns the entry that now
// holds key at gen or later (nil when body is too large to keep).
func (c *pageCache) put(gen uint64, sc pageScope, key string, body []byte) *list.Element {
	cost := int64(len(body) + len(key))
	if cost > c.max/8 {
		return nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if el := c.m[key]; el != nil {
		if el.Value.(*pageEntry).gen >= gen {
			return el // already cached, or a newer reader's answer
		}
		c.remove(el)
	}
	el := c.lru.PushFront(&pageEntry{key: key, gen: gen, scope: sc, body: body,
		clen: []string{strconv.Itoa(len(body))}})
	c.m[key] = el
	c.bytes += cost
	for c.bytes > c.max {
		c.remove(c.lru.Back())
		c.evictions.Add(1)
	}
	c.size.Store(c.bytes)
	c.count.Store(int64(len(c.m)))
	return el
}

// remove drops an entry. Caller holds mu.
func (c *pageCache) remove(el *list.Element) {
	e := el.Value.(*pageEntry)
	c.lru.Remove(el)
	delete(c.m, e.key)
	c.bytes -= int64(len(e.body) + len(e.key) + len(e.gz))
	c.size.Store(c.bytes)
	c.count.Store(int64(len(c.m)))
}

// pageRecorder passes a response through and keeps a copy of its body,
// up to limit bytes.
type pageRecorder struct {
	http.ResponseWriter
	status int
	body   []byte
	limit  int
	over   bool
}

func (p *pageRecorder) WriteHeader(code int) {
	if p.status == 0 {
		p.status = code
	}
	p.ResponseWriter.WriteHeader(code)
}

func (p *pageRecorder) Write(b []byte) (int, error) {
	if p.status == 0 {
		p.status = http.StatusOK
	}
	if !p.over {
		if len(p.body)+len(b) > p.limit {
			p.over, p.body = true, nil
		} else {
			p.body = append(p.body, b...)
		}
	}
	return p.ResponseWriter.Write(b)
}

// PageCacheStats is the page cache's state, for /metrics.
type PageCacheStats struct {
	Bytes, MaxBytes, Entries               int64
	Waiting                                int64 // requests waiting for another request's build of their page
	Hits, Misses, Evictions, Invalidations uint64
	Shared                                 uint64 // misses answered by another request's build (pageflight.go)
}

// PageCacheStats reports the cache (zero when the store has no generation
// or the cache is off).
func (s *Service) PageCacheStats() PageCacheStats {
	c := s.pages
	if c == nil {
		return PageCacheStats{}
	}
	return PageCacheStats{Bytes: c.size.Load(), MaxBytes: c.max, Entries: c.count.Load(), Hits: c.hits.Load(),
		Misses: c.misses.Load(), Evictions: c.evictions.Load(), Invalidations: c.purges.Load(),
		Shared: c.shared.Load(), Waiting: c.waiting.Load()}
}

// Collectors are the page cache's Prometheus metrics (register them on the
// process registry): pmx_data_page_cache_{bytes,max_bytes,entries,waiting} gauges
// and {hits,misses,shared,evictions,invalidations}_total counters.
func (s *Service) Collectors() []prometheus.Collector {
	g := func(name, help string, f func(PageCacheStats) int64) prometheus.Collector {
		return prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "pmx_data_page_cache_" + name, Help: help},
			func() float64 { return float64(f(s.PageCacheStats())) })
	}
	c := func(name, help string, f func(PageCacheStats) uint64) prometheus.Collector {
		return prometheus.NewCounterFunc(prometheus.CounterOpts{Name: "pmx_data_page_cache_" + name + "_total", Help: help},
			func() float64 { return float64(f(s.PageCacheStats())) })
	}
	return []prometheus.Collector{
		g("bytes", "Bytes held by the data service's page cache (bodies and keys).", func(p PageCacheStats) int64 { return p.Bytes }),
		g("max_bytes", "The page cache's bound.", func(p PageCacheStats) int64 { return p.MaxBytes }),
		g("entries", "Pages held.", func(p PageCacheStats) int64 { return p.Entries }),
		g("waiting", "Requests waiting for another request's build of the same page.", func(p PageCacheStats) int64 { return p.Waiting }),
		c("hits", "Requests answered from the page cache.", func(p PageCacheStats) uint64 { return p.Hits }),
		c("misses", "Cacheable requests the handler answered.", func(p PageCacheStats) uint64 { return p.Misses }),
		c("evictions", "Pages dropped to stay within the bound.", func(p PageCacheStats) uint64 { return p.Evictions }),
		c("shared", "Misses answered with the page another request of the same page was building.", func(p PageCacheStats) uint64 { return p.Shared }),
		c("invalidations", "Pages found older than their generation (an ingest changed them) and dropped.", func(p PageCacheStats) uint64 { return p.Invalidations }),
	}
}
