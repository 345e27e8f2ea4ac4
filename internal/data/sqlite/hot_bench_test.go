package sqlite

import (
	"context"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"testing"
	"time"

	"pmx/internal/data/store"
)

// BenchmarkHotOpen loads the demo world (PMX_BENCH_SCALE, default 0.1) into
// a store, closes it and measures Open (which builds the hot model) and the
// heap the model holds:
//
//	PMX_BENCH_SCALE=1 go test -run '^$' -bench HotOpen -benchtime 1x ./internal/data/sqlite/
func BenchmarkHotOpen(b *testing.B) {
	scale := 0.1
	if v, err := strconv.ParseFloat(os.Getenv("PMX_BENCH_SCALE"), 64); err == nil {
		scale = v
	}
	evs := demoEvents(b, 1, scale)
	path := filepath.Join(b.TempDir(), "pmx.db")
	db, err := Open(path, Options{})
	if err != nil {
		b.Fatal(err)
	}
	for i := 0; i < len(evs); i += 50_000 {
		if _, err := db.Apply(context.Background(), evs[i:min(i+50_000, len(evs))]); err != nil {
			b.Fatal(err)
		}
	}
	db.Close()
	evs = nil
	b.ResetTimer()
	for range b.N {
		var m0, m1 runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&m0)
		t0 := time.Now()
		db, err := Open(path, Options{})
		if err != nil {
			b.Fatal(err)
		}
		b.ReportMetric(time.Since(t0).Seconds(), "open-s")
		runtime.GC()
		runtime.ReadMemStats(&m1)
		rows, wallets := 0, len(db.hot.byWid)
		for _, w := range db.hot.byWid {
			rows += len(w.rows)
		}
		b.ReportMetric(float64(int64(m1.HeapAlloc)-int64(m0.HeapAlloc))/(1<<20), "heap-MiB")
		b.ReportMetric(float64(rows), "rows")
		b.ReportMetric(float64(wallets), "wallets")
		_, _ = db.Activity(context.Background(), store.ActivityParams{User: "x", Limit: 1})
		db.Close()
	}
}
