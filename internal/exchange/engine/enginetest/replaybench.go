package enginetest

import (
	"path/filepath"
	"testing"

	"pmx/internal/cpuclock"
	"pmx/internal/exchange/engine"
	"pmx/internal/exchange/journal"
)

// BenchRecoveryReplay measures engine.Open on a journal of b.N commands from
// next (called with 0..b.N-1; the journal copies cmd, so next may reuse its
// buffer) with no snapshot: the journal read plus Apply of every record. It
// reports cpu-ns/op besides wall time: on a shared machine wall time per op
// swings with other load, CPU time of the single apply goroutine does not.
func BenchRecoveryReplay[E any](b *testing.B, m engine.Machine[E], next func(i int) (ts int64, cmd []byte)) {
	dir := b.TempDir()
	j, _, err := journal.Open(filepath.Join(dir, "journal"), journal.Options{})
	if err != nil {
		b.Fatal(err)
	}
	var c *journal.Commit
	for i := range b.N {
		_, c = j.Enqueue(next(i))
	}
	if err := c.Wait(); err != nil {
		b.Fatal(err)
	}
	j.Close()
	b.ReportAllocs()
	b.ResetTimer()
	cpu0 := cpuclock.Process()
	e, rec, err := engine.Open(engine.Config{Dir: dir}, m)
	if err != nil || rec.Replayed != uint64(b.N) {
		b.Fatalf("replayed %d: %v", rec.Replayed, err)
	}
	b.StopTimer()
	e.Close()
	b.ReportMetric(float64(cpuclock.Process()-cpu0)/float64(b.N), "cpu-ns/op")
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "cmds/s")
}
