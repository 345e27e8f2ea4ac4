package matching_test

import (
	"path/filepath"
	"testing"

	"pmx/internal/book"
	"pmx/internal/engine"
	"pmx/internal/journal"
	"pmx/internal/matching"
	"pmx/internal/workload"
)

// BenchmarkRecoveryReplay measures engine.Open on a journal of b.N book
// commands (the 60/30/10 add/cancel/cross mix, one book, ~10k
// resting orders) with no snapshot: journal read, decode and match.
func BenchmarkRecoveryReplay(b *testing.B) {
	dir := b.TempDir()
	j, _, err := journal.Open(filepath.Join(dir, "journal"), journal.Options{})
	if err != nil {
		b.Fatal(err)
	}
	g := workload.New(workload.Config{Seed: 1, Ticks: ticks, Mix: workload.Bench})
	var c book.Command
	var commit *journal.Commit
	buf := make([]byte, 0, book.MaxEncodedLen)
	for range b.N {
		g.Next(&c)
		buf, _ = c.AppendBinary(buf[:0])
		_, commit = j.Enqueue(c.Time, buf)
	}
	if err := commit.Wait(); err != nil {
		b.Fatal(err)
	}
	j.Close()
	b.ReportAllocs()
	b.ResetTimer()
	cpu0 := cpuTime()
	e, rec, err := engine.Open(engine.Config{Dir: dir}, engine.Machine[matching.Event](matching.New(markets(1))))
	if err != nil || rec.Replayed != uint64(b.N) {
		b.Fatalf("replayed %d: %v", rec.Replayed, err)
	}
	b.StopTimer()
	e.Close()
	reportCPU(b, cpu0)
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "cmds/s")
}
