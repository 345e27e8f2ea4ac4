package sqlite_test

import (
	"os"
	"strconv"
	"testing"
	"time"

	"pmx/internal/cpuclock"
	"pmx/internal/data/ledger"
	"pmx/internal/data/sqlite"
	"pmx/internal/data/store"
)

// BenchmarkApplyTrades loads a synthetic world of PMX_BENCH_TRADES fills
// (default 100,000) in one Apply; events/s is the figure to watch.
func BenchmarkApplyTrades(b *testing.B) {
	n := 100_000
	if v, err := strconv.Atoi(os.Getenv("PMX_BENCH_TRADES")); err == nil {
		n = v
	}
	evs := synth(1, 300, 5000, n)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		db, _ := openDB(b)
		b.StartTimer()
		t0, c0 := time.Now(), cpuclock.Process()
		if _, err := db.Apply(ctx, evs); err != nil {
			b.Fatal(err)
		}
		b.ReportMetric(float64(len(evs))/time.Since(t0).Seconds(), "events/s")
		b.ReportMetric((cpuclock.Process() - c0).Seconds(), "cpu-s/op")
		b.StopTimer()
		db.Close()
		b.StartTimer()
	}
}

// bigWorld is one loaded synthetic world shared by the query benchmarks.
var bigWorld struct {
	db   *sqlite.DB
	evs  []ledger.Event
	busy []string // wallets with the most events
}

func loadBig(b *testing.B) *sqlite.DB {
	if bigWorld.db != nil {
		return bigWorld.db
	}
	n := 200_000
	if v, err := strconv.Atoi(os.Getenv("PMX_BENCH_TRADES")); err == nil {
		n = v
	}
	dir, err := os.MkdirTemp("", "pmxbench")
	if err != nil {
		b.Fatal(err)
	}
	db, err := sqlite.Open(dir+"/pmx.db", sqlite.Options{})
	if err != nil {
		b.Fatal(err)
	}
	bigWorld.evs = synth(1, 300, 5000, n)
	if _, err := db.Apply(ctx, bigWorld.evs); err != nil {
		b.Fatal(err)
	}
	bigWorld.db = db
	return db
}

const benchNow = 1_780_000_000 + 91*86400

func BenchmarkQueryTradesUser(b *testing.B) {
	db := loadBig(b)
	parallelQuery(b, func(i int) error {
		_, err := db.Trades(ctx, store.TradesParams{User: addr(1 + i%5000), Now: benchNow, Limit: 100})
		return err
	})
}

func BenchmarkQueryActivity(b *testing.B) {
	db := loadBig(b)
	parallelQuery(b, func(i int) error {
		_, err := db.Activity(ctx, store.ActivityParams{User: addr(1 + i%5000), Limit: 100})
		return err
	})
}

func BenchmarkQueryPositions(b *testing.B) {
	db := loadBig(b)
	parallelQuery(b, func(i int) error {
		_, err := db.Positions(ctx, store.PositionsParams{User: addr(1 + i%5000), Limit: 100})
		return err
	})
}

func BenchmarkQueryTradesGlobal(b *testing.B) {
	db := loadBig(b)
	parallelQuery(b, func(_ int) error {
		_, err := db.Trades(ctx, store.TradesParams{Now: benchNow, Limit: 100})
		return err
	})
}

// reportCPU adds CPU time per operation to a parallel benchmark.
func reportCPU(b *testing.B, run func()) {
	c0 := cpuclock.Process()
	b.ResetTimer()
	run()
	b.StopTimer()
	b.ReportMetric(float64((cpuclock.Process()-c0).Microseconds())/1000/float64(b.N), "cpu-ms/op")
}

// parallelQuery runs query from every goroutine of a parallel benchmark,
// with i counting that goroutine's calls from 1, and reports CPU time per op.
func parallelQuery(b *testing.B, query func(i int) error) {
	reportCPU(b, func() {
		b.RunParallel(func(pb *testing.PB) {
			for i := 1; pb.Next(); i++ {
				if err := query(i); err != nil {
					b.Fatal(err)
				}
			}
		})
	})
}

func BenchmarkQueryPositionsMarket(b *testing.B) {
	db := loadBig(b)
	parallelQuery(b, func(i int) error {
		_, err := db.Positions(ctx, store.PositionsParams{Conditions: []string{cond(1 + i%300)}, Limit: 100})
		return err
	})
}

// BenchmarkQueryLeaderboardMemo is a board request served from the memo
// (built by the first call): the per-request cost of the memo lookup.
func BenchmarkQueryLeaderboardMemo(b *testing.B) {
	db := loadBig(b)
	p := store.LeaderboardParams{Period: store.PeriodWeek, Now: benchNow, Limit: 25}
	if _, err := db.Leaderboard(ctx, p); err != nil {
		b.Fatal(err)
	}
	parallelQuery(b, func(_ int) error {
		_, err := db.Leaderboard(ctx, p)
		return err
	})
}
