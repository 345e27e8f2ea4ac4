package perpshttp

import (
	"fmt"
	"io"
	"net/http"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

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
	for range 8 {
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
