package dataapi_test

import (
	"encoding/json"
	"fmt"
	"net/http/httptest"
	"testing"
	"time"

	"pmx/internal/data/dataapi"
	"pmx/internal/loadgen"
)

// BenchmarkVsBare is issue 20's pair, side by side in one run: each route's
// URLs (64 busy wallets, the busiest markets, the boards' windows) served
// by a bare net/http handler answering the captured bytes (loadgen.Bare),
// by pmx (page cache on, as served), and by pmx with the cache off. Compare
// the sub-benchmarks' ns/op (= 1/throughput at 32 clients) and p99-ms:
//
//	PMX_BENCH_SCALE=1 go test -run '^$' -bench BenchmarkVsBare -benchtime 20000x -timeout 30m ./internal/data/dataapi/
//
// Server and clients share the process (both cores); docs/PERFORMANCE.md
// also gives the one-core method (loadgen's BenchmarkServeBare).
func BenchmarkVsBare(b *testing.B) {
	ds := loadDemo(b)
	uncached := httptest.NewServer(dataapi.New(dataapi.Options{Store: ds.db, CursorKey: []byte("bench-cursor-secret-0123456789"),
		Limits: generous(), PageCacheBytes: -1}))
	defer uncached.Close()
	wallets := ds.wallets[:min(64, len(ds.wallets))]
	var page struct {
		Data []struct {
			ConditionID string `json:"condition_id"`
		} `json:"data"`
	}
	res, err := ds.client.Get(ds.srv.URL + "/v2/trades?limit=500")
	if err != nil {
		b.Fatal(err)
	}
	if err := json.NewDecoder(res.Body).Decode(&page); err != nil {
		b.Fatal(err)
	}
	res.Body.Close()
	var conds []string
	seen := map[string]bool{}
	for _, r := range page.Data {
		if !seen[r.ConditionID] && len(conds) < 16 {
			seen[r.ConditionID] = true
			conds = append(conds, r.ConditionID)
		}
	}
	each := func(f string, xs []string) []string {
		out := make([]string, len(xs))
		for i, x := range xs {
			out[i] = fmt.Sprintf(f, x)
		}
		return out
	}
	periods := []string{"day", "week", "month", "all"}
	for _, r := range []struct {
		name  string
		paths []string
	}{
		{"trades-user", each("/v2/trades?user=%s", wallets)},
		{"activity-user", each("/v2/activity?user=%s", wallets)},
		{"positions-user", each("/v2/positions?user=%s", wallets)},
		{"value-user", each("/v2/value?user=%s", wallets)},
		{"holders", each("/v2/holders?condition=%s", conds)},
		{"leaderboard", each("/v2/leaderboard?time_period=%s", periods)},
		{"biggest-winners", each("/v2/biggest-winners?time_period=%s", periods)},
		{"builders-leaderboard", each("/v2/builders/leaderboard?time_period=%s", periods)},
	} {
		urls := each(ds.srv.URL+"%s", r.paths)
		bare, err := loadgen.Capture(urls)
		if err != nil {
			b.Fatal(err)
		}
		bareSrv := httptest.NewServer(bare)
		path := func(i int) string { return r.paths[i%len(r.paths)] }
		for _, v := range []struct {
			name string
			addr string
		}{
			{"bare", bareSrv.Listener.Addr().String()},
			{"pmx", ds.srv.Listener.Addr().String()},
			{"pmx-uncached", uncached.Listener.Addr().String()},
		} {
			b.Run(r.name+"/"+v.name, func(b *testing.B) {
				t0 := time.Now()
				ds.runAt(b, v.addr, path)
				b.ReportMetric(float64(b.N)/time.Since(t0).Seconds(), "req/s")
			})
		}
		bareSrv.Close()
	}
}
