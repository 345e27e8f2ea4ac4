package postgres_test

import (
	"context"
	"os"
	"slices"
	"strconv"
	"testing"
	"time"

	"pmx/internal/data/postgres"
	"pmx/internal/data/sqlite"
	"pmx/internal/pgsql/pgtest"
)

// BenchmarkApplyCopyVsInsert is live ingest on PostgreSQL with COPY beside
// multi-row INSERTs, side by side: three databases hold the same demo-world
// prefix (copy: every table with COPY; default: activity with COPY, the
// upserted tables with COPY from DefaultCopyMin rows; insert: no COPY), then
// every batch of the rest goes to each (rotating which goes first), for
// batch sizes of 1 to 10,000 events. It logs the median and
// range of the time per batch of each (Apply to return, commit included):
//
//	scripts/pgcluster.sh go test -run '^$' -bench BenchmarkApplyCopyVsInsert -benchtime 1x -v ./internal/data/postgres/
func BenchmarkApplyCopyVsInsert(b *testing.B) {
	scale := 0.1
	if s := os.Getenv("PMX_BENCH_SCALE"); s != "" {
		v, err := strconv.ParseFloat(s, 64)
		if err != nil {
			b.Fatal(err)
		}
		scale = v
	}
	evs := demoWorld(b, scale)
	clock := func() time.Time { return now }
	open := func(copyMin int) *postgres.DB {
		db, err := postgres.Open(context.Background(), pgtest.DB(b), postgres.Options{Options: sqlite.Options{Clock: clock},
			CopyMin: copyMin})
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { db.Close() })
		return db
	}
	stores := []struct {
		name string
		db   *postgres.DB
	}{{"copy", open(1)}, {"default", open(0)}, {"insert", open(-1)}}
	prefix := len(evs) / 4
	for _, s := range stores {
		for i := 0; i < prefix; i += 20_000 {
			if _, err := s.db.Apply(context.Background(), evs[i:min(i+20_000, prefix)]); err != nil {
				b.Fatal(err)
			}
		}
	}
	next := prefix
	for _, size := range []struct{ events, reps int }{{1, 30}, {10, 30}, {100, 20}, {1000, 8}, {10_000, 2}} {
		times := make([][]time.Duration, len(stores))
		for rep := 0; rep < size.reps && next+size.events <= len(evs); rep++ {
			batch := evs[next : next+size.events]
			next += size.events
			for k := range stores {
				i := (k + rep) % len(stores)
				t0 := time.Now()
				if _, err := stores[i].db.Apply(context.Background(), batch); err != nil {
					b.Fatalf("%s: %v", stores[i].name, err)
				}
				times[i] = append(times[i], time.Since(t0))
			}
		}
		for i, s := range stores {
			t := times[i]
			if len(t) == 0 {
				b.Fatalf("the world has too few events for %d-event batches", size.events)
			}
			slices.Sort(t)
			b.Logf("%6d events/batch %-6s median %8.2f ms (%.2f–%.2f ms, %d batches)", size.events, s.name,
				ms(t[len(t)/2]), ms(t[0]), ms(t[len(t)-1]), len(t))
		}
	}
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
