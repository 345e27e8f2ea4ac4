package book_test

import (
	"fmt"
	"os"
	"reflect"
	"runtime"
	"strconv"
	"sync"
	"testing"

	"pmx/internal/exchange/book"
	"pmx/internal/exchange/workload"
)

// limiter is a deterministic reduce-only hook: some owners may reduce by a
// few lots, others not at all.
type limiter struct{}

func (limiter) ReduceOnlyLimit(owner uint64, side book.Side, o book.Outcome) int64 {
	return int64((owner*31+uint64(side)*7+uint64(o)*3)%6) - 1
}

// scenario derives a book and workload configuration from a seed so that
// the seeds sweep STP modes, plain and complementary books, grid sizes and
// crowding.
func scenario(seed uint64) (book.Config, workload.Config) {
	bc := book.Config{STP: book.STPMode(seed % 3), ReduceOnly: limiter{}}
	wc := workload.Config{Seed: seed, Mix: workload.Everything, Resting: 3 + int(seed%40), Owners: 2 + seed%7, MaxQty: 1 + int64(seed%9), Drift: seed%4 != 0}
	switch seed % 4 {
	case 0, 2:
		bc.Ticks = []int64{16, 200, 5000, 1 << 20}[seed/4%4]
	default: // outcome-token market: ticks of 0.01 or 0.001
		bc.Ticks, bc.Complement = []int64{100, 1000}[seed/4%2], true
	}
	wc.Ticks, wc.Complement = bc.Ticks, bc.Complement
	wc.Spread = 1 + int64(seed%13)
	return bc, wc
}

// runDiff feeds n commands to the book and the reference and fails on the
// first difference in events or L2, or a broken invariant.
func runDiff(seed uint64, n int) error {
	bc, wc := scenario(seed)
	real, ref := book.New(bc), book.NewReference(bc)
	aud := newAuditor()
	g := workload.New(wc)
	var c book.Command
	var e1, e2 []book.Event
	var d1, d2 []book.Level
	for i := 0; i < n; i++ {
		g.Next(&c)
		e1 = real.Apply(&c, e1[:0])
		e2 = ref.Apply(&c, e2[:0])
		if !reflect.DeepEqual(e1, e2) {
			return fmt.Errorf("seed %d cmd %d %+v:\n book %+v\n ref  %+v", seed, i, c, e1, e2)
		}
		if err := aud.apply(&c, e1); err != nil {
			return fmt.Errorf("seed %d cmd %d %+v: %v", seed, i, c, err)
		}
		if err := aud.check(real); err != nil {
			return fmt.Errorf("seed %d cmd %d %+v: %v", seed, i, c, err)
		}
		for _, s := range []book.Side{book.Buy, book.Sell} {
			d1, d2 = real.Depth(s, 1<<30, d1[:0]), ref.Depth(s, 1<<30, d2[:0])
			if !reflect.DeepEqual(d1, d2) {
				return fmt.Errorf("seed %d cmd %d side %d L2:\n book %+v\n ref  %+v", seed, i, s, d1, d2)
			}
		}
	}
	if book.Hash(real) != book.Hash(ref) {
		return fmt.Errorf("seed %d: hashes differ", seed)
	}
	return nil
}

// TestDifferential: 2,000 seeds x 300 commands normally (200 under -race or
// -short); PMX_LONG=1 runs 1,000,000 seeds x 1,000 commands on every core.
// PMX_SEEDS=n overrides the seed count.
func TestDifferential(t *testing.T) {
	seeds, n := uint64(2000), 300
	if testing.Short() || raceEnabled {
		seeds = 200
	}
	if os.Getenv("PMX_LONG") == "1" {
		seeds, n = 1_000_000, 1000
	}
	if s, err := strconv.ParseUint(os.Getenv("PMX_SEEDS"), 10, 64); err == nil && s > 0 {
		seeds = s
	}
	workers := uint64(runtime.GOMAXPROCS(0))
	errs := make([]error, workers)
	var wg sync.WaitGroup
	for w := uint64(0); w < workers; w++ {
		wg.Go(func() {
			for seed := 1 + w; seed <= seeds; seed += workers {
				if err := runDiff(seed, n); err != nil {
					errs[w] = err
					return
				}
			}
		})
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			t.Error(err)
		}
	}
}

// TestWorkloadCoverage guards the differential test against going vacuous:
// the seeded streams must reach every event kind, reason and match kind.
func TestWorkloadCoverage(t *testing.T) {
	kinds := map[book.EventKind]int{}
	reasons := map[book.Reason]int{}
	matches := map[book.MatchKind]int{}
	for seed := uint64(1); seed <= 200; seed++ {
		bc, wc := scenario(seed)
		b := book.New(bc)
		var c book.Command
		var ev []book.Event
		g := workload.New(wc)
		for i := 0; i < 300; i++ {
			g.Next(&c)
			ev = b.Apply(&c, ev[:0])
			for _, e := range ev {
				kinds[e.Kind]++
				reasons[e.Reason]++
				if e.Kind == book.EvTrade {
					matches[e.Match]++
				}
			}
		}
	}
	for k := book.EvAccepted; k <= book.EvLevel; k++ {
		if kinds[k] == 0 {
			t.Errorf("no %v events", k)
		}
	}
	for r := book.ReasonBadOp; r <= book.ReasonUser; r++ {
		if reasons[r] == 0 {
			t.Errorf("no %v events", r)
		}
	}
	for m := book.MatchNormal; m <= book.MatchMerge; m++ {
		if matches[m] == 0 {
			t.Errorf("no match kind %d", m)
		}
	}
	t.Logf("kinds %v\nreasons %v\nmatches %v", kinds, reasons, matches)
}

// FuzzBook decodes a command stream from the fuzzer's bytes (the journal
// encoding) and runs it through the book, the reference and the auditor.
func FuzzBook(f *testing.F) {
	for _, seed := range []uint64{1, 2, 3, 5} {
		_, wc := scenario(seed)
		var b []byte
		for _, c := range workload.Generate(wc, 40) {
			b, _ = c.AppendBinary(b)
		}
		f.Add(byte(seed), b)
	}
	f.Fuzz(func(t *testing.T, mode byte, data []byte) {
		cfg := book.Config{Ticks: []int64{16, 100}[mode&1], Complement: mode&2 != 0, STP: book.STPMode(mode >> 2 % 3), ReduceOnly: limiter{}}
		real, ref, aud := book.New(cfg), book.NewReference(cfg), newAuditor()
		for i := 0; len(data) > 0 && i < 500; i++ {
			var c book.Command
			n, err := c.Decode(data)
			if err != nil {
				return
			}
			data = data[n:]
			e1, e2 := real.Apply(&c, nil), ref.Apply(&c, nil)
			if !reflect.DeepEqual(e1, e2) {
				t.Fatalf("cmd %d %+v:\n book %s\n ref  %s", i, c, fmtEvents(e1), fmtEvents(e2))
			}
			if err := aud.apply(&c, e1); err != nil {
				t.Fatalf("cmd %d %+v: %v", i, c, err)
			}
			if err := aud.check(real); err != nil {
				t.Fatalf("cmd %d %+v: %v", i, c, err)
			}
		}
		if book.Hash(real) != book.Hash(ref) {
			t.Fatal("hashes differ")
		}
	})
}
