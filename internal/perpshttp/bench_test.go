package perpshttp

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/coder/websocket"

	"pmx/internal/secp"
)

// BenchmarkRecoverCeiling is signer recovery alone on all cores: the ceiling
// for signed placements, measured in the same run as the HTTP benchmarks.
func BenchmarkRecoverCeiling(b *testing.B) {
	k := newKey(b, 1)
	d := tOpDigest([]any{"createOrders", []any{[]any{1, true, "100", "1", "ioc", false}}}, 1, 1)
	sig, _ := secp.ParseSignature(k.sign(d))
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			if _, err := secp.Recover(d, sig); err != nil {
				panic(err)
			}
		}
	})
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "recoveries/s")
}

// benchPlace posts pre-signed createOrders requests of n orders each
// (non-crossing IOCs, so the book stays empty and every request takes the
// full path: parse, verify, journal fsync, match, ack) from 8 clients.
func benchPlace(b *testing.B, n int) {
	e := newEnv(b, Options{IPBudget: 1 << 30, ActionBudget: 1 << 30})
	e.instrument()
	a := e.trader(1, "1000000000")
	if a.secret == "" {
		b.Fatal("setup failed")
	}
	bodies := make([]string, b.N)
	for i := range bodies {
		keyed, rows := make([]string, n), []any{}
		for j := range n {
			o := ord{iid: 1, buy: true, p: fmt.Sprint(100 + (i+j)%50), qty: "1", tif: "ioc"}
			keyed[j] = o.keyed()
			rows = append(rows, o.compact())
		}
		salt, ts := e.salt.Add(1), e.now()
		sig := a.proxy.sign(tOpDigest([]any{"createOrders", rows}, salt, ts))
		bodies[i] = fmt.Sprintf(`{"op":{"type":"createOrders","args":[%s]},"sig":%q,"salt":%d,"ts":%d}`, strings.Join(keyed, ","), sig, salt, ts)
	}
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 64}}
	lat := make([]time.Duration, b.N)
	var next int64
	var mu sync.Mutex
	var wg sync.WaitGroup
	b.ResetTimer()
	// 64 in-flight requests: each waits for its group-commit fsync, so
	// throughput needs enough of them to share each fsync (the journal's
	// 64-producer figure); 8 measured the fsync latency, not the exchange.
	for range 64 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				mu.Lock()
				i := next
				next++
				mu.Unlock()
				if i >= int64(b.N) {
					return
				}
				t0 := time.Now()
				res, err := client.Post(e.api.URL+"/v1/trade/orders", "application/json", strings.NewReader(bodies[i]))
				if err != nil {
					panic(err)
				}
				body, _ := io.ReadAll(res.Body)
				res.Body.Close()
				if res.StatusCode != 200 || !strings.HasPrefix(string(body), `[{"status":"ok"`) {
					panic(fmt.Sprint(res.StatusCode, string(body)))
				}
				lat[i] = time.Since(t0)
			}
		}()
	}
	wg.Wait()
	b.StopTimer()
	sort.Slice(lat, func(i, j int) bool { return lat[i] < lat[j] })
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "requests/s")
	b.ReportMetric(float64(b.N*n)/b.Elapsed().Seconds(), "orders/s")
	b.ReportMetric(float64(lat[len(lat)*99/100].Microseconds()), "p99-µs")
}

func BenchmarkPlaceSingle(b *testing.B)  { benchPlace(b, 1) }
func BenchmarkPlaceBatch20(b *testing.B) { benchPlace(b, 20) }

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
