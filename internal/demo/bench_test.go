package demo

import (
	"testing"
	"time"

	"pmx/internal/data/ledger"
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

// BenchmarkWriteFile is the full `pmx demo` path at scale 1: generate,
// encode and write ~780,000 lines (~300 MB). Run with -benchtime 1x.
func BenchmarkWriteFile(b *testing.B) {
	path := b.TempDir() + "/world.ndjson"
	for b.Loop() {
		if err := WriteFile(path, Options{Seed: 1, Scale: 1, Now: benchNow}, nil); err != nil {
			b.Fatal(err)
		}
	}
}
