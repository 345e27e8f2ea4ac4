package clobsvc

import (
	"context"
	"fmt"
	"os"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"pmx/internal/clob/clob"
	"pmx/internal/clob/clobengine"
	"pmx/internal/exchange/engine"
)

// BenchmarkStreamFanOut is the WebSocket fan-out behind the engine, one
// command at a time: each op is one journaled place command (no fdatasync:
// the fan-out is measured, not the disk) that changes a level of a market
// followed by the given number of market sessions (each drained by its own
// goroutine), and ends when the placing key's user session has the order's
// PLACEMENT frame. sessions=0 (the user session only) is the reference.
func BenchmarkStreamFanOut(b *testing.B) {
	for _, n := range []int{0, 1, 100} {
		b.Run(fmt.Sprintf("sessions=%d", n), func(b *testing.B) {
			mk := clob.Market{ConditionID: "0x" + strings.Repeat("0", 63) + "1", Ticks: 100, Active: true, Accepting: true,
				Tokens: [2]clob.Token{{ID: "11", Outcome: "Yes"}, {ID: "12", Outcome: "No"}}}
			s := Open(Options{Dir: b.TempDir(), SyncEvery: -1, Engine: engine.Config{JournalSync: func(*os.File) error { return nil }},
				Markets: func(context.Context) ([]clob.Market, error) { return []clob.Market{mk}, nil }})
			defer s.Close()
			<-s.Ready()
			if _, err := s.Submit(&clobengine.Command{Op: clobengine.OpDeposit, Addr: "a", Amount: 1 << 40}); err != nil {
				b.Fatal(err)
			}
			var frames atomic.Int64
			drain := func(c *StreamSession) {
				for range c.Out() {
					frames.Add(1)
				}
			}
			for range n {
				c := s.NewStreamSession(false, func(string, bool) {})
				go drain(c)
				if err := c.SubscribeAssets([]string{"11"}, true); err != nil {
					b.Fatal(err)
				}
				defer c.Close()
			}
			sentinel := s.NewStreamSession(true, func(string, bool) {})
			sentinel.AuthUser("sentinel", nil)
			defer sentinel.Close()
			order := func(i int, key string) *clobengine.Command {
				c := int64(1 + i%40)
				return &clobengine.Command{Op: clobengine.OpPlace, Orders: []clobengine.OrderInput{{Hash: fmt.Sprintf("0x%064x", i+1),
					Token: "11", MakerAmt: 5 * c * 10_000, TakerAmt: 5_000_000, Type: "GTC", Maker: "a", Signer: "a", APIKey: key,
					Version: 2, Stamp: 1}}}
			}
			b.ReportAllocs()
			b.ResetTimer()
			for i := range b.N {
				if r, err := s.Submit(order(i, "sentinel")); err != nil || r.Orders[0].Err != nil {
					b.Fatal(err, r.Orders[0].Err)
				}
				select {
				case <-sentinel.Out(): // the order's PLACEMENT: the fan-out has handled the command
				case <-time.After(time.Minute):
					b.Fatal("no frame from the fan-out")
				}
			}
			b.StopTimer()
			b.ReportMetric(float64(frames.Load())/b.Elapsed().Seconds(), "frames/s")
		})
	}
}
