package matching_test

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"os"
	"slices"
	"sync"
	"testing"

	"pmx/internal/exchange/book"
	"pmx/internal/exchange/engine"
	"pmx/internal/exchange/engine/enginetest"
	"pmx/internal/exchange/matching"
	"pmx/internal/exchange/workload"
)

const ticks = 1 << 12

func markets(n int) []matching.Market {
	var ms []matching.Market
	for i := range n {
		ms = append(ms, matching.Market{ID: uint32(n - 1 - i), Config: book.Config{Ticks: ticks}}) // unsorted on purpose
	}
	return ms
}

const crashBooks = 16

func newMachine() engine.Machine[matching.Event] { return matching.New(markets(crashBooks)) }

// stream returns book id's workload as encoded commands.
func stream(seed uint64, id uint32, n int) [][]byte {
	var out [][]byte
	for _, c := range workload.Generate(workload.Config{Seed: seed, Book: id, Ticks: ticks, Mix: workload.Everything, Resting: 200}, n) {
		// Some invalid commands (bad enum values) cannot even be encoded:
		// they are refused before the journal, so they are not in a stream.
		if b, err := c.MarshalBinary(); err == nil {
			out = append(out, b)
		}
	}
	return out
}

// TestEngineMatchesDirectBook submits four books' streams concurrently
// through the engine (with snapshots and a restart half way) and requires
// each book's event log and final state to equal applying its stream to a
// bare book.
func TestEngineMatchesDirectBook(t *testing.T) {
	const books, per = 4, 600
	var streams [books][][]byte
	var want [books][]matching.Event
	direct := make([]*book.Book, books)
	for id := range books {
		streams[id] = stream(uint64(100+id), uint32(id), per)
		direct[id] = book.New(book.Config{Ticks: ticks})
		var evs []book.Event
		for _, b := range streams[id] {
			var c book.Command
			if err := c.UnmarshalBinary(b); err != nil {
				t.Fatal(err)
			}
			evs = direct[id].Apply(&c, evs[:0])
			for _, ev := range evs {
				want[id] = append(want[id], matching.Event{Book: uint32(id), Event: ev})
			}
		}
	}

	cfg := engine.Config{Dir: t.TempDir(), SnapshotEvery: 300, SegmentBytes: 16 << 10}
	var got [books][]matching.Event
	run := func(half int) {
		m := matching.New(markets(books))
		cfg.Validate = m.Validate
		e, _, err := engine.Open(cfg, engine.Machine[matching.Event](m))
		if err != nil {
			t.Fatal(err)
		}
		var wg sync.WaitGroup
		for id := range books {
			s := streams[id]
			part := s[:len(s)/2]
			if half == 1 {
				part = s[len(s)/2:]
			}
			wg.Go(func() {
				for _, b := range part {
					var c book.Command
					c.UnmarshalBinary(b)
					res, err := e.Submit(c.Time, b) // the stream's own timestamps
					if err != nil {
						t.Error(err)
						return
					}
					got[id] = append(got[id], res.Events...)
				}
			})
		}
		wg.Wait()
		if err := e.Close(); err != nil {
			t.Fatal(err)
		}
	}
	run(0)
	run(1) // recovers from snapshot + tail first
	for id := range books {
		if !slices.Equal(got[id], want[id]) {
			t.Fatalf("book %d: event logs differ (%d events vs %d)", id, len(got[id]), len(want[id]))
		}
	}
	e, rec, err := engine.Open(cfg, engine.Machine[matching.Event](matching.New(markets(books))))
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	if rec.SnapshotSeq == 0 {
		t.Fatalf("recovery did not use a snapshot: %+v", rec)
	}
	got32, _, _ := e.Hash()
	// The machine's hash is SHA-256 over (id, book hash) in id order.
	h := sha256.New()
	for id := range books {
		bh := book.Hash(direct[id])
		h.Write(binary.LittleEndian.AppendUint32(nil, uint32(id)))
		h.Write(bh[:])
	}
	if !bytes.Equal(got32[:], h.Sum(nil)) {
		t.Fatal("recovered state differs from the bare books")
	}
}

func TestCrashRecovery(t *testing.T) {
	cycles := 3
	if os.Getenv("PMX_LONG") != "" {
		cycles = 40
	}
	m := matching.New(markets(crashBooks))
	enginetest.CrashRecovery(t, enginetest.Workload[matching.Event]{
		New:       newMachine,
		Validate:  m.Validate, // stateless: safe to share
		Producers: crashBooks, // one book per producer, so each stream stays coherent
		Producer: func(seed uint64, p int) func() (int64, []byte) {
			g := workload.New(workload.Config{Seed: seed + uint64(p), Book: uint32(p), Ticks: ticks, Mix: workload.Everything, Resting: 300})
			var c book.Command
			return func() (int64, []byte) {
				for {
					g.Next(&c)
					if b, err := c.MarshalBinary(); err == nil {
						return c.Time, b
					}
				}
			}
		},
	}, cycles, 7)
}

func FuzzRestore(f *testing.F) {
	m := matching.New(markets(2))
	for i, b := range stream(1, 0, 50) {
		m.Apply(uint64(i+1), 0, b, nil)
	}
	var buf bytes.Buffer
	m.Snapshot(&buf)
	f.Add(buf.Bytes())
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, data []byte) {
		m := matching.New(markets(2))
		if err := m.Restore(bytes.NewReader(data)); err != nil {
			return
		}
		var again bytes.Buffer
		m.Snapshot(&again)
		if !bytes.Equal(again.Bytes(), data) {
			t.Fatal("accepted snapshot re-encodes differently")
		}
	})
}

// TestUnroutable covers the payloads the machine cannot route: Validate
// refuses them before the journal, and Apply (should one get through)
// still answers with one deterministic rejection.
func TestUnroutable(t *testing.T) {
	enc := func(c book.Command) []byte {
		b, err := c.MarshalBinary()
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	add := book.Command{Op: book.OpAdd, OID: 7, Side: book.Buy, TIF: book.GTC, Price: 100, Qty: 1}
	unknown := add
	unknown.Book = 99
	for _, tc := range []struct {
		name    string
		payload []byte
		refuse  error // what Validate returns (nil: any error)
		want    matching.Event
	}{
		{"malformed", []byte{1, 2, 3}, nil, matching.Event{Malformed: true, Event: book.Event{Kind: book.EvRejected}}},
		{"unknown book", enc(unknown), matching.ErrUnknownBook, matching.Event{Book: 99, UnknownBook: true, Event: book.Event{Kind: book.EvRejected, OID: 7}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := matching.New(markets(2))
			err := m.Validate(tc.payload)
			if err == nil || (tc.refuse != nil && err != tc.refuse) {
				t.Fatalf("Validate: %v, want %v", err, tc.refuse)
			}
			got := m.Apply(1, 1, tc.payload, nil)
			if len(got) != 1 || got[0] != tc.want {
				t.Fatalf("Apply: %+v, want %+v", got, tc.want)
			}
		})
	}
	// The same add to a book the machine runs is accepted and routed.
	m := matching.New(markets(2))
	if err := m.Validate(enc(add)); err != nil {
		t.Fatal(err)
	}
	if got := m.Apply(1, 1, enc(add), nil); len(got) == 0 || got[0].Book != 0 || got[0].Malformed || got[0].UnknownBook || got[0].Kind != book.EvAccepted {
		t.Fatalf("routed add: %+v", got)
	}
}
