package clobsvc

import (
	"bytes"
	"context"
	"fmt"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"pmx/internal/amount"
	"pmx/internal/clob/clob"
	"pmx/internal/clob/clobengine"
	"pmx/internal/cpuclock"
	"pmx/internal/data/ingest"
	"pmx/internal/data/ledger"
	"pmx/internal/data/sqlite"
	"pmx/internal/exchange/engine"
)

// benchMarkets is how many markets BenchmarkTradeIngest's data store holds.
const benchMarkets = 280

// countingLedger fails the benchmark's check when an apply was refused.
type countingLedger struct {
	p   *ingest.Pipeline
	n   int
	err error
}

func (c *countingLedger) Apply(ctx context.Context, evs []ledger.Event) (int, error) {
	n, err := c.p.Apply(ctx, evs)
	c.n += n
	if err != nil && c.err == nil {
		c.err = err
	}
	return n, err
}

// BenchmarkTradeIngest compares what a trade costs the data store when it
// comes from the CLOB (the feed's deliver: each command's fill mapped to
// ledger events, the batch applied) with an operator's ledger batch of
// today (NDJSON parsed, then applied), at the same batch sizes: 1 (an idle
// venue: each fill commits alone; an operator posting one event), 100 and
// 1,000 (the feed under load takes every command queued while the last
// batch committed, up to feedMaxBatch). A normal match is one ledger event
// (one trade row; the data store writes the maker's and the taker's
// activity rows from it), so cpu-ns/op is per trade and per event for both;
// the feed's mint match is three events (the exchange's split and one
// trade per outcome): feed-mint reports cpu-ns/event too. cpu-ns/op is the
// CPU of the whole process per trade (or, for ledger-*, per event). The
// data store holds the demo world's ~280 markets (benchMarkets), so what a
// batch costs per market in the store shows.
func BenchmarkTradeIngest(b *testing.B) {
	ctx := context.Background()
	var cl *countingLedger
	setup := func(b *testing.B) (*Service, *sqlite.DB) {
		db, err := sqlite.Open(filepath.Join(b.TempDir(), "pmx.db"), sqlite.Options{})
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { db.Close() })
		yes, no := true, false
		evs := []ledger.Event{{Kind: ledger.KindMarket, ConditionID: feedCond, Question: "Bench?", Slug: "bench", EventID: 9,
			EventSlug: "bench", EventTitle: "Bench", Outcomes: []string{"Yes", "No"}, TokenIDs: []string{"11", "12"},
			EndDate: "2030-01-01T00:00:00Z", Active: &yes, Closed: &no},
			{Kind: ledger.KindSplit, TxHash: "0x" + fmt.Sprintf("%064x", 1), BlockNumber: 1, Timestamp: 1_800_000_000,
				User: walletM, ConditionID: feedCond, Amount: amount.Micro(1) << 50}}
		for i := range benchMarkets - 1 {
			evs = append(evs, ledger.Event{Kind: ledger.KindMarket, ConditionID: fmt.Sprintf("0x%064x", 1000+i), Question: "Q?",
				Slug: fmt.Sprintf("q-%d", i), EventID: int64(100 + i/3), EventSlug: fmt.Sprintf("e-%d", i/3), EventTitle: "E",
				Outcomes: []string{"Yes", "No"}, TokenIDs: []string{fmt.Sprintf("%d1", 1000+i), fmt.Sprintf("%d2", 1000+i)},
				EndDate: "2030-01-01T00:00:00Z", Active: &yes, Closed: &no})
		}
		if _, err := db.Apply(ctx, evs); err != nil {
			b.Fatal(err)
		}
		cl = &countingLedger{p: &ingest.Pipeline{Data: db}}
		s := Open(Options{Dir: b.TempDir(), SyncEvery: -1, Ledger: cl})
		b.Cleanup(func() { s.Close() })
		<-s.Ready()
		mk := clob.Market{ConditionID: feedCond, Tokens: [2]clob.Token{{ID: "11", Outcome: "Yes"}, {ID: "12", Outcome: "No"}},
			Ticks: 100, Active: true, Accepting: true}
		if r, err := s.Submit(&clobengine.Command{Op: clobengine.OpMarket, Market: &mk}); err != nil || r.Err != nil {
			b.Fatal(err, r.Err)
		}
		return s, db
	}
	// The maker (holding the split) sells 1 share at 0.40 to the taker.
	fill := func(i int) clobengine.Trade {
		return clobengine.Trade{ID: "bench-" + strconv.Itoa(i), Size: 1_000_000, TakerToken: "11", TakerSide: 0, Price: 40,
			TakerMaker: walletT, MakerToken: "11", MakerSide: 1, MakerPrice: 40, MakerAddr: walletM}
	}
	// The taker buys YES at 0.40, the maker NO at 0.60: a mint.
	mint := func(i int) clobengine.Trade {
		return clobengine.Trade{ID: "bench-" + strconv.Itoa(i), Match: 1, Size: 1_000_000, TakerToken: "11", TakerSide: 0,
			Price: 40, TakerMaker: walletT, MakerToken: "12", MakerSide: 0, MakerPrice: 60, MakerAddr: walletM}
	}
	const seq0 = 1_000 // above the service's own commands
	const ts0 = 1_800_000_000_000
	report := func(b *testing.B, c0 time.Duration, perOp int) {
		cpu := float64((cpuclock.Process() - c0).Nanoseconds())
		b.ReportMetric(cpu/float64(b.N), "cpu-ns/op")
		if perOp > 1 {
			b.ReportMetric(cpu/float64(b.N*perOp), "cpu-ns/event")
		}
		if cl.err != nil {
			b.Fatal(cl.err)
		}
	}
	feed := func(n int, trade func(int) clobengine.Trade, events int) func(b *testing.B) {
		return func(b *testing.B) {
			s, _ := setup(b)
			// The engine's apply batches exist before the feed sees them,
			// as the ledger path's NDJSON bodies do: built untimed.
			var batches [][]engine.Applied[clobengine.Result]
			for start := 0; start < b.N; start += n {
				var batch []engine.Applied[clobengine.Result]
				for i := start; i < min(start+n, b.N); i++ {
					batch = append(batch, engine.Applied[clobengine.Result]{Seq: uint64(seq0 + i), TS: ts0 + int64(i),
						Events: []clobengine.Result{{Fills: []clobengine.Trade{trade(i)}}}})
				}
				batches = append(batches, batch)
			}
			b.ResetTimer()
			c0 := cpuclock.Process()
			for _, batch := range batches {
				s.deliver(batch)
			}
			report(b, c0, events)
			if cl.n != b.N*events {
				b.Fatalf("applied %d of %d events", cl.n, b.N*events)
			}
		}
	}
	ledgerBatch := func(n int) func(b *testing.B) {
		return func(b *testing.B) {
			s, db := setup(b)
			p := &ingest.Pipeline{Data: db}
			var bodies [][]byte
			for start := 0; start < b.N; start += n {
				var body []byte
				for i := start; i < min(start+n, b.N); i++ {
					evs := s.LedgerEvents(nil, uint64(seq0+i), ts0+int64(i), &clobengine.Result{Fills: []clobengine.Trade{fill(i)}})
					body = ledger.AppendEvent(body, &evs[0])
					body = append(body, '\n')
				}
				bodies = append(bodies, body)
			}
			b.ResetTimer()
			c0 := cpuclock.Process()
			applied := 0
			for _, body := range bodies {
				evs, err := ledger.ParseAll(bytes.NewReader(body))
				if err != nil {
					b.Fatal(err)
				}
				k, err := p.Apply(ctx, evs)
				if err != nil {
					b.Fatal(err)
				}
				applied += k
			}
			report(b, c0, 1)
			if applied != b.N {
				b.Fatalf("applied %d of %d events", applied, b.N)
			}
		}
	}
	for _, n := range []int{1, 100, 1000} {
		b.Run(fmt.Sprintf("clob-feed-batch-%d", n), feed(n, fill, 1))
		b.Run(fmt.Sprintf("ledger-batch-%d", n), ledgerBatch(n))
	}
	b.Run("clob-feed-mint-batch-100", feed(100, mint, 3))
}
