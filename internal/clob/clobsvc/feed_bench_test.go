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

// BenchmarkTradeIngest compares what one trade costs the data store when it
// comes from the CLOB (the feed's deliver: the fill mapped to ledger events
// and applied as that command's batch) with the ledger paths of today: an
// operator's NDJSON batch of one trade (parsed, then applied) and one event
// of a 1,000-trade batch. Each op is one trade (cpu-ns/op: CPU of the
// whole process per trade).
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
	const seq0 = 1_000 // above the service's own commands
	report := func(b *testing.B, c0 time.Duration) {
		b.ReportMetric(float64((cpuclock.Process()-c0).Nanoseconds())/float64(b.N), "cpu-ns/op")
		if cl.err != nil {
			b.Fatal(cl.err)
		}
	}

	b.Run("clob-feed", func(b *testing.B) {
		s, _ := setup(b)
		b.ResetTimer()
		c0 := cpuclock.Process()
		for i := range b.N {
			seq := uint64(seq0 + i)
			s.deliver([]engine.Applied[clobengine.Result]{{Seq: seq, TS: 1_800_000_000_000 + int64(i),
				Events: []clobengine.Result{{Fills: []clobengine.Trade{fill(i)}}}}})
		}
		report(b, c0)
		if cl.n != b.N {
			b.Fatalf("applied %d of %d trades", cl.n, b.N)
		}
	})
	b.Run("clob-feed-100-queued", func(b *testing.B) { // under load: 100 commands queued while the last batch applied
		s, _ := setup(b)
		b.ResetTimer()
		c0 := cpuclock.Process()
		for start := 0; start < b.N; start += 100 {
			var batch []engine.Applied[clobengine.Result]
			for i := start; i < min(start+100, b.N); i++ {
				batch = append(batch, engine.Applied[clobengine.Result]{Seq: uint64(seq0 + i), TS: 1_800_000_000_000 + int64(i),
					Events: []clobengine.Result{{Fills: []clobengine.Trade{fill(i)}}}})
			}
			s.deliver(batch)
		}
		report(b, c0)
		if cl.n != b.N {
			b.Fatalf("applied %d of %d trades", cl.n, b.N)
		}
	})
	b.Run("ledger-batch-of-1", func(b *testing.B) {
		s, db := setup(b)
		p := &ingest.Pipeline{Data: db}
		lines := make([][]byte, b.N)
		for i := range b.N {
			evs := s.LedgerEvents(nil, uint64(seq0+i), 1_800_000_000_000+int64(i), &clobengine.Result{Fills: []clobengine.Trade{fill(i)}})
			lines[i] = ledger.AppendEvent(nil, &evs[0])
		}
		b.ResetTimer()
		c0 := cpuclock.Process()
		for i := range b.N {
			evs, err := ledger.ParseAll(bytes.NewReader(lines[i]))
			if err != nil {
				b.Fatal(err)
			}
			if _, err := p.Apply(ctx, evs); err != nil {
				b.Fatal(err)
			}
		}
		report(b, c0)
	})
	b.Run("ledger-batch-of-1000", func(b *testing.B) {
		s, db := setup(b)
		p := &ingest.Pipeline{Data: db}
		var body []byte
		for i := range b.N {
			evs := s.LedgerEvents(nil, uint64(seq0+i), 1_800_000_000_000+int64(i), &clobengine.Result{Fills: []clobengine.Trade{fill(i)}})
			body = ledger.AppendEvent(body, &evs[0])
			body = append(body, '\n')
		}
		b.ResetTimer()
		c0 := cpuclock.Process()
		d := ledger.NewDecoder(bytes.NewReader(body))
		evs, err := d.ReadAll()
		if err != nil {
			b.Fatal(err)
		}
		for start := 0; start < len(evs); start += 1000 {
			if _, err := p.Apply(ctx, evs[start:min(start+1000, len(evs))]); err != nil {
				b.Fatal(err)
			}
		}
		report(b, c0)
	})
}
