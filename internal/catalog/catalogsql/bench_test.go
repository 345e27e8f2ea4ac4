package catalogsql_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"pmx/internal/amount"
	"pmx/internal/catalog/catalog"
	"pmx/internal/catalog/cataloghttp"
	"pmx/internal/catalog/catalogsql"
	"pmx/internal/data/ledger"
)

// benchWorld is a demo-sized catalog: 200 events of 3 binary markets each,
// from ledger lines, every market with live figures.
func benchWorld(b testing.TB) (*catalogsql.Store, catalog.StaticLive) {
	db := openDB(b)
	st, err := catalogsql.New(context.Background(), db)
	if err != nil {
		b.Fatal(err)
	}
	live := catalog.StaticLive{}
	cats := []string{"Crypto", "Sports", "Politics", "Economy"}
	for ev := int64(1); ev <= 200; ev++ {
		for k := int64(0); k < 3; k++ {
			n := ev*3 + k
			sum := sha256.Sum256([]byte(fmt.Sprint(n))) // condition ids look like hashes
			c := "0x" + hex.EncodeToString(sum[:])
			line := ledger.Event{Kind: ledger.KindMarket, ConditionID: c, Question: fmt.Sprintf("Question %d?", n),
				Slug: fmt.Sprintf("market-%d", n), EventID: ev, EventSlug: fmt.Sprintf("event-%d", ev),
				EventTitle: fmt.Sprintf("Event %d", ev), Category: cats[ev%4], Outcomes: []string{"Yes", "No"},
				TokenIDs: []string{fmt.Sprint(n*2 + 1000), fmt.Sprint(n*2 + 1001)}, EndDate: "2026-12-31T00:00:00Z",
				Active: bp(true), Closed: bp(ev%5 == 0)}
			if err := st.UpsertFromLedgerMarket(context.Background(), line); err != nil {
				b.Fatal(err)
			}
			v := amount.Micro(n * 1_000_000)
			p := amount.MustParse("0.42")
			live[c] = catalog.Live{Volume: &v, Volume24hr: &v, Liquidity: &v, OpenInterest: &v, LastTradePrice: &p,
				BestBid: &p, BestAsk: &p, OutcomePrices: []amount.Micro{p, amount.One - p}}
		}
	}
	return st, live
}

var benchPaths = []string{
	"/events?limit=20",
	"/events/keyset?limit=20",
	"/markets?limit=20",
	"/markets/keyset?limit=20",
	"/tags",
}

// BenchmarkListings measures rendering: StaticLive has no generation, so
// the whole-response cache is off and every request renders.
func BenchmarkListings(b *testing.B) {
	st, live := benchWorld(b)
	benchListings(b, cataloghttp.NewHandler(st, cataloghttp.Options{Live: live}))
}

// BenchmarkListingsCached measures the whole-response cache's hit path.
func BenchmarkListingsCached(b *testing.B) {
	st, live := benchWorld(b)
	benchListings(b, cataloghttp.NewHandler(st, cataloghttp.Options{Live: frozenLive{live}}))
}

// frozenLive is StaticLive that promises never to change.
type frozenLive struct{ catalog.StaticLive }

func (frozenLive) LiveGeneration() uint64 { return 1 }

// livePaths filter and order on live figures, which the handler does
// after loading every matching row (listing.go postLive).
var livePaths = []string{
	"/events?order=volume&ascending=false&limit=20",
	"/markets?order=volume&ascending=false&limit=20",
	"/markets?volume_num_min=100&limit=20",
}

// BenchmarkLiveListings measures listings ordered or filtered on live
// figures; every request renders (no whole-response cache).
func BenchmarkLiveListings(b *testing.B) {
	st, live := benchWorld(b)
	benchPathsOn(b, cataloghttp.NewHandler(st, cataloghttp.Options{Live: live}), livePaths)
}

// BenchmarkListingsLiveMoving measures the render-cache miss path: every
// request sees new live figures for every market (as after a trade in each),
// so every event and market renders afresh.
func BenchmarkListingsLiveMoving(b *testing.B) {
	st, live := benchWorld(b)
	benchPathsOn(b, cataloghttp.NewHandler(st, cataloghttp.Options{Live: &movingLive{base: live}}), benchPaths[:4])
}

// movingLive is StaticLive with every volume one micro-USDC higher on each
// call.
type movingLive struct {
	base catalog.StaticLive
	n    amount.Micro
}

func (m *movingLive) Live(ctx context.Context, ids []string) (map[string]catalog.Live, error) {
	m.n++
	out, _ := m.base.Live(ctx, ids)
	for id, l := range out {
		v := *l.Volume + m.n
		l.Volume = &v
		out[id] = l
	}
	return out, nil
}

func benchListings(b *testing.B, h http.Handler) { benchPathsOn(b, h, benchPaths) }

func benchPathsOn(b *testing.B, h http.Handler, paths []string) {
	for _, p := range paths {
		name := strings.NewReplacer("/", "_", "?", "_", "=", "").Replace(strings.TrimPrefix(p, "/"))
		b.Run(name, func(b *testing.B) {
			req := httptest.NewRequest(http.MethodGet, p, nil)
			w := &discardWriter{h: http.Header{}}
			for b.Loop() {
				w.code = 200
				h.ServeHTTP(w, req)
				if w.code != 200 {
					b.Fatal(w.code)
				}
			}
		})
	}
}

// TestListingLatency measures listing latency over loopback with 32
// concurrent clients (PMX_LONG=1; figures go to docs/perf/catalog.md).
// It asserts nothing about time, only that every request succeeded.
func TestListingLatency(t *testing.T) {
	if os.Getenv("PMX_LONG") != "1" {
		t.Skip("set PMX_LONG=1")
	}
	st, live := benchWorld(t)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: cataloghttp.NewHandler(st, cataloghttp.Options{Live: live})}
	go srv.Serve(ln)
	defer srv.Shutdown(context.Background())
	base := "http://" + ln.Addr().String()
	tr := &http.Transport{MaxIdleConnsPerHost: 64}
	client := &http.Client{Transport: tr}
	perClient := 300
	if s := os.Getenv("PMX_LATENCY_N"); s != "" {
		fmt.Sscan(s, &perClient)
	}
	const clients = 32
	for _, p := range benchPaths {
		var mu sync.Mutex
		var lat []time.Duration
		var wg sync.WaitGroup
		start := time.Now()
		for range clients {
			wg.Add(1)
			go func() {
				defer wg.Done()
				mine := make([]time.Duration, 0, perClient)
				for range perClient {
					t0 := time.Now()
					resp, err := client.Get(base + p)
					if err != nil {
						t.Error(err)
						return
					}
					io.Copy(io.Discard, resp.Body)
					resp.Body.Close()
					if resp.StatusCode != 200 {
						t.Errorf("%s: %d", p, resp.StatusCode)
						return
					}
					mine = append(mine, time.Since(t0))
				}
				mu.Lock()
				lat = append(lat, mine...)
				mu.Unlock()
			}()
		}
		wg.Wait()
		wall := time.Since(start)
		slices.Sort(lat)
		q := func(f float64) time.Duration { return lat[int(f*float64(len(lat)-1))] }
		t.Logf("%-26s n=%d p50=%v p99=%v max=%v throughput=%.0f req/s", p, len(lat),
			q(0.50).Round(time.Microsecond), q(0.99).Round(time.Microsecond), lat[len(lat)-1].Round(time.Microsecond),
			float64(len(lat))/wall.Seconds())
	}
}

// discardWriter measures the handler without a recorder's copying.
type discardWriter struct {
	h    http.Header
	code int
}

func (d *discardWriter) Header() http.Header         { return d.h }
func (d *discardWriter) Write(p []byte) (int, error) { return len(p), nil }
func (d *discardWriter) WriteHeader(code int)        { d.code = code }
