package engine_test

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"sync/atomic"
	"testing"

	"pmx/internal/exchange/engine"
	"pmx/internal/exchange/engine/enginetest"
	"pmx/internal/exchange/engine/tally"
	"pmx/internal/exchange/journal"
)

func newTally() engine.Machine[tally.Event] { return tally.New() }

func openT(t *testing.T, cfg engine.Config) (*engine.Engine[tally.Event], engine.Recovery) {
	t.Helper()
	e, rec, err := engine.Open(cfg, newTally())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { e.Close() })
	return e, rec
}

// cmdFor is the i-th command of a deterministic stream; about one in five
// debits is rejected for insufficient balance.
func cmdFor(i int) (int64, []byte) {
	return int64(1000 + i), tally.Encode(fmt.Sprintf("k%d", i%13), int64(i%7)-2)
}

// reference applies commands 1..n of the stream to a fresh machine.
func reference(n int) [32]byte {
	m := tally.New()
	for i := 1; i <= n; i++ {
		ts, c := cmdFor(i)
		m.Apply(uint64(i), ts, c, nil)
	}
	return m.Hash()
}

func submitRange(t *testing.T, e *engine.Engine[tally.Event], from, to int) {
	t.Helper()
	for i := from; i <= to; i++ {
		ts, c := cmdFor(i)
		res, err := e.Submit(ts, c)
		if err != nil || res.Seq != uint64(i) || len(res.Events) != 1 || res.Events[0].Seq != uint64(i) {
			t.Fatalf("submit %d: %+v %v", i, res, err)
		}
	}
}

func TestConcurrentSubmitOrderAndEvents(t *testing.T) {
	dir := t.TempDir()
	e, _ := openT(t, engine.Config{Dir: dir, SegmentBytes: 8 << 10})
	sub := e.Subscribe(1 << 16)
	const producers, each = 8, 300
	results := make([][]engine.Result[tally.Event], producers)
	var wg sync.WaitGroup
	for p := range producers {
		wg.Go(func() {
			for i := range each {
				res, err := e.Submit(int64(i), tally.Encode(fmt.Sprintf("p%d", p), 1))
				if err != nil {
					t.Error(err)
					return
				}
				// A producer's own commands apply in its submission order.
				if res.Events[0].Balance != int64(i+1) {
					t.Errorf("producer %d cmd %d: balance %d", p, i, res.Events[0].Balance)
				}
				results[p] = append(results[p], res)
			}
		})
	}
	wg.Wait()
	h, last, err := e.Hash()
	if err != nil || last != producers*each {
		t.Fatalf("hash at %d: %v", last, err)
	}
	e.Close()
	// Subscribers saw every command exactly once, in sequence order.
	seen := make([]tally.Event, producers*each+1) // by seq
	var want uint64 = 1
	for batch := range sub.C {
		for _, a := range batch {
			if a.Seq != want || a.Events[0].Seq != want {
				t.Fatalf("subscriber got seq %d, want %d", a.Seq, want)
			}
			seen[want] = a.Events[0]
			want++
		}
	}
	if want != producers*each+1 || sub.Lagged() {
		t.Fatalf("subscriber ended at %d lagged=%v", want, sub.Lagged())
	}
	// Producers got the same events the subscriber did.
	for p, rs := range results {
		for _, res := range rs {
			if res.Events[0] != seen[res.Seq] {
				t.Fatalf("producer %d seq %d: result %+v, subscriber %+v", p, res.Seq, res.Events[0], seen[res.Seq])
			}
		}
	}
	// The journal replays to the same state.
	e2, rec := openT(t, engine.Config{Dir: dir})
	h2, _, _ := e2.Hash()
	if h2 != h || rec.Replayed != producers*each {
		t.Fatalf("replayed hash differs (replayed %d)", rec.Replayed)
	}
}

func TestSnapshotPruneRecover(t *testing.T) {
	dir := t.TempDir()
	cfg := engine.Config{Dir: dir, SegmentBytes: 2 << 10, SnapshotEvery: 100}
	e, _ := openT(t, cfg)
	submitRange(t, e, 1, 1050)
	if _, err := e.Snapshot(); err != nil { // explicit snapshot at 1050
		t.Fatal(err)
	}
	submitRange(t, e, 1051, 1234)
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	if err := e.SnapshotErr(); err != nil {
		t.Fatal(err)
	}
	snaps, _ := journal.Snapshots(filepath.Join(dir, "snapshots"))
	if len(snaps) != 2 || snaps[1] != 1200 {
		t.Fatalf("snapshots kept %v", snaps)
	}
	e2, rec := openT(t, cfg)
	if rec.SnapshotSeq != 1200 || rec.Replayed != 34 {
		t.Fatalf("recovery %+v", rec)
	}
	h, last, _ := e2.Hash()
	if last != 1234 || h != reference(1234) {
		t.Fatalf("recovered state differs at %d", last)
	}
	// Segments behind the oldest kept snapshot are gone.
	segs, _ := filepath.Glob(filepath.Join(dir, "journal", "*.wal"))
	if first := filepath.Base(segs[0]); first == fmt.Sprintf("%020d.wal", 1) {
		t.Fatalf("nothing pruned: %v", segs[:1])
	}
	submitRange(t, e2, 1235, 1300) // continues after recovery
	e2.Close()

	// A corrupt newest snapshot falls back to the older one.
	p := filepath.Join(dir, "snapshots", fmt.Sprintf("snap-%020d.snap", 1300))
	if _, err := os.Stat(p); err != nil {
		t.Fatal("expected snapshot at 1300:", err)
	}
	b, _ := os.ReadFile(p)
	b[len(b)/2] ^= 1
	os.WriteFile(p, b, 0o644)
	e3, rec := openT(t, cfg)
	h, last, _ = e3.Hash()
	if rec.SnapshotSeq != 1200 || last != 1300 || h != reference(1300) {
		t.Fatalf("fallback recovery %+v at %d", rec, last)
	}
}

// TestTailDamage cuts or corrupts the end of the journal and requires the
// engine to come back exactly at the last good record, with any snapshot
// beyond it set aside. The damage applies to the last segment's records;
// the zeros the journal keeps after them follow, as after a crash.
func TestTailDamage(t *testing.T) {
	const n = 300
	tests := []struct {
		name     string
		damage   func(b []byte, last int) []byte // last: where the last record starts
		wantLast int
	}{
		{"intact", func(b []byte, _ int) []byte { return b }, n},
		{"torn last record", func(b []byte, last int) []byte { return b[:last+10] }, n - 1}, // through half its seq
		{"last record flipped", func(b []byte, _ int) []byte { b[len(b)-1] ^= 0x10; return b }, n - 1},
		{"trailing zeros", func(b []byte, _ int) []byte { return append(b, make([]byte, 4096)...) }, n},
		{"cut mid-segment", func(b []byte, _ int) []byte { return b[:len(b)/2] }, -1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			cfg := engine.Config{Dir: dir, SnapshotEvery: n, NoPrune: true}
			e, _ := openT(t, cfg)
			submitRange(t, e, 1, n) // snapshot at n
			e.Close()
			segs, _ := filepath.Glob(filepath.Join(dir, "journal", "*.wal"))
			path := segs[len(segs)-1]
			b, _ := os.ReadFile(path)
			end, lastAt := 0, 0
			for {
				_, k, err := journal.DecodeRecord(b[end:])
				if err != nil {
					break
				}
				end, lastAt = end+k, end
			}
			damaged := tc.damage(slices.Clone(b[:end]), lastAt)
			os.WriteFile(path, append(damaged, make([]byte, max(len(b)-len(damaged), 0))...), 0o644)

			e2, rec := openT(t, cfg)
			h, last, _ := e2.Hash()
			if tc.wantLast >= 0 && last != uint64(tc.wantLast) {
				t.Fatalf("recovered through %d, want %d", last, tc.wantLast)
			}
			if h != reference(int(last)) {
				t.Fatalf("state at %d differs from a clean run", last)
			}
			if lost := last < n; lost != slices.Contains(rec.OrphanedSnapshots, n) {
				t.Fatalf("orphans %v with last %d", rec.OrphanedSnapshots, last)
			}
			// The engine continues with the next sequence number.
			ts, c := cmdFor(int(last) + 1)
			if res, err := e2.Submit(ts, c); err != nil || res.Seq != last+1 {
				t.Fatalf("submit after recovery: %+v %v", res, err)
			}
		})
	}
}

func TestValidateRejectsBeforeJournal(t *testing.T) {
	e, _ := openT(t, engine.Config{Dir: t.TempDir(), Validate: tally.Validate})
	if _, err := e.Submit(1, []byte{0}); !errors.Is(err, tally.ErrMalformed) {
		t.Fatalf("err %v", err)
	}
	res, err := e.Submit(2, tally.Encode("a", -1)) // valid, refused by the machine
	if err != nil || res.Seq != 1 || res.Events[0].Rejected != "insufficient" {
		t.Fatalf("%+v %v", res, err)
	}
	e.Close()
	if _, err := e.Submit(3, tally.Encode("a", 1)); !errors.Is(err, engine.ErrClosed) {
		t.Fatalf("after close: %v", err)
	}
}

func TestViewSeesAppliedState(t *testing.T) {
	e, _ := openT(t, engine.Config{Dir: t.TempDir()})
	submitRange(t, e, 1, 40)
	var bal int64
	var at uint64
	err := e.View(func(m engine.Machine[tally.Event], seq uint64) {
		bal, at = m.(*tally.Machine).Balance("k3"), seq
	})
	want := tally.New()
	for i := 1; i <= 40; i++ {
		ts, c := cmdFor(i)
		want.Apply(uint64(i), ts, c, nil)
	}
	if err != nil || at != 40 || bal != want.Balance("k3") {
		t.Fatalf("view at %d: balance %d, want %d (%v)", at, bal, want.Balance("k3"), err)
	}
}

func TestSlowSubscriberIsCutOff(t *testing.T) {
	e, _ := openT(t, engine.Config{Dir: t.TempDir()})
	slow := e.Subscribe(1)
	submitRange(t, e, 1, 5) // sequential: one batch each, buffer holds one
	if !slow.Lagged() {
		t.Fatal("subscriber with a full buffer was not cut off")
	}
	n := 0
	for range slow.C {
		n++
	}
	if n != 1 {
		t.Fatalf("%d batches delivered before the cut", n)
	}
}

func TestCrashRecovery(t *testing.T) {
	cycles := 3
	if os.Getenv("PMX_LONG") != "" {
		cycles = 40
	}
	enginetest.CrashRecovery(t, enginetest.Workload[tally.Event]{
		New:      newTally,
		Validate: tally.Validate,
		Producer: func(seed uint64, p int) func() (int64, []byte) {
			rng := rand.New(rand.NewPCG(seed, uint64(p)))
			i := int64(0)
			return func() (int64, []byte) {
				i++
				return int64(p)<<32 | i, tally.Encode(fmt.Sprintf("k%d", rng.IntN(50)), rng.Int64N(21)-10)
			}
		},
	}, cycles, 20261121)
}

// TestJournalFailureStopsApplying: once a group cannot be made durable, its
// commands and all later ones fail and the state stays a journal prefix.
func TestJournalFailureStopsApplying(t *testing.T) {
	var calls atomic.Int64
	e, _ := openT(t, engine.Config{Dir: t.TempDir(), JournalSync: func(f *os.File) error {
		if calls.Add(1) > 5 {
			return errors.New("injected EIO")
		}
		return f.Sync()
	}})
	submitRange(t, e, 1, 5)
	sub := e.Subscribe(16)
	for i := 6; i <= 8; i++ {
		ts, c := cmdFor(i)
		if res, err := e.Submit(ts, c); err == nil {
			t.Fatalf("command %d acknowledged after the journal failed: %+v", i, res)
		}
	}
	h, last, err := e.Hash()
	if err != nil || last != 5 || h != reference(5) {
		t.Fatalf("state after failure: last %d err %v", last, err)
	}
	e.Close()
	for batch := range sub.C {
		t.Fatalf("events published for unjournaled commands: %+v", batch)
	}
}

// TestRestartsAndSnapshotsDoNotChangeOutput is metamorphic: the same command
// stream run with restarts, snapshot intervals and segment sizes varied must
// give the same event log and final hash as one uninterrupted run.
func TestRestartsAndSnapshotsDoNotChangeOutput(t *testing.T) {
	const n = 150
	want := tally.New()
	var wantEvents []tally.Event
	for i := 1; i <= n; i++ {
		ts, c := cmdFor(i)
		wantEvents = want.Apply(uint64(i), ts, c, wantEvents)
	}
	tests := []struct {
		restartEvery, snapshotEvery int
		segmentBytes                int64
	}{
		{0, 0, 0},
		{17, 0, 0},
		{17, 10, 256},
		{50, 7, 1 << 10},
		{1 << 10, 64, 128},
	}
	for _, tc := range tests {
		t.Run(fmt.Sprintf("restart%d-snap%d-seg%d", tc.restartEvery, tc.snapshotEvery, tc.segmentBytes), func(t *testing.T) {
			cfg := engine.Config{Dir: t.TempDir(), SnapshotEvery: uint64(tc.snapshotEvery), SegmentBytes: tc.segmentBytes}
			var got []tally.Event
			e, _, err := engine.Open(cfg, newTally())
			for i := 1; i <= n && err == nil; i++ {
				if tc.restartEvery > 0 && i%tc.restartEvery == 0 {
					if err = e.Close(); err == nil {
						e, _, err = engine.Open(cfg, newTally())
					}
					if err != nil {
						break
					}
				}
				ts, c := cmdFor(i)
				var res engine.Result[tally.Event]
				res, err = e.Submit(ts, c)
				got = append(got, res.Events...)
			}
			if err != nil {
				t.Fatal(err)
			}
			h, _, _ := e.Hash()
			e.Close()
			if !slices.Equal(got, wantEvents) || h != want.Hash() {
				t.Fatal("output differs from an uninterrupted run")
			}
		})
	}
}

// TestRefusedRequests: requests that never reach the apply loop (after
// Close, or refused by the journal) fail without a sequence number and
// leave the state untouched.
func TestRefusedRequests(t *testing.T) {
	e, _ := openT(t, engine.Config{Dir: t.TempDir()})
	submitRange(t, e, 1, 3)
	big := tally.Encode("a", 1)
	big = append(big, make([]byte, journal.MaxPayload)...) // too large for a record
	if res, err := e.Submit(4, big); !errors.Is(err, journal.ErrTooLarge) || res.Seq != 0 {
		t.Fatalf("oversized: %+v %v", res, err)
	}
	submitRange(t, e, 4, 5) // the refusal took no sequence number
	e.Close()
	for name, call := range map[string]func() error{
		"Submit":   func() error { _, err := e.Submit(6, tally.Encode("a", 1)); return err },
		"Hash":     func() error { _, _, err := e.Hash(); return err },
		"View":     func() error { return e.View(func(engine.Machine[tally.Event], uint64) {}) },
		"Snapshot": func() error { _, err := e.Snapshot(); return err },
	} {
		if err := call(); !errors.Is(err, engine.ErrClosed) {
			t.Errorf("%s after Close: %v", name, err)
		}
	}
}
