package book_test

import (
	"bytes"
	"testing"

	"pmx/internal/exchange/book"
	"pmx/internal/exchange/workload"
)

// TestSnapshotRestore: restoring a snapshot mid-stream and continuing gives
// the same events and final hash as the uninterrupted run.
func TestSnapshotRestore(t *testing.T) {
	for seed := uint64(1); seed <= 40; seed++ {
		bc, wc := scenario(seed)
		cmds := workload.Generate(wc, 600)
		a := book.New(bc)
		var ea, eb []book.Event
		for i := range cmds[:300] {
			ea = a.Apply(&cmds[i], ea[:0])
		}
		snap := book.AppendSnapshot(nil, a)
		b, err := book.Restore(bc, snap)
		if err != nil {
			t.Fatalf("seed %d: restore: %v", seed, err)
		}
		if book.Hash(a) != book.Hash(b) {
			t.Fatalf("seed %d: hash changed by restore", seed)
		}
		for i := range cmds[300:] {
			c := &cmds[300+i]
			ea, eb = a.Apply(c, ea[:0]), b.Apply(c, eb[:0])
			if fmtEvents(ea) != fmtEvents(eb) {
				t.Fatalf("seed %d cmd %d: %s vs %s", seed, 300+i, fmtEvents(ea), fmtEvents(eb))
			}
		}
		if book.Hash(a) != book.Hash(b) {
			t.Fatalf("seed %d: final hashes differ", seed)
		}
	}
}

// TestHashSensitive: the hash sees priority order, not just the level totals.
func TestHashSensitive(t *testing.T) {
	cfg := book.Config{Ticks: 100}
	x, y := book.New(cfg), book.New(cfg)
	c1, c2 := add(1, book.Buy, 10, 1), add(2, book.Buy, 10, 1)
	x.Apply(&c1, nil)
	x.Apply(&c2, nil)
	y.Apply(&c2, nil)
	y.Apply(&c1, nil)
	if book.Hash(x) == book.Hash(y) {
		t.Fatal("hash ignores FIFO order")
	}
	if book.Hash(book.New(cfg)) != book.Hash(book.NewReference(cfg)) {
		t.Fatal("empty books hash differently")
	}
}

func TestRestoreRejects(t *testing.T) {
	cfg := book.Config{Ticks: 100}
	good := book.New(cfg)
	for _, c := range []book.Command{add(1, book.Buy, 10, 1), add(2, book.Buy, 12, 1), add(3, book.Sell, 20, 2)} {
		good.Apply(&c, nil)
	}
	snap := book.AppendSnapshot(nil, good)
	one := func(c book.Command) []byte { // snapshot body of a one-order book
		b := book.New(cfg)
		b.Apply(&c, nil)
		return book.AppendSnapshot(nil, b)[2:]
	}
	bid, ask := one(add(1, book.Buy, 12, 1)), one(add(2, book.Sell, 11, 1))
	cases := map[string][]byte{
		"crossed":   append(append([]byte{1, 2}, bid...), ask...),
		"duplicate": append(append([]byte{1, 2}, bid...), bid...),
		"order":     append(append([]byte{1, 2}, one(add(5, book.Buy, 10, 1))...), bid...), // worse bid first
		"empty":     nil,
		"version":   append([]byte{9}, snap[1:]...),
		"truncated": snap[:len(snap)-1],
		"trailing":  append(append([]byte{}, snap...), 0),
	}
	for name, b := range cases {
		if _, err := book.Restore(cfg, b); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
	if _, err := book.Restore(book.Config{Ticks: 11}, snap); err == nil {
		t.Error("prices off a smaller grid accepted")
	}
}

// FuzzRestore: Restore never panics, and whatever it accepts re-encodes to
// the same bytes.
func FuzzRestore(f *testing.F) {
	_, wc := scenario(3)
	b := book.New(book.Config{Ticks: 100, Complement: true})
	for _, c := range workload.Generate(wc, 200) {
		b.Apply(&c, nil)
	}
	f.Add(book.AppendSnapshot(nil, b))
	f.Add([]byte{1, 0})
	f.Fuzz(func(t *testing.T, data []byte) {
		r, err := book.Restore(book.Config{Ticks: 100, Complement: true}, data)
		if err != nil {
			return
		}
		if !bytes.Equal(book.AppendSnapshot(nil, r), data) {
			t.Fatal("accepted snapshot does not re-encode to itself")
		}
	})
}
