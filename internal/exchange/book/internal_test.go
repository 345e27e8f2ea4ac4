package book

import (
	"math/rand/v2"
	"testing"
)

// TestBitset checks next/prev against a plain bool slice, across sizes that
// make one, two and three levels.
func TestBitset(t *testing.T) {
	for _, n := range []int64{1, 63, 64, 65, 4096, 4097, 300_000} {
		b := newBitset(n)
		ref := make([]bool, n)
		rng := rand.New(rand.NewPCG(uint64(n), 1))
		for step := 0; step < 3000; step++ {
			i := rng.Int64N(n)
			if rng.IntN(3) == 0 {
				b.clear(i)
				ref[i] = false
			} else {
				b.set(i)
				ref[i] = true
			}
			q := rng.Int64N(n)
			wantNext, wantPrev := int64(-1), int64(-1)
			for j := q; j < n; j++ {
				if ref[j] {
					wantNext = j
					break
				}
			}
			for j := q; j >= 0; j-- {
				if ref[j] {
					wantPrev = j
					break
				}
			}
			if got := b.next(q); got != wantNext {
				t.Fatalf("n=%d next(%d)=%d want %d", n, q, got, wantNext)
			}
			if got := b.prev(q); got != wantPrev {
				t.Fatalf("n=%d prev(%d)=%d want %d", n, q, got, wantPrev)
			}
		}
		if b.prev(-1) != -1 || b.next(n) != -1 {
			t.Fatalf("n=%d: out-of-range queries must return -1", n)
		}
	}
}

// TestOIDIndex checks the open-addressing table against a Go map through
// growth and many deletions (backward shift must keep every key findable).
func TestOIDIndex(t *testing.T) {
	x := newOIDIndex(1)
	ref := map[uint64]int32{}
	rng := rand.New(rand.NewPCG(7, 7))
	var keys []uint64
	for step := 0; step < 200_000; step++ {
		if len(keys) > 0 && rng.IntN(2) == 0 {
			i := rng.IntN(len(keys))
			k := keys[i]
			keys[i] = keys[len(keys)-1]
			keys = keys[:len(keys)-1]
			x.del(k)
			delete(ref, k)
		} else {
			k := 1 + rng.Uint64N(1<<20) // dense keys collide in the high bits too
			if _, ok := ref[k]; ok {
				continue
			}
			v := int32(rng.IntN(1 << 30))
			x.put(k, v)
			ref[k] = v
			keys = append(keys, k)
		}
		if step%1000 == 0 {
			for k, v := range ref {
				if got := x.get(k); got != v {
					t.Fatalf("step %d: get(%d)=%d want %d", step, k, got, v)
				}
			}
			if x.n != len(ref) {
				t.Fatalf("n=%d want %d", x.n, len(ref))
			}
		}
		if x.get(1<<40) != 0 {
			t.Fatal("absent key found")
		}
	}
}

// TestSteadyStateAllocs: once pool, index and pages have grown, adds,
// crossing orders, modifies and cancels allocate nothing.
func TestSteadyStateAllocs(t *testing.T) {
	b := New(Config{Ticks: 1 << 12, Orders: 1024})
	ev := make([]Event, 0, 1024)
	var oid uint64
	round := func() {
		base := oid
		for i := 0; i < 200; i++ {
			oid++
			c := Command{Op: OpAdd, OID: oid, Owner: oid % 5, Side: Side(i % 2), Price: 2000 + int64(i%2)*10 + int64(i%7)*(1-2*int64(i%2)), Qty: 3}
			ev = b.Apply(&c, ev[:0])
		}
		for i := uint64(1); i <= 50; i++ {
			c := Command{Op: OpModify, OID: base + i, Price: 1990 + int64(i%2)*30, Qty: 2}
			ev = b.Apply(&c, ev[:0])
		}
		oid++
		c := Command{Op: OpAdd, OID: oid, Side: Buy, TIF: IOC, Price: 2030, Qty: 100}
		ev = b.Apply(&c, ev[:0])
		for i := uint64(1); i <= 200; i++ {
			c := Command{Op: OpCancel, OID: base + i}
			ev = b.Apply(&c, ev[:0])
		}
	}
	round() // grow once
	if n := testing.AllocsPerRun(50, round); n != 0 {
		t.Fatalf("%v allocations per round", n)
	}
	if b.Len() != 0 {
		t.Fatalf("book not empty: %d", b.Len())
	}
}
