package matching_test

import (
	"testing"

	"pmx/internal/exchange/book"
	"pmx/internal/exchange/engine"
	"pmx/internal/exchange/engine/enginetest"
	"pmx/internal/exchange/matching"
	"pmx/internal/exchange/workload"
)

// BenchmarkRecoveryReplay measures engine.Open on a journal of b.N book
// commands (the 60/30/10 add/cancel/cross mix, one book, ~10k
// resting orders) with no snapshot: journal read, decode and match.
func BenchmarkRecoveryReplay(b *testing.B) {
	g := workload.New(workload.Config{Seed: 1, Ticks: ticks, Mix: workload.Bench})
	var c book.Command
	buf := make([]byte, 0, book.MaxEncodedLen)
	enginetest.BenchRecoveryReplay(b, engine.Machine[matching.Event](matching.New(markets(1))), func(int) (int64, []byte) {
		g.Next(&c)
		buf, _ = c.AppendBinary(buf[:0])
		return c.Time, buf
	})
}
