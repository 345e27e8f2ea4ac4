package dataapi_test

import (
	"bytes"
	"compress/gzip"
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"pmx/internal/amount"
	"pmx/internal/clock"
	"pmx/internal/data/dataapi"
	"pmx/internal/data/ledger"
	"pmx/internal/data/sqlite"
	"pmx/internal/ratelimit"
)

// cacheRig serves one store twice: with the page cache and without it, on
// one clock and one cursor key, so equal states answer equal bytes.
type cacheRig struct {
	t               *testing.T
	db              *sqlite.DB
	clock           *clock.Manual
	cached, uncache *httptest.Server
	svc             *dataapi.Service
	gen             *rigLedger
}

func newCacheRig(t *testing.T, tune func(*dataapi.Options)) *cacheRig {
	t.Helper()
	clock := clock.NewManual(Now)
	db, err := sqlite.Open(filepath.Join(t.TempDir(), "pmx.db"), sqlite.Options{Clock: clock.Now})
	if err != nil {
		t.Fatal(err)
	}
	opts := func(bytes int64) dataapi.Options {
		return dataapi.Options{Store: db, CursorKey: []byte("page-cache-test-cursor-key-01234"), Clock: clock,
			Limits: &ratelimit.Config{}, PageCacheBytes: bytes}
	}
	co := opts(0)
	if tune != nil {
		tune(&co)
	}
	svc := dataapi.New(co)
	rig := &cacheRig{t: t, db: db, clock: clock, svc: svc,
		cached: httptest.NewServer(svc), uncache: httptest.NewServer(dataapi.New(opts(-1))), gen: newRigLedger()}
	t.Cleanup(func() { rig.cached.Close(); rig.uncache.Close(); db.Close() })
	return rig
}

func fetch(t testing.TB, url string) (int, string) {
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, string(b)
}

var traceID = regexp.MustCompile(`"trace_id":"[0-9a-f]*"`)

// compare reads path from both servers; it reports a difference.
func (r *cacheRig) compare(path string) string {
	cs, cb := fetch(r.t, r.cached.URL+path)
	us, ub := fetch(r.t, r.uncache.URL+path)
	cb, ub = traceID.ReplaceAllString(cb, ""), traceID.ReplaceAllString(ub, "") // minted per request
	if cs != us || cb != ub {
		return fmt.Sprintf("%s: cached %d %.300s\nuncached %d %.300s", path, cs, cb, us, ub)
	}
	return ""
}

func (r *cacheRig) apply(evs []ledger.Event) {
	r.t.Helper()
	if _, err := r.db.Apply(context.Background(), evs); err != nil {
		r.t.Fatalf("apply: %v", err)
	}
}

// rigLedger makes random valid batches: three markets, five wallets, a
// builder; trades only by sellers who hold (they split first), profile and
// market renames, one resolution and redemptions; timestamps around the
// clock, some near the feeds' three-year floor so the default window moves
// rows out as the clock advances.
type rigLedger struct {
	r     *rand.Rand
	block int64
	held  map[[2]string]amount.Micro
	done  map[int]bool // resolved markets
}

func newRigLedger() *rigLedger {
	return &rigLedger{r: rand.New(rand.NewPCG(7, 11)), block: 1000, held: map[[2]string]amount.Micro{}, done: map[int]bool{}}
}

func rigWallet(i int) string { return fmt.Sprintf("0x%040x", 0xa0+i) }
func rigCond(m int) string   { return fmt.Sprintf("0x%064x", 0xc0+m) }

func (g *rigLedger) setup() []ledger.Event {
	var evs []ledger.Event
	for m := 1; m <= 3; m++ {
		evs = append(evs, g.market(m, fmt.Sprintf("Question %d?", m)))
	}
	evs = append(evs, ledger.Event{Kind: ledger.KindBuilder, Code: "0x" + strings.Repeat("b1", 32), Name: "routes"})
	return evs
}

func (g *rigLedger) market(m int, q string) ledger.Event {
	return ledger.Event{Kind: ledger.KindMarket, ConditionID: rigCond(m), Question: q, Slug: fmt.Sprint("m", m),
		EventID: int64(100 + m%2), EventSlug: "ev", EventTitle: "Event", Category: "sports",
		Outcomes: []string{"Yes", "No"}, TokenIDs: []string{fmt.Sprint(m, 1), fmt.Sprint(m, 2)}, EndDate: "2026-12-31T00:00:00Z"}
}

func (g *rigLedger) env(e ledger.Event, ts int64) ledger.Event {
	g.block++
	e.BlockNumber, e.LogIndex, e.Timestamp, e.TxHash = g.block, 0, ts, fmt.Sprintf("0x%064x", g.block)
	return e
}

// batch is 1–4 events at or before now.
func (g *rigLedger) batch(now int64) []ledger.Event {
	var out []ledger.Event
	for n := 1 + g.r.IntN(4); n > 0; n-- {
		ts := now - int64(g.r.IntN(3600))
		if g.r.IntN(5) == 0 { // near the three-year floor of the default window
			ts = time.Unix(now, 0).AddDate(-3, 0, 0).Unix() + 1 + int64(g.r.IntN(3))
		}
		w := rigWallet(g.r.IntN(5))
		m := 1 + g.r.IntN(3)
		switch k := g.r.IntN(10); {
		case k < 5 && !g.done[m]:
			tok := fmt.Sprint(m, 1+g.r.IntN(2))
			buyer, seller := w, rigWallet(g.r.IntN(5))
			if buyer == seller {
				continue
			}
			size := amount.Micro(1+g.r.IntN(20)) * amount.One
			if g.held[[2]string{seller, tok}] < size {
				out = append(out, g.env(ledger.Event{Kind: ledger.KindSplit, User: seller, ConditionID: rigCond(m), Amount: size}, ts))
				g.held[[2]string{seller, fmt.Sprint(m, 1)}] += size
				g.held[[2]string{seller, fmt.Sprint(m, 2)}] += size
			}
			side, maker, taker := "BUY", seller, buyer
			if g.r.IntN(2) == 0 {
				side, maker, taker = "SELL", buyer, seller
			}
			e := ledger.Event{Kind: ledger.KindTrade, TokenID: tok, Maker: maker, Taker: taker, Side: side,
				Price: amount.Micro(10_000 * (1 + g.r.IntN(98))), Size: size}
			if g.r.IntN(2) == 0 {
				e.BuilderCode = "0x" + strings.Repeat("b1", 32)
			}
			out = append(out, g.env(e, ts))
			g.held[[2]string{buyer, tok}] += size
			g.held[[2]string{seller, tok}] -= size
		case k == 5:
			out = append(out, ledger.Event{Kind: ledger.KindProfile, Address: w, Name: fmt.Sprint("name", g.r.IntN(100))})
		case k == 6:
			out = append(out, g.market(m, fmt.Sprintf("Question %d, take %d?", m, g.r.IntN(100))))
		case k == 7 && !g.done[m] && g.r.IntN(4) == 0:
			g.done[m] = true
			out = append(out, ledger.Event{Kind: ledger.KindResolution, ConditionID: rigCond(m),
				Payouts: []amount.Micro{amount.One, 0}, ResolvedAt: now})
		case k == 8 && g.done[m]:
			out = append(out, g.env(ledger.Event{Kind: ledger.KindRedeem, User: w, ConditionID: rigCond(m)}, now))
			delete(g.held, [2]string{w, fmt.Sprint(m, 1)})
			delete(g.held, [2]string{w, fmt.Sprint(m, 2)})
		default:
			out = append(out, g.env(ledger.Event{Kind: ledger.KindDeposit, User: w, AmountUSDC: amount.One}, ts))
		}
	}
	return out
}

// rigPaths are the cached routes in several shapes.
func rigPaths(r *rand.Rand) string {
	w := rigWallet(r.IntN(5))
	c := rigCond(1 + r.IntN(3))
	return []string{
		"/v2/trades?user=" + w, "/v2/trades?user=" + w + "&limit=2", "/v2/trades?condition=" + c, "/v2/trades",
		"/v2/activity?user=" + w, "/v2/activity?user=" + w + "&limit=3&type=TRADE", "/v2/activity?user=" + w + "&start=1",
		"/v2/positions?user=" + w, "/v2/positions?user=" + w + "&status=CLOSED", "/v2/positions?condition=" + c,
		"/v2/value?user=" + w, "/v2/holders?condition=" + c,
		"/v2/leaderboard", "/v2/leaderboard?time_period=all&sort_by=VOLUME", "/v2/biggest-winners?time_period=all",
		"/v2/builders/leaderboard?time_period=week", "/v2/builders/volume",
		"/v2/trades?user=bad", // errors are never cached
	}[r.IntN(18)]
}

// The page cache never serves a page older than the last acknowledged
// ingest: reads, ingests and clock moves in a random order, every read
// compared byte for byte with an uncached server over the same store.
func TestPageCache_NeverServesAPageOlderThanTheLastIngest(t *testing.T) {
	rig := newCacheRig(t, nil)
	rig.apply(rig.gen.setup())
	r := rand.New(rand.NewPCG(1, 2))
	var recent []string // bots poll the same pages: half the reads repeat one of the last few
	for i := 0; i < 800; i++ {
		switch k := r.IntN(20); {
		case k < 3:
			rig.apply(rig.gen.batch(rig.clock.Now().Unix()))
		case k == 3:
			rig.clock.Advance(time.Duration(1+r.IntN(20)) * time.Second)
		case k == 4 && r.IntN(10) == 0:
			rig.clock.Advance(time.Duration(6+r.IntN(20)) * time.Hour) // day boundaries for the boards
		default:
			p := rigPaths(r)
			if len(recent) > 0 && r.IntN(2) == 0 {
				p = recent[r.IntN(len(recent))]
			}
			recent = append(recent, p)
			if len(recent) > 4 {
				recent = recent[1:]
			}
			if d := rig.compare(p); d != "" {
				t.Fatalf("step %d: %s", i, d)
			}
			switch r.IntN(10) { // between two reads of one page: time passes
			case 0, 1:
				rig.clock.Advance(time.Duration(1+r.IntN(4)) * time.Second)
			case 2:
				rig.clock.Advance(time.Duration(1+r.IntN(30)) * time.Hour)
			}
			if d := rig.compare(p); d != "" { // the second read is the likely hit
				t.Fatalf("step %d, again: %s", i, d)
			}
		}
	}
	st := rig.svc.PageCacheStats()
	if st.Hits < 200 || st.Invalidations < 30 {
		t.Errorf("the cache was hardly exercised: %+v", st)
	}
}

// With readers filling the cache concurrently, every page read after an
// Apply returns shows that Apply.
func TestPageCache_ConcurrentReadersNeverPinAnOlderPage(t *testing.T) {
	rig := newCacheRig(t, nil)
	rig.apply(rig.gen.setup())
	stop := make(chan struct{})
	var wg sync.WaitGroup
	for c := 0; c < 2; c++ {
		wg.Add(1)
		go func(seed uint64) {
			defer wg.Done()
			r := rand.New(rand.NewPCG(seed, 3))
			for {
				select {
				case <-stop:
					return
				default:
				}
				resp, err := http.Get(rig.cached.URL + rigPaths(r))
				if err == nil {
					io.Copy(io.Discard, resp.Body)
					resp.Body.Close()
				}
			}
		}(uint64(c))
	}
	r := rand.New(rand.NewPCG(5, 6))
	for i := 0; i < 40; i++ {
		rig.apply(rig.gen.batch(rig.clock.Now().Unix())) // acknowledged here
		for j := 0; j < 6; j++ {
			if d := rig.compare(rigPaths(r)); d != "" {
				close(stop)
				wg.Wait()
				t.Fatalf("after apply %d: %s", i, d)
			}
		}
	}
	close(stop)
	wg.Wait()
}

// The comparison catches a stale cache: with the generation frozen, a page
// cached before an ingest is served after it.
func TestPageCache_ComparisonCatchesAFrozenGeneration(t *testing.T) {
	rig := newCacheRig(t, func(o *dataapi.Options) { o.Store = frozenGen{o.Store.(*sqlite.DB)} })
	rig.apply(rig.gen.setup())
	path := "/v2/activity?user=" + rigWallet(0) + "&start=1"
	rig.compare(path) // cached (empty page)
	rig.apply([]ledger.Event{rig.gen.env(ledger.Event{Kind: ledger.KindSplit, User: rigWallet(0), ConditionID: rigCond(1),
		Amount: amount.One}, rig.clock.Now().Unix())})
	if d := rig.compare(path); d == "" {
		t.Fatal("a frozen generation went unnoticed")
	}
}

// frozenGen is the real store with a generation that never moves.
type frozenGen struct{ *sqlite.DB }

func (frozenGen) Generation() uint64                { return 1 }
func (frozenGen) WalletGeneration(string) uint64    { return 1 }
func (frozenGen) PositionsGeneration(string) uint64 { return 1 }
func (frozenGen) HoldersGeneration([]string) uint64 { return 1 }

// The cache is bounded: with a small bound, its bytes never exceed it, pages
// are evicted, and /metrics reports it.
func TestPageCache_MemoryIsBoundedAndReportedAsMetrics(t *testing.T) {
	const bound = 64 << 10
	rig := newCacheRig(t, func(o *dataapi.Options) { o.PageCacheBytes = bound })
	rig.apply(rig.gen.setup())
	for i := 0; i < 40; i++ {
		rig.apply(rig.gen.batch(rig.clock.Now().Unix()))
	}
	r := rand.New(rand.NewPCG(9, 9))
	for i := 0; i < 400; i++ {
		p := rigPaths(r)
		sep := "?"
		if strings.Contains(p, "?") {
			sep = "&"
		}
		fetch(t, rig.cached.URL+p+sep+fmt.Sprintf("n=%d", i%97))
		if st := rig.svc.PageCacheStats(); st.Bytes > bound {
			t.Fatalf("cache holds %d bytes over its bound %d", st.Bytes, bound)
		}
	}
	st := rig.svc.PageCacheStats()
	if st.Evictions == 0 || st.Entries == 0 || st.MaxBytes != bound {
		t.Errorf("stats %+v", st)
	}
	reg := prometheus.NewRegistry()
	reg.MustRegister(rig.svc.Collectors()...)
	mfs, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]float64{}
	for _, mf := range mfs {
		m := mf.GetMetric()[0]
		if m.GetGauge() != nil {
			got[mf.GetName()] = m.GetGauge().GetValue()
		} else {
			got[mf.GetName()] = m.GetCounter().GetValue()
		}
	}
	for _, name := range []string{"pmx_data_page_cache_bytes", "pmx_data_page_cache_max_bytes", "pmx_data_page_cache_entries",
		"pmx_data_page_cache_hits_total", "pmx_data_page_cache_misses_total", "pmx_data_page_cache_evictions_total",
		"pmx_data_page_cache_invalidations_total"} {
		if _, ok := got[name]; !ok {
			t.Errorf("metric %s missing", name)
		}
	}
	if got["pmx_data_page_cache_max_bytes"] != bound || got["pmx_data_page_cache_evictions_total"] == 0 {
		t.Errorf("metrics %v", got)
	}
}

// A wallet's pages are keyed by the wallet's own generation and a market's
// holders by the market's: a batch that touches only other wallets in other
// markets leaves them cached (a hit, still equal to the uncached answer); a
// batch that moves a mark of a market the wallet holds makes its positions
// and value miss but not its feeds; a batch that touches the wallet, or
// renames a market, makes them all miss. Holders miss exactly when a
// position in the market, its marks or a holder's profile change.
func TestPageCache_WalletAndMarketPagesOutliveOtherWalletsIngest(t *testing.T) {
	rig := newCacheRig(t, nil)
	rig.apply(rig.gen.setup())
	a, b, c, d := rigWallet(0), rigWallet(1), rigWallet(2), rigWallet(3)
	now := func() int64 { return rig.clock.Now().Unix() }
	split := func(w string, m int) []ledger.Event {
		return []ledger.Event{rig.gen.env(ledger.Event{Kind: ledger.KindSplit, User: w, ConditionID: rigCond(m),
			Amount: 10 * amount.One}, now())}
	}
	trade := func(buyer, seller string, m int) []ledger.Event {
		return []ledger.Event{rig.gen.env(ledger.Event{Kind: ledger.KindTrade, TokenID: fmt.Sprint(m, 1), Maker: seller,
			Taker: buyer, Side: "BUY", Price: amount.Micro(10_000 * (10 + rig.gen.r.IntN(80))), Size: amount.One}, now())}
	}
	rig.apply(split(a, 1))
	rig.apply(split(c, 1))
	rig.apply(split(c, 2))
	rig.apply(split(d, 2))
	pages := []string{"/v2/activity?user=" + a, "/v2/positions?user=" + a, "/v2/value?user=" + a,
		"/v2/holders?condition=" + rigCond(1), "/v2/holders?condition=" + rigCond(2)}
	step := func(what string, want ...bool) {
		t.Helper()
		for i, p := range pages {
			h0 := rig.svc.PageCacheStats().Hits
			if d := rig.compare(p); d != "" {
				t.Fatalf("%s: %s", what, d)
			}
			if hit := rig.svc.PageCacheStats().Hits > h0; hit != want[i] {
				t.Errorf("%s: %s hit %v, want %v", what, p, hit, want[i])
			}
		}
	}
	step("first read", false, false, false, false, false)
	step("again", true, true, true, true, true)
	rig.apply(split(b, 3))
	step("after another wallet's batch in another market", true, true, true, true, true)
	rig.apply(split(b, 2))
	step("after another wallet's split in market 2", true, true, true, true, false)
	rig.apply(trade(b, c, 2))
	step("after a trade in market 2", true, true, true, true, false)
	rig.apply(trade(b, c, 1))
	step("after a trade in market 1 (marks move)", true, false, false, false, true)
	rig.apply([]ledger.Event{{Kind: ledger.KindProfile, Address: d, Name: "renamed"}})
	step("after a profile change of market 2's holder", true, true, true, true, false)
	rig.apply(split(a, 1))
	step("after the wallet's own batch", false, false, false, false, true)
	rig.apply([]ledger.Event{rig.gen.market(1, "Renamed?")})
	step("after a market rename", false, false, false, false, false)
	step("again", true, true, true, true, true)
}

// A hit is served gzip-compressed to a client that asks for it (the same
// bytes once decompressed), and uncompressed to one that does not or that
// refuses gzip; every cacheable answer says Vary: Accept-Encoding.
func TestPageCache_ServesGzipToClientsThatAskForIt(t *testing.T) {
	rig := newCacheRig(t, nil)
	rig.apply(rig.gen.setup())
	for i := 0; i < 10; i++ {
		rig.apply(rig.gen.batch(rig.clock.Now().Unix()))
	}
	w := rigWallet(0)
	path := "/v2/activity?user=" + w + "&start=1"
	_, want := fetch(t, rig.uncache.URL+path)
	raw := &http.Client{Transport: &http.Transport{DisableCompression: true}}
	get := func(enc string) (*http.Response, []byte) {
		req, _ := http.NewRequest(http.MethodGet, rig.cached.URL+path, nil)
		if enc != "" {
			req.Header.Set("Accept-Encoding", enc)
		}
		resp, err := raw.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp, b
	}
	if resp, b := get("gzip"); resp.Header.Get("Content-Encoding") != "" || string(b) != want {
		t.Fatalf("a miss: encoding %q", resp.Header.Get("Content-Encoding")) // misses go out as rendered
	}
	resp, b := get("gzip, br")
	if resp.Header.Get("Content-Encoding") != "gzip" || resp.Header.Get("Vary") != "Accept-Encoding" ||
		resp.Header.Get("Content-Length") != strconv.Itoa(len(b)) || len(b) >= len(want) {
		t.Fatalf("gzip hit: %v, %d bytes of %d", resp.Header, len(b), len(want))
	}
	zr, err := gzip.NewReader(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	if plain, _ := io.ReadAll(zr); string(plain) != want {
		t.Fatal("the gzip hit does not decompress to the page")
	}
	for _, enc := range []string{"", "gzip;q=0", "identity"} {
		resp, b := get(enc)
		if resp.Header.Get("Content-Encoding") != "" || string(b) != want || resp.Header.Get("Vary") != "Accept-Encoding" {
			t.Errorf("Accept-Encoding %q: encoding %q, %d bytes", enc, resp.Header.Get("Content-Encoding"), len(b))
		}
	}
}

// BenchmarkPageCacheHit is the handler's cost of a hit, without the socket:
// the service (trace id, page cache lookup with its generation, headers)
// writing a cached page into a recorder, per cached route shape.
//
//	go test -run '^$' -bench BenchmarkPageCacheHit -benchmem ./internal/data/dataapi/
func BenchmarkPageCacheHit(b *testing.B) {
	rig := newCacheRig(&testing.T{}, nil)
	defer func() { rig.cached.Close(); rig.uncache.Close(); rig.db.Close() }()
	rig.apply(rig.gen.setup())
	for range 300 {
		rig.apply(rig.gen.batch(rig.clock.Now().Unix()))
	}
	w := rigWallet(0)
	for _, path := range []string{"/v2/trades?user=" + w, "/v2/activity?user=" + w, "/v2/positions?user=" + w,
		"/v2/value?user=" + w, "/v2/holders?condition=" + rigCond(1), "/v2/leaderboard?time_period=all"} {
		b.Run(path[4:strings.IndexByte(path, '?')], func(b *testing.B) {
			req := httptest.NewRequest(http.MethodGet, path, nil)
			rec := httptest.NewRecorder()
			rig.svc.ServeHTTP(rec, req) // the miss that fills the cache
			h0 := rig.svc.PageCacheStats().Hits
			b.ReportAllocs()
			b.ResetTimer()
			for range b.N {
				rec := httptest.NewRecorder()
				rig.svc.ServeHTTP(rec, req)
			}
			b.StopTimer()
			if hits := rig.svc.PageCacheStats().Hits - h0; hits != uint64(b.N) {
				b.Fatalf("%d hits of %d requests", hits, b.N)
			}
			b.ReportMetric(float64(len(rec.Body.Bytes())), "bytes")
		})
	}
}
