package workload_test

import (
	"reflect"
	"testing"

	"pmx/internal/exchange/book"
	"pmx/internal/exchange/workload"
)

func TestDeterministic(t *testing.T) {
	cfg := workload.Config{Seed: 42, Mix: workload.Everything, Complement: true, Ticks: 1000, Drift: true}
	a, b := workload.Generate(cfg, 5000), workload.Generate(cfg, 5000)
	if !reflect.DeepEqual(a, b) {
		t.Fatal("same seed, different streams")
	}
	cfg.Seed = 43
	if reflect.DeepEqual(a, workload.Generate(cfg, 5000)) {
		t.Fatal("different seeds, same stream")
	}
	for i, c := range a {
		if c.Seq != uint64(i+1) || (i > 0 && c.Time <= a[i-1].Time) {
			t.Fatalf("command %d: seq %d time %d not increasing", i, c.Seq, c.Time)
		}
	}
}

// TestBenchMix: the Bench mix yields 60/30/10 add/cancel/cross, and on a
// book it settles at about Resting orders with every cancel hitting a live
// order (the property the benchmark depends on).
func TestBenchMix(t *testing.T) {
	const n = 200_000
	cfg := workload.Config{Seed: 1, Ticks: 1 << 14, Mix: workload.Bench, Resting: 2000}
	g := workload.New(cfg)
	b := book.New(book.Config{Ticks: 1 << 14})
	var adds, cancels, crosses, missed int
	var c book.Command
	var ev []book.Event
	for i := 0; i < n; i++ {
		g.Next(&c)
		switch {
		case c.Op == book.OpCancel:
			cancels++
		case c.TIF == book.IOC:
			crosses++
		default:
			adds++
		}
		ev = b.Apply(&c, ev[:0])
		if c.Op == book.OpCancel && ev[0].Kind == book.EvRejected && i > 100 {
			missed++ // (the first few cancels precede any outer-band order)
		}
	}
	near := func(got, pct int) bool { return got > n*(pct-1)/100 && got < n*(pct+1)/100 }
	if !near(adds, 60) || !near(cancels, 30) || !near(crosses, 10) {
		t.Fatalf("mix %d/%d/%d of %d", adds, cancels, crosses, n)
	}
	if missed != 0 {
		t.Fatalf("%d cancels missed", missed)
	}
	if b.Len() < 1500 || b.Len() > 4000 {
		t.Fatalf("book holds %d orders, want about 2000", b.Len())
	}
}
