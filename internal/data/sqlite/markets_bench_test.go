package sqlite_test

import (
	"testing"
	"time"
)

// BenchmarkApplyIncremental applies a synthetic world in 500-event batches
// (live ingest, indexes kept), the path the market indexes of migration 20
// add work to.
func BenchmarkApplyIncremental(b *testing.B) {
	evs := synth(1, 300, 5000, 30000)
	for i := 0; i < b.N; i++ {
		db, _ := openDB(b)
		t0 := time.Now()
		for j := 0; j < len(evs); j += 500 {
			if _, err := db.Apply(ctx, evs[j:min(j+500, len(evs))]); err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric(float64(len(evs))/time.Since(t0).Seconds(), "events/s")
	}
}
