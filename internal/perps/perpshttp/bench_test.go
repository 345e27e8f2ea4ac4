package perpshttp

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"runtime/metrics"
	"runtime/pprof"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/coder/websocket"

	"pmx/internal/cpuclock"
	"pmx/internal/crypto/eip712"
	"pmx/internal/crypto/keccak"
	"pmx/internal/crypto/secp"
	"pmx/internal/loadgen"
	"pmx/internal/perps/perpsauth"
)

// BenchmarkRecoverCeiling is signer recovery alone on all cores: the ceiling
// for signed placements, measured in the same run as the HTTP benchmarks.
func BenchmarkRecoverCeiling(b *testing.B) {
	k := newKey(b, 1)
	d := tOpDigest([]any{"createOrders", []any{[]any{1, true, "100", "1", "ioc", false}}}, 1, 1)
	sig, _ := secp.ParseSignature(k.sign(d))
	m := startMeter()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			if _, err := secp.Recover(d, sig); err != nil {
				panic(err)
			}
		}
	})
	m.report(b)
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "recoveries/s")
}

// benchPlace posts pre-signed createOrders requests of n orders each
// (non-crossing IOCs, so the book stays empty and every request takes the
// full path: parse, verify, journal fsync, match, ack) over 64 persistent
// loopback TCP connections, one request in flight on each. The server is the
// real handler behind a real net/http server; the load generator is loadgen.Conn
// (it shares the two cores with the server, so it must be lean). Every
// answer is checked for the ok ack.
//
// PMX_BENCH_CPUPROFILE=file writes a CPU profile of the timed section only
// (go test -cpuprofile would also cover the pre-signing).
func benchPlace(b *testing.B, n int) {
	p := newPlacer(b, n, b.N)
	stopProfile := startBenchProfile(b)
	b.ReportAllocs()
	b.ResetTimer()
	m, groups0 := startMeter(), p.e.srv.eng.JournalGroups()
	lat := p.run(b.N)
	b.StopTimer()
	m.report(b)
	stopProfile()
	b.ReportMetric(float64(b.N)/float64(p.e.srv.eng.JournalGroups()-groups0), "requests/fsync")
	slices.Sort(lat)
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "requests/s")
	b.ReportMetric(float64(b.N*n)/b.Elapsed().Seconds(), "orders/s")
	b.ReportMetric(float64(lat[len(lat)*99/100].Microseconds()), "p99-µs")
}

// placer is a running server with pre-signed createOrders requests and the
// load generator's open connections.
type placer struct {
	e      *env
	signer secp.Address // the proxy that signed every request
	reqs   [][]byte
	conns  []*loadgen.Conn
	sent   int
}

// newPlacer signs total requests of n orders each (before any timer).
func newPlacer(b *testing.B, n, total int) *placer {
	linger, _ := strconv.Atoi(os.Getenv("PMX_BENCH_LINGER_US")) // experiments: the server's GroupLinger
	e := newEnv(b, Options{IPBudget: 1 << 30, ActionBudget: 1 << 30, GroupLinger: time.Duration(linger) * time.Microsecond})
	e.instrument()
	a := e.trader(1, "1000000000")
	if a.secret == "" {
		b.Fatal("setup failed")
	}
	host := strings.TrimPrefix(e.api.URL, "http://")
	p := &placer{e: e, signer: secp.Address(a.proxy.addr), reqs: make([][]byte, total)}
	for i := range p.reqs {
		keyed, rows := make([]string, n), []any{}
		for j := range n {
			o := ord{iid: 1, buy: true, p: fmt.Sprint(100 + (i+j)%50), qty: "1", tif: "ioc"}
			keyed[j] = o.keyed()
			rows = append(rows, o.compact())
		}
		salt, ts := e.salt.Add(1), e.now()
		sig := a.proxy.sign(tOpDigest([]any{"createOrders", rows}, salt, ts))
		body := fmt.Sprintf(`{"op":{"type":"createOrders","args":[%s]},"sig":%q,"salt":%d,"ts":%d}`, strings.Join(keyed, ","), sig, salt, ts)
		p.reqs[i] = loadgen.Request("POST", host, "/v1/trade/orders", "Content-Type: application/json\r\n", []byte(body))
	}
	p.dial(b, host)
	return p
}

// dial opens the load generator's connections to host.
func (p *placer) dial(b *testing.B, host string) {
	// 64 in-flight requests: each waits for its group-commit fsync, so
	// throughput needs enough of them to share each fsync (the journal's
	// 64-producer figure); 8 measured the fsync latency, not the exchange.
	inFlight := 64
	if v, err := strconv.Atoi(os.Getenv("PMX_BENCH_INFLIGHT")); err == nil {
		inFlight = v
	}
	p.conns = make([]*loadgen.Conn, inFlight)
	for i := range p.conns {
		c, err := loadgen.Dial(host)
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { c.Close() })
		p.conns[i] = c
	}
}

// run sends the next count requests, one in flight per connection, checks
// every answer for the ok ack, and returns each request's latency.
func (p *placer) run(count int) []time.Duration {
	reqs := p.reqs[p.sent : p.sent+count]
	p.sent += count
	lat := make([]time.Duration, count)
	var next atomic.Int64
	var wg sync.WaitGroup
	for _, c := range p.conns {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var body []byte
			for {
				i := next.Add(1) - 1
				if i >= int64(count) {
					return
				}
				t0 := time.Now()
				code, b2, err := c.Do(reqs[i], body)
				body = b2
				if err != nil {
					panic(err)
				}
				if code != 200 || !bytes.HasPrefix(body, []byte(`[{"status":"ok"`)) {
					panic(fmt.Sprint(code, string(body)))
				}
				lat[i] = time.Since(t0)
			}
		}()
	}
	wg.Wait()
	return lat
}

// meter reports, beside wall time, this process's CPU time per op
// ("cpu-ns/op": server and load generator together; set against the
// ceiling's it says how much of a placement is recovery) and the share of
// the machine's CPU that other processes (and the hypervisor's steal) used
// meanwhile ("others-%"): this VM is shared, and a run with a high figure
// there measured the neighbours, not the exchange.
type meter struct {
	self        time.Duration
	busy, total int64 // machine-wide /proc/stat ticks
	idle, all   float64
}

func startMeter() meter {
	busy, total := procStat()
	idle, all := pIdle()
	return meter{self: cpuclock.Process(), busy: busy, total: total, idle: idle, all: all}
}

// pIdle is the runtime's estimate of P time spent idle, and all P time
// (GOMAXPROCS × wall), in seconds.
func pIdle() (idle, all float64) {
	s := []metrics.Sample{{Name: "/cpu/classes/idle:cpu-seconds"}, {Name: "/cpu/classes/total:cpu-seconds"}}
	metrics.Read(s)
	return s[0].Value.Float64(), s[1].Value.Float64()
}

func (m meter) report(b *testing.B) {
	self := cpuclock.Process() - m.self
	busy, total := procStat()
	idle, all := pIdle()
	b.ReportMetric(float64(self)/float64(b.N), "cpu-ns/op")
	if all > m.all {
		// Share of the Ps' time with nothing to run: the pipeline, not
		// the CPU, held the run back for that long.
		b.ReportMetric(100*(idle-m.idle)/(all-m.all), "p-idle-%")
	}
	if total > m.total {
		tick := float64(time.Second) / 100 // USER_HZ
		others := float64(busy-m.busy)*tick - float64(self)
		b.ReportMetric(max(0, 100*others/(float64(total-m.total)*tick)), "others-%")
	}
}

// procStat is the machine's busy and total CPU ticks (0, 0 off Linux).
func procStat() (busy, total int64) {
	b, err := os.ReadFile("/proc/stat")
	if err != nil {
		return 0, 0
	}
	line, _, _ := strings.Cut(string(b), "\n")
	f := strings.Fields(line) // cpu user nice system idle iowait irq softirq steal ...
	for i := 1; i < len(f) && i <= 8; i++ {
		v, _ := strconv.ParseInt(f[i], 10, 64)
		total += v
		if i != 4 && i != 5 { // idle, iowait
			busy += v
		}
	}
	return busy, total
}

// startBenchProfile starts a CPU profile if PMX_BENCH_CPUPROFILE names a
// file (the largest b.N's run overwrites the smaller ones').
func startBenchProfile(b *testing.B) (stop func()) {
	path := os.Getenv("PMX_BENCH_CPUPROFILE")
	if path == "" {
		return func() {}
	}
	f, err := os.Create(path)
	if err != nil {
		b.Fatal(err)
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		b.Fatal(err)
	}
	return func() {
		pprof.StopCPUProfile()
		f.Close()
	}
}

func BenchmarkPlaceSingle(b *testing.B)  { benchPlace(b, 1) }
func BenchmarkPlaceBatch20(b *testing.B) { benchPlace(b, 20) }

// BenchmarkBareSingle and BenchmarkBareBatch20 are the placements' ceiling
// on the same listener stack: the same pre-signed bodies over the same 64
// load-generator connections to the same kind of server (httptest, net/http),
// whose one handler only reads the body as the trade handler
// does, parses the envelope, hashes the op and recovers its signer (no
// rate limits, replay cache, engine, journal or ack rendering). A
// placement's orders/s as a share of this, measured in the same run, is
// what the HTTP, engine and journal layers keep of the signature ceiling.
func BenchmarkBareSingle(b *testing.B)  { benchBare(b, 1) }
func BenchmarkBareBatch20(b *testing.B) { benchBare(b, 20) }

func benchBare(b *testing.B, n int) {
	p := newPlacer(b, n, b.N)
	for _, c := range p.conns {
		c.Close()
	}
	name, chainID, _ := p.e.srv.ver.Domain()
	sep := eip712.Domain{Name: name, Version: "1", ChainID: chainID}.Separator()
	bare := httptest.NewUnstartedServer(bareHandler(sep, p.signer))
	bare.Start()
	b.Cleanup(bare.Close)
	p.dial(b, strings.TrimPrefix(bare.URL, "http://"))
	stopProfile := startBenchProfile(b)
	b.ReportAllocs()
	b.ResetTimer()
	m := startMeter()
	lat := p.run(b.N)
	b.StopTimer()
	m.report(b)
	stopProfile()
	slices.Sort(lat)
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "requests/s")
	b.ReportMetric(float64(b.N*n)/b.Elapsed().Seconds(), "orders/s")
	b.ReportMetric(float64(lat[len(lat)*99/100].Microseconds()), "p99-µs")
}

// BenchmarkVsBareSingle and BenchmarkVsBareBatch20 measure placements and
// the bare endpoint interleaved in one process: chunks of the same pre-signed
// requests go first to the exchange, then (the same bodies) to the bare
// endpoint, alternately, over two sets of 64 connections. On a shared
// machine whose load swings within seconds, separate benchmarks measure the
// neighbours as much as the code; alternating chunks of a few hundred
// milliseconds give both sides the same conditions, so "pct-of-bare" is the
// placement's share of the ceiling on this listener stack.
func BenchmarkVsBareSingle(b *testing.B)  { benchVsBare(b, 1, 1024) }
func BenchmarkVsBareBatch20(b *testing.B) { benchVsBare(b, 20, 256) }

func benchVsBare(b *testing.B, n, chunk int) {
	p := newPlacer(b, n, b.N)
	name, chainID, _ := p.e.srv.ver.Domain()
	sep := eip712.Domain{Name: name, Version: "1", ChainID: chainID}.Separator()
	bare := httptest.NewUnstartedServer(bareHandler(sep, p.signer))
	bare.Start()
	b.Cleanup(bare.Close)
	q := &placer{e: p.e, signer: p.signer, reqs: p.reqs}
	q.dial(b, strings.TrimPrefix(bare.URL, "http://"))
	var placeT, bareT, placeCPU, bareCPU time.Duration
	var placeLat, bareLat []time.Duration
	b.ResetTimer()
	m := startMeter()
	for done := 0; done < b.N; done += chunk {
		k := min(chunk, b.N-done)
		t0, c0 := time.Now(), cpuclock.Process()
		placeLat = append(placeLat, p.run(k)...)
		t1, c1 := time.Now(), cpuclock.Process()
		q.sent = done // the same bodies
		bareLat = append(bareLat, q.run(k)...)
		placeT, bareT = placeT+t1.Sub(t0), bareT+time.Since(t1)
		placeCPU, bareCPU = placeCPU+c1-c0, bareCPU+cpuclock.Process()-c1
	}
	b.StopTimer()
	m.report(b)
	// CPU per request of each side (server and load generator together):
	// steadier than wall time when neighbours take most of the machine.
	b.ReportMetric(float64(placeCPU.Microseconds())/float64(b.N), "cpu-µs/place")
	b.ReportMetric(float64(bareCPU.Microseconds())/float64(b.N), "cpu-µs/bare")
	b.ReportMetric(100*float64(bareCPU)/float64(placeCPU), "cpu-pct-of-bare")
	slices.Sort(placeLat)
	slices.Sort(bareLat)
	placeRate := float64(b.N*n) / placeT.Seconds()
	bareRate := float64(b.N*n) / bareT.Seconds()
	b.ReportMetric(placeRate, "orders/s")
	b.ReportMetric(bareRate, "bare-orders/s")
	b.ReportMetric(100*placeRate/bareRate, "pct-of-bare")
	b.ReportMetric(float64(placeLat[len(placeLat)*99/100].Microseconds()), "p99-µs")
	b.ReportMetric(float64(bareLat[len(bareLat)*99/100].Microseconds()), "bare-p99-µs")
}

// bareHandler reads a signed trading request and recovers its signer; any
// other signer than want is a 400, so the benchmark's ok check proves every
// recovery was real.
func bareHandler(sep [32]byte, want secp.Address) http.Handler {
	ack := []byte(`[{"status":"ok"}]`)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, ok := readBody(w, r)
		if !ok {
			return
		}
		req, err := perpsauth.ParseRequest(body)
		if err != nil {
			http.Error(w, err.Error(), 400)
			return
		}
		_, packed, err := perpsauth.Compact(req.Op)
		if err != nil {
			http.Error(w, err.Error(), 400)
			return
		}
		digest := eip712.Digest(sep, eip712.OpHash(keccak.Sum256(packed), req.Salt, req.Ts))
		sig, err := secp.ParseSignature(req.Sig)
		if err != nil {
			http.Error(w, err.Error(), 400)
			return
		}
		signer, err := secp.Recover(digest, sig)
		if err != nil {
			http.Error(w, err.Error(), 400)
			return
		}
		if signer != want {
			http.Error(w, "wrong signer", 400)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		w.Write(ack)
	})
}

// BenchmarkWSFanout1000: one trade (a resting sell, then a crossing IOC buy,
// over REST) pushed on trades::1 to 1,000 subscribed WebSocket connections;
// an op is complete when every connection has read its frame.
func BenchmarkWSFanout1000(b *testing.B) {
	const conns = 1000
	e := newEnv(b, Options{IPBudget: 1 << 30, ActionBudget: 1 << 30, WSMessages: 1 << 30})
	e.instrument()
	mk, tk := e.trader(1, "1000000000"), e.trader(2, "1000000000")
	got := make(chan struct{}, conns*4)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	url := "ws" + strings.TrimPrefix(e.api.URL, "http") + "/v1/ws"
	for i := range conns {
		c, _, err := websocket.Dial(ctx, url, nil)
		if err != nil {
			b.Fatalf("dial %d: %v", i, err)
		}
		defer c.CloseNow()
		c.Write(ctx, websocket.MessageText, []byte(`{"id":1,"req":"sub","chs":["trades::1"]}`))
		if _, _, err := c.Read(ctx); err != nil { // sub ack
			b.Fatal(err)
		}
		go func() {
			for {
				_, m, err := c.Read(ctx)
				if err != nil {
					return
				}
				if strings.HasPrefix(string(m), `{"ch":"trades::1"`) {
					got <- struct{}{}
				}
			}
		}()
	}
	lat := make([]time.Duration, b.N)
	b.ResetTimer()
	for i := range b.N {
		b.StopTimer()
		mk.placeOK(ord{iid: 1, buy: false, p: "100", qty: "1"})
		b.StartTimer()
		t0 := time.Now()
		tk.placeOK(ord{iid: 1, buy: true, p: "100", qty: "1", tif: "ioc"})
		for range conns {
			<-got
		}
		lat[i] = time.Since(t0)
	}
	b.StopTimer()
	sort.Slice(lat, func(i, j int) bool { return lat[i] < lat[j] })
	b.ReportMetric(float64(b.N*conns)/b.Elapsed().Seconds(), "pushes/s")
	b.ReportMetric(float64(lat[len(lat)/2].Microseconds()), "p50-µs")
	b.ReportMetric(float64(lat[len(lat)*99/100].Microseconds()), "p99-µs")
}
