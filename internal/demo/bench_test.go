package demo

import (
	"testing"
	"time"

	"pmx/internal/ledger"
)

var benchNow = time.Date(2026, 11, 21, 0, 0, 0, 0, time.UTC)

// BenchmarkGenerate measures generation alone (no encoding) at scale 0.1.
func BenchmarkGenerate(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		n := 0
		if err := Generate(Options{Seed: 1, Scale: 0.1, Now: benchNow}, func(*ledger.Event) error { n++; return nil }); err != nil {
			b.Fatal(err)
		}
		b.ReportMetric(float64(n), "events/op")
	}
}
