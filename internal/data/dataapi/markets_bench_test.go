package dataapi_test

import (
	"fmt"
	"io"
	"net/http"
	"os"
	"sort"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// The market routes over a generated world, through the real HTTP server,
// at 32 concurrent clients; each sub-benchmark reports p50/p99 latency.
// PMX_BENCH_SCALE sets the world's scale (default 0.05).
//
//	go test ./internal/data/dataapi -run XXX -bench BenchmarkMarketRoutes -benchtime 4000x

const benchClients = 32

func BenchmarkMarketRoutes(b *testing.B) {
	scale := 0.05
	if s := os.Getenv("PMX_BENCH_SCALE"); s != "" {
		v, err := strconv.ParseFloat(s, 64)
		if err != nil {
			b.Fatal(err)
		}
		scale = v
	}
	evs := demoWorld(b, scale)
	start := time.Now()
	h := newMHarness(b, evs)
	b.Logf("scale %v: %d events loaded in %v", scale, len(evs), time.Since(start).Round(time.Millisecond))
	model := replayModel(evs)
	var tokens, conds []string
	for t, ticks := range model.ticks {
		if len(ticks) > 0 {
			tokens = append(tokens, t)
		}
	}
	for c := range model.tokens {
		conds = append(conds, c)
	}
	sort.Strings(tokens)
	sort.Strings(conds)
	week := fmt.Sprint(mNow - 7*86400)
	routes := []struct {
		name string
		path func(i int) string
	}{
		{"prices-history/1d", func(i int) string { return "/v2/prices-history?interval=1d&token_id=" + tokens[i%len(tokens)] }},
		{"prices-history/1w", func(i int) string { return "/v2/prices-history?interval=1w&token_id=" + tokens[i%len(tokens)] }},
		{"prices-history/max", func(i int) string { return "/v2/prices-history?interval=max&token_id=" + tokens[i%len(tokens)] }},
		{"prices-history/start-7d-60s", func(i int) string {
			return "/v2/prices-history?bucket_seconds=60&start=" + week + "&token_id=" + tokens[i%len(tokens)]
		}},
		{"holders", func(i int) string { return "/v2/holders?condition=" + conds[i%len(conds)] }},
		{"holders/include_pnl", func(i int) string { return "/v2/holders?include_pnl=true&condition=" + conds[i%len(conds)] }},
		{"oi/global", func(int) string { return "/v2/oi" }},
		{"oi/condition", func(i int) string { return "/v2/oi?condition=" + conds[i%len(conds)] }},
		{"live-volume", func(i int) string {
			return "/v2/live-volume?event_id=" + fmt.Sprint(model.eventOf[conds[i%len(conds)]])
		}},
		{"resolutions", func(i int) string { return "/v2/resolutions?condition=" + conds[i%len(conds)] }},
		{"tokens", func(i int) string { return "/v2/tokens?token_id=" + tokens[i%len(tokens)] }},
		{"status", func(int) string { return "/v2/status" }},
	}
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: benchClients}}
	for _, r := range routes {
		b.Run(r.name, func(b *testing.B) {
			lat := make([]time.Duration, b.N)
			var next atomic.Int64
			var wg sync.WaitGroup
			var failed atomic.Value
			b.ResetTimer()
			for c := 0; c < benchClients; c++ {
				wg.Add(1)
				go func() {
					defer wg.Done()
					for {
						i := int(next.Add(1)) - 1
						if i >= b.N {
							return
						}
						t0 := time.Now()
						resp, err := client.Get(h.srv.URL + r.path(i))
						if err == nil {
							_, err = io.Copy(io.Discard, resp.Body)
							resp.Body.Close()
							if err == nil && resp.StatusCode != 200 {
								err = fmt.Errorf("%s: %d", r.path(i), resp.StatusCode)
							}
						}
						if err != nil {
							failed.Store(err)
							return
						}
						lat[i] = time.Since(t0)
					}
				}()
			}
			wg.Wait()
			b.StopTimer()
			if err, _ := failed.Load().(error); err != nil {
				b.Fatal(err)
			}
			sort.Slice(lat, func(i, j int) bool { return lat[i] < lat[j] })
			b.ReportMetric(float64(lat[len(lat)/2].Microseconds()), "p50-µs")
			b.ReportMetric(float64(lat[len(lat)*99/100].Microseconds()), "p99-µs")
		})
	}
}
