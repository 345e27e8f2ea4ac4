package engine_test

import (
	"fmt"
	"testing"

	"pmx/internal/exchange/engine"
	"pmx/internal/exchange/engine/enginetest"
	"pmx/internal/exchange/engine/tally"
)

func benchSubmit(b *testing.B, producers int) {
	e, _, err := engine.Open(engine.Config{Dir: b.TempDir()}, newTally())
	if err != nil {
		b.Fatal(err)
	}
	defer e.Close()
	cmds := make([][]byte, 64)
	for i := range cmds {
		cmds[i] = tally.Encode(fmt.Sprintf("account-%d", i), 1)
	}
	b.SetParallelism(producers / 2) // GOMAXPROCS is 2 here
	b.ReportAllocs()
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		i := 0
		for pb.Next() {
			i++
			if _, err := e.Submit(int64(i), cmds[i%len(cmds)]); err != nil {
				b.Error(err)
				return
			}
		}
	})
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "cmds/s")
	b.ReportMetric(float64(b.N)/float64(e.JournalGroups()), "cmds/fsync")
}

func BenchmarkSubmit64(b *testing.B)  { benchSubmit(b, 64) }
func BenchmarkSubmit512(b *testing.B) { benchSubmit(b, 512) }

// BenchmarkRecoveryReplay measures Open on a journal of b.N tally commands
// with no snapshot: the journal read plus Apply of every record.
func BenchmarkRecoveryReplay(b *testing.B) {
	enginetest.BenchRecoveryReplay(b, newTally(), func(i int) (int64, []byte) {
		return int64(i), tally.Encode(fmt.Sprintf("account-%d", i%64), 1)
	})
}
