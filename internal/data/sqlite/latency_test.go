package sqlite_test

import (
	"fmt"
	"os"
	"sort"
	"strconv"
	"sync"
	"testing"
	"time"

	"pmx/internal/data/sqlite"
	"pmx/internal/data/store"
)

// TestQueryLatency reports p50/p99 of the busiest queries at 32 concurrent
// clients over a synthetic world of PMX_BENCH_TRADES fills (default 500,000).
// It is a measurement, not an assertion: run with PMX_LONG=1 -v.
func TestQueryLatency(t *testing.T) {
	if os.Getenv("PMX_LONG") == "" {
		t.Skip("set PMX_LONG=1 to measure")
	}
	n := 500_000
	if v, err := strconv.Atoi(os.Getenv("PMX_BENCH_TRADES")); err == nil {
		n = v
	}
	conns, _ := strconv.Atoi(os.Getenv("PMX_READ_CONNS")) // 0 = the default pool
	db, err := sqlite.Open(t.TempDir()+"/lat.db", sqlite.Options{ReadConns: conns})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	t0 := time.Now()
	evs := synth(1, 300, 5000, n)
	mustApply(t, db, evs...)
	t.Logf("loaded %d events in %v", len(evs), time.Since(t0))
	const clients, perClient = 32, 200
	routes := []struct {
		name string
		run  func(i int) error
	}{
		{"trades?user", func(i int) error {
			_, err := db.Trades(ctx, store.TradesParams{User: addr(1 + i%5000), Now: benchNow, Limit: 100})
			return err
		}},
		{"trades?condition", func(i int) error {
			_, err := db.Trades(ctx, store.TradesParams{Conditions: []string{cond(1 + i%300)}, Now: benchNow, Limit: 100})
			return err
		}},
		{"trades (global)", func(i int) error {
			_, err := db.Trades(ctx, store.TradesParams{Now: benchNow, Limit: 100})
			return err
		}},
		{"activity", func(i int) error {
			_, err := db.Activity(ctx, store.ActivityParams{User: addr(1 + i%5000), Limit: 100})
			return err
		}},
		{"positions?user", func(i int) error {
			_, err := db.Positions(ctx, store.PositionsParams{User: addr(1 + i%5000), Limit: 100})
			return err
		}},
		{"positions?user CLOSED", func(i int) error {
			_, err := db.Positions(ctx, store.PositionsParams{User: addr(1 + i%5000), Status: store.StatusClosed, Limit: 100})
			return err
		}},
		{"positions?condition", func(i int) error {
			_, err := db.Positions(ctx, store.PositionsParams{Conditions: []string{cond(1 + i%300)}, Limit: 100})
			return err
		}},
		{"value", func(i int) error {
			_, err := db.Value(ctx, store.ValueParams{User: addr(1 + i%5000)})
			return err
		}},
		{"user-pnl 1m/1d", func(i int) error {
			_, err := db.UserPnL(ctx, store.UserPnLParams{User: addr(1 + i%5000), Interval: "1m", Fidelity: "1d", Now: benchNow})
			return err
		}},
		{"user-stats", func(i int) error {
			_, err := db.UserStats(ctx, addr(1+i%5000))
			return err
		}},
	}
	for _, r := range routes {
		lat := make([]time.Duration, clients*perClient)
		var wg sync.WaitGroup
		start := time.Now()
		for c := 0; c < clients; c++ {
			wg.Add(1)
			go func(c int) {
				defer wg.Done()
				for k := 0; k < perClient; k++ {
					i := c*perClient + k
					q := time.Now()
					if err := r.run(i * 7919); err != nil {
						t.Error(err)
						return
					}
					lat[i] = time.Since(q)
				}
			}(c)
		}
		wg.Wait()
		wall := time.Since(start)
		sort.Slice(lat, func(i, j int) bool { return lat[i] < lat[j] })
		t.Logf("%-24s %6.0f q/s  p50 %8s  p99 %8s  max %8s", r.name, float64(len(lat))/wall.Seconds(),
			fmtDur(lat[len(lat)/2]), fmtDur(lat[len(lat)*99/100]), fmtDur(lat[len(lat)-1]))
	}
}

func fmtDur(d time.Duration) string { return fmt.Sprintf("%.2fms", float64(d.Microseconds())/1000) }
