package dataapi_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"pmx/internal/cpuclock"
	"pmx/internal/data/dataapi"
	"pmx/internal/data/sqlite"
	"pmx/internal/demo"
	"pmx/internal/loadgen"
)

// routeClients is the concurrency of the route benchmarks (the contract's
// target: p99 under 10 ms at 32 concurrent clients).
var routeClients = envInt("PMX_BENCH_CLIENTS", 32)

func envInt(name string, def int) int {
	if v, err := strconv.Atoi(os.Getenv(name)); err == nil && v > 0 {
		return v
	}
	return def
}

// routeWorld is the demo world (scale PMX_BENCH_SCALE, default 0.1) loaded
// through the ledger into a real store and served over HTTP, plus a sample
// of its busiest wallets.
type routeWorld struct {
	srv     *httptest.Server
	db      *sqlite.DB
	client  *http.Client
	wallets []string
	events  int
}

func loadDemo(b *testing.B) *routeWorld {
	b.Helper()
	scale := 0.1
	if s := os.Getenv("PMX_BENCH_SCALE"); s != "" {
		v, err := strconv.ParseFloat(s, 64)
		if err != nil {
			b.Fatal(err)
		}
		scale = v
	}
	dir := b.TempDir()
	evs := demoEvents(b, demo.Options{Seed: 1, Scale: scale, Now: time.Now().UTC().Truncate(time.Hour)})
	db, err := sqlite.Open(filepath.Join(dir, "pmx.db"), sqlite.Options{ReadConns: envInt("PMX_BENCH_READCONNS", 0)})
	if err != nil {
		b.Fatal(err)
	}
	for i := 0; i < len(evs); i += 50_000 {
		if _, err := db.Apply(context.Background(), evs[i:min(i+50_000, len(evs))]); err != nil {
			b.Fatal(err)
		}
	}
	// PMX_BENCH_PAGECACHE=off measures the handlers themselves (every
	// request computed), e.g. beside a build from before the page cache.
	pages := int64(0)
	if os.Getenv("PMX_BENCH_PAGECACHE") == "off" {
		pages = -1
	}
	svc := dataapi.New(dataapi.Options{Store: db, CursorKey: []byte("bench-cursor-secret-0123456789"), Limits: generous(),
		PageCacheBytes: pages})
	srv := httptest.NewServer(svc)
	b.Cleanup(func() { srv.Close(); db.Close() })
	ds := &routeWorld{srv: srv, db: db, events: len(evs),
		client: &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 2 * routeClients}}}
	// The busiest wallets: the proxy wallets of the newest 1000 fills.
	var page struct {
		Data []struct {
			ProxyWallet string `json:"proxy_wallet"`
		} `json:"data"`
	}
	res, err := ds.client.Get(srv.URL + "/v2/trades?limit=1000&taker_only=false")
	if err != nil {
		b.Fatal(err)
	}
	if err := json.NewDecoder(res.Body).Decode(&page); err != nil {
		b.Fatal(err)
	}
	res.Body.Close()
	seen := map[string]bool{}
	for _, r := range page.Data {
		if !seen[r.ProxyWallet] {
			seen[r.ProxyWallet] = true
			ds.wallets = append(ds.wallets, r.ProxyWallet)
		}
	}
	if len(ds.wallets) == 0 {
		b.Fatal("no wallets in the demo world")
	}
	return ds
}

// run issues b.N requests from routeClients goroutines (request i asks
// path(i)) and reports the latency percentiles.
func (ds *routeWorld) run(b *testing.B, path func(i int) string) {
	ds.runAt(b, ds.srv.Listener.Addr().String(), path)
}

// runAt is run against the listener at addr.
func (ds *routeWorld) runAt(b *testing.B, addr string, path func(i int) string) {
	lat := make([]time.Duration, b.N)
	var next atomic.Int64
	var failed atomic.Value
	var wg sync.WaitGroup
	cpu0 := cpuclock.Process()
	b.ResetTimer()
	// Each client is one keep-alive connection of the load generator's lean
	// HTTP/1.1 client: net/http's client would spend ~25 µs per request of
	// the same two cores the server runs on.
	for range routeClients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c, err := loadgen.Dial(addr)
			if err != nil {
				failed.Store(err.Error())
				return
			}
			defer c.Close()
			for {
				i := int(next.Add(1)) - 1
				if i >= b.N {
					return
				}
				t0 := time.Now()
				status, _, err := c.Get(path(i))
				if err != nil {
					failed.Store(err.Error())
					return
				}
				lat[i] = time.Since(t0)
				if status != 200 {
					failed.Store(fmt.Sprintf("%s: status %d", path(i), status))
				}
			}
		}()
	}
	wg.Wait()
	b.StopTimer()
	// CPU per request (server and client, one process): unlike latency, not
	// inflated by other load on a shared machine.
	b.ReportMetric(float64(cpuclock.Process()-cpu0)/1e6/float64(b.N), "cpu-ms/op")
	if f := failed.Load(); f != nil {
		b.Fatal(f)
	}
	slices.Sort(lat)
	pct := func(p float64) float64 { return float64(lat[min(int(float64(len(lat))*p), len(lat)-1)]) / 1e6 }
	b.ReportMetric(pct(0.50), "p50-ms")
	b.ReportMetric(pct(0.99), "p99-ms")
	b.ReportMetric(pct(1), "max-ms")
}

// BenchmarkRoutes32Clients measures the busiest queries through the real
// HTTP server over the demo world, 32 clients at once, each request for one
// of the busiest wallets in turn.
func BenchmarkRoutes32Clients(b *testing.B) {
	ds := loadDemo(b)
	b.Logf("demo world: %d events, %d sampled wallets", ds.events, len(ds.wallets))
	for _, r := range []struct{ name, route string }{
		{"trades-user", "/v2/trades?user=%s"},
		{"activity-user", "/v2/activity?user=%s"},
		{"positions-user", "/v2/positions?user=%s"},
		{"positions-closed", "/v2/positions?user=%s&status=CLOSED"},
		{"trades-user-maker-1000", "/v2/trades?user=%s&taker_only=false&limit=1000"},
	} {
		b.Run(r.name, func(b *testing.B) {
			ds.run(b, func(i int) string { return fmt.Sprintf(r.route, ds.wallets[i%len(ds.wallets)]) })
		})
	}
	b.Run("trades-global", func(b *testing.B) { ds.run(b, func(int) string { return "/v2/trades" }) })
}

// BenchmarkRouteHandlers is the per-request work of the busiest routes
// without the network: the handler called directly, one request at a time,
// each for the next busy wallet. Its ns/op is steadier than the 32-client
// latencies on a shared machine, so it is the figure to compare changes by.
func BenchmarkRouteHandlers(b *testing.B) {
	ds := loadDemo(b)
	h := ds.srv.Config.Handler
	for _, r := range []struct{ name, route string }{
		{"trades-user", "/v2/trades?user=%s"},
		{"activity-user", "/v2/activity?user=%s"},
		{"positions-user", "/v2/positions?user=%s"},
	} {
		b.Run(r.name, func(b *testing.B) {
			reqs := make([]*http.Request, len(ds.wallets))
			for i, w := range ds.wallets {
				reqs[i] = httptest.NewRequest(http.MethodGet, fmt.Sprintf(r.route, w), nil)
			}
			w := &discardWriter{h: http.Header{}}
			b.ReportAllocs()
			b.ResetTimer()
			for i := range b.N {
				clear(w.h)
				w.status, w.n = 0, 0
				h.ServeHTTP(w, reqs[i%len(reqs)])
				if w.status != 200 {
					b.Fatalf("status %d", w.status)
				}
			}
		})
	}
}

type discardWriter struct {
	h      http.Header
	status int
	n      int
}

func (w *discardWriter) Header() http.Header { return w.h }
func (w *discardWriter) WriteHeader(code int) {
	if w.status == 0 {
		w.status = code
	}
}
func (w *discardWriter) Write(p []byte) (int, error) {
	if w.status == 0 {
		w.status = 200
	}
	w.n += len(p)
	return len(p), nil
}
