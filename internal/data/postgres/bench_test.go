package postgres_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"pmx/internal/catalog/catalog"
	"pmx/internal/catalog/cataloghttp"
	"pmx/internal/catalog/catalogpg"
	"pmx/internal/catalog/catalogsql"
	"pmx/internal/clock"
	"pmx/internal/data/dataapi"
	"pmx/internal/data/ingest"
	"pmx/internal/data/postgres"
	"pmx/internal/data/sqlite"
	"pmx/internal/data/store"
	"pmx/internal/loadgen"
	"pmx/internal/pgsql"
	"pmx/internal/pgsql/pgtest"
	"pmx/internal/ratelimit"
)

// BenchmarkStores measures the demo world's load and the hot routes on the
// embedded file, on PostgreSQL (one process, the writer serving) and on two
// PostgreSQL read nodes (clients alternate), side by side in one run with
// the same method: the real HTTP servers in this process, loadgen clients.
//
//	PMX_BENCH_SCALE=0.1 scripts/pgcluster.sh go test -run '^$' -bench BenchmarkStores -benchtime 4000x ./internal/data/postgres/
func BenchmarkStores(b *testing.B) {
	scale := 0.05
	if s := os.Getenv("PMX_BENCH_SCALE"); s != "" {
		v, err := strconv.ParseFloat(s, 64)
		if err != nil {
			b.Fatal(err)
		}
		scale = v
	}
	evs := demoWorld(b, scale)
	demoNow := func() time.Time { return now } // the demo world's "now"
	type deployment struct {
		name          string
		data, catalog []*httptest.Server
	}
	var deps []deployment
	serveBoth := func(d store.Store, cat *catalogsql.Store, live catalog.LiveFields) (*httptest.Server, *httptest.Server) {
		data := dataapi.New(dataapi.Options{Store: d, CursorKey: []byte("bench-cursor-key-0123456789"), Limits: &ratelimit.Config{},
			Clock: clock.NewManual(now)})
		ds, cs := httptest.NewServer(data), httptest.NewServer(cataloghttp.NewHandler(cat, cataloghttp.Options{Live: live}))
		b.Cleanup(func() { ds.Close(); cs.Close() })
		return ds, cs
	}
	load := func(name string, p *ingest.Pipeline) {
		t0 := time.Now()
		for i := 0; i < len(evs); i += 50_000 {
			if _, err := p.Apply(context.Background(), evs[i:min(i+50_000, len(evs))]); err != nil {
				b.Fatal(err)
			}
		}
		b.Logf("%s: demo world scale %v, %d events loaded in %v", name, scale, len(evs), time.Since(t0).Round(time.Millisecond))
	}

	// SQLite.
	path := filepath.Join(b.TempDir(), "pmx.db")
	lite, err := sqlite.Open(path, sqlite.Options{Clock: demoNow})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { lite.Close() })
	litePool, err := sqlite.OpenPool(path, 4)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { litePool.Close() })
	liteCat, err := catalogsql.New(context.Background(), litePool)
	if err != nil {
		b.Fatal(err)
	}
	load("sqlite", &ingest.Pipeline{Data: lite, Catalog: liteCat})
	d, c := serveBoth(lite, liteCat, lite)
	deps = append(deps, deployment{"sqlite", []*httptest.Server{d}, []*httptest.Server{c}})

	// PostgreSQL: the writer serving, then two read nodes.
	url := pgtest.DB(b)
	pg, err := postgres.Open(context.Background(), url, postgres.Options{Options: sqlite.Options{Clock: demoNow}})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { pg.Close() })
	catStore := func() *catalogsql.Store {
		p, err := pgsql.Pool(context.Background(), url, 4, 0)
		if err != nil {
			b.Fatal(err)
		}
		db := pgsql.SQL(p)
		b.Cleanup(func() { db.Close(); p.Close() })
		s, err := catalogpg.New(context.Background(), db)
		if err != nil {
			b.Fatal(err)
		}
		return s
	}
	pgCat := catStore()
	load("postgres", &ingest.Pipeline{Data: pg, Catalog: pgCat})
	d, c = serveBoth(pg, pgCat, pg)
	deps = append(deps, deployment{"postgres", []*httptest.Server{d}, []*httptest.Server{c}})
	var nd, nc []*httptest.Server
	for range 2 {
		node, err := postgres.Open(context.Background(), url, postgres.Options{Options: sqlite.Options{Clock: demoNow}, Follower: true})
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { node.Close() })
		d, c := serveBoth(node, catStore(), node)
		nd, nc = append(nd, d), append(nc, c)
	}
	deps = append(deps, deployment{"postgres-2-read-nodes", nd, nc})

	wallets := busyWallets(b, deps[0].data[0])
	routes := []struct {
		name, path string
		catalog    bool
	}{
		{"trades-user", "/v2/trades?user=%s", false},
		{"activity-user", "/v2/activity?user=%s", false},
		{"positions-user", "/v2/positions?user=%s", false},
		{"leaderboard-week", "/v2/leaderboard?time_period=week&limit=50", false},
		{"catalog-events", "/events?limit=20&active=true", true},
	}
	for _, r := range routes {
		for _, dep := range deps {
			b.Run(r.name+"/"+dep.name, func(b *testing.B) {
				srvs := dep.data
				if r.catalog {
					srvs = dep.catalog
				}
				runClients(b, srvs, func(i int) string {
					if !strings.Contains(r.path, "%s") {
						return r.path
					}
					return fmt.Sprintf(r.path, wallets[i%len(wallets)])
				})
			})
		}
	}
}

// busyWallets are the proxy wallets of the newest fills.
func busyWallets(b *testing.B, srv *httptest.Server) []string {
	res, err := http.Get(srv.URL + "/v2/trades?limit=500&taker_only=false")
	if err != nil {
		b.Fatal(err)
	}
	defer res.Body.Close()
	v := ids{}
	buf, err := io.ReadAll(res.Body)
	if err != nil {
		b.Fatal(err)
	}
	v.harvest(buf)
	if len(v["user"]) == 0 {
		b.Fatal("no wallets")
	}
	return v["user"]
}

// runClients sends b.N requests from 16 keep-alive clients, spread over
// srvs, and reports latency percentiles and requests/s.
func runClients(b *testing.B, srvs []*httptest.Server, path func(int) string) {
	const clients = 16
	lat := make([]time.Duration, b.N)
	var next atomic.Int64
	var failed atomic.Value
	var wg sync.WaitGroup
	b.ResetTimer()
	t0 := time.Now()
	for k := range clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c, err := loadgen.Dial(srvs[k%len(srvs)].Listener.Addr().String())
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
				s := time.Now()
				status, _, err := c.Get(path(i))
				if err != nil {
					failed.Store(err.Error())
					return
				}
				lat[i] = time.Since(s)
				if status != 200 {
					failed.Store(fmt.Sprintf("%s: %d", path(i), status))
				}
			}
		}()
	}
	wg.Wait()
	el := time.Since(t0)
	b.StopTimer()
	if f := failed.Load(); f != nil {
		b.Fatal(f)
	}
	slices.Sort(lat)
	pct := func(p float64) float64 { return float64(lat[min(int(float64(len(lat))*p), len(lat)-1)]) / 1e6 }
	b.ReportMetric(float64(b.N)/el.Seconds(), "req/s")
	b.ReportMetric(pct(0.50), "p50-ms")
	b.ReportMetric(pct(0.99), "p99-ms")
}
