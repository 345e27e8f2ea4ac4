package sqlite_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"testing"

	"pmx/internal/amount"
	"pmx/internal/data/ledger"
	"pmx/internal/data/sqlite"
	"pmx/internal/data/store"
)

// snapshot renders everything the queries say about a few wallets, to
// compare stores.
func snapshot(t *testing.T, db store.Store) string { return state(t, db) + watermark(t, db) }

// state is snapshot without the ingest watermark.
func state(t *testing.T, db store.Store) string {
	t.Helper()
	out := ""
	for w := 1; w <= 4; w++ {
		for _, st := range []string{store.StatusOpen, store.StatusClosed} {
			out += fmt.Sprint(positions(t, db, store.PositionsParams{User: addr(w), Status: st}))
		}
		tr, err := db.Trades(ctx, store.TradesParams{User: addr(w), IncludeMaker: true, Now: 1_790_000_000, Limit: 1000})
		if err != nil {
			t.Fatal(err)
		}
		ac, err := db.Activity(ctx, store.ActivityParams{User: addr(w), Limit: 1000,
			Types: store.ActivityTypes, IncludeDepositsWithdrawals: true})
		if err != nil {
			t.Fatal(err)
		}
		us, err := db.UserStats(ctx, addr(w))
		if err != nil {
			t.Fatal(err)
		}
		pnl, err := db.UserPnL(ctx, store.UserPnLParams{User: addr(w), Interval: "max", Fidelity: "1d", Now: 1_790_000_000})
		if err != nil {
			t.Fatal(err)
		}
		b, err := json.Marshal([]any{tr.Rows, ac.Rows, us, pnl})
		if err != nil {
			t.Fatal(err)
		}
		out += string(b)
	}
	return out
}

func watermark(t *testing.T, db store.Store) string {
	wm, err := db.Watermark(ctx)
	if err != nil {
		t.Fatal(err)
	}
	return fmt.Sprint(wm)
}

func TestAtomicBatch(t *testing.T) {
	b := newBuilder(1_780_000_000)
	good := []ledger.Event{binary(1, 7, false),
		b.env(userEv(ledger.KindSplit, 1, 1, "10"), 5),
		b.env(trade("11", 2, 1, "SELL", "0.5", "4", ""), 5)}
	tests := []struct {
		name string
		bad  ledger.Event
	}{
		{"unknown condition", b.env(userEv(ledger.KindSplit, 1, 99, "1"), 5)},
		{"unknown token", b.env(trade("991", 1, 2, "BUY", "0.5", "1", ""), 5)},
		{"duplicate slot", func() ledger.Event { e := good[2]; e.TxHash = txh(1); return e }()},
		{"payout count", ledger.Event{Kind: ledger.KindResolution, ConditionID: cond(1), Payouts: []amount.Micro{amount.One}, ResolvedAt: 5}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			db, _ := openDB(t)
			ref, _ := openDB(t)
			mustApply(t, db, good[0])
			mustApply(t, ref, good[0])
			before := snapshot(t, db)
			batch := append(append([]ledger.Event{}, good[1:]...), tc.bad)
			if n, err := db.Apply(ctx, batch); err == nil {
				t.Fatalf("applied %d, want an error", n)
			}
			if after := snapshot(t, db); after != before {
				t.Fatalf("failed batch changed the store:\n%s\n%s", before, after)
			}
			// The store still works and takes the good part.
			mustApply(t, db, good[1:]...)
			mustApply(t, ref, good[1:]...)
			if a, b := snapshot(t, db), snapshot(t, ref); a != b {
				t.Fatalf("store diverged after a failed batch: %s", firstDiff(a, b))
			}
		})
	}
}

func TestReplayAndDuplicates(t *testing.T) {
	db, _ := openDB(t)
	evs := synth(3, 10, 10, 500)
	mustApply(t, db, evs...)
	before := state(t, db)
	n, err := db.Apply(ctx, evs)
	if err != nil {
		t.Fatal(err)
	}
	onchain := 0
	for _, e := range evs {
		if e.Kind.Onchain() {
			onchain++
		}
	}
	if n != len(evs)-onchain {
		t.Fatalf("replay applied %d, want only the %d off-chain upserts", n, len(evs)-onchain)
	}
	if s := state(t, db); s != before {
		t.Fatal("replay changed derived state", firstDiff(s, before))
	}
	e := evs[len(evs)-1]
	e.TxHash = txh(424242)
	if _, err := db.Apply(ctx, []ledger.Event{e}); !errors.Is(err, store.ErrDuplicate) {
		t.Fatalf("slot reuse: %v", err)
	}
	if _, err := db.Apply(ctx, []ledger.Event{evs[len(evs)-1], evs[len(evs)-1]}); err != nil {
		t.Fatalf("replayed twice in one batch: %v", err)
	}
}

func TestReopen(t *testing.T) {
	db, path := openDB(t)
	evs := synth(5, 10, 10, 800)
	// Split at a UTC day boundary: a day's PnL observation is marked when
	// its wallet's last batch of that day is applied (docs/store.md), so a
	// batch boundary inside a day may mark an untouched wallet earlier.
	half := len(evs) / 2
	for evs[half].Timestamp == 0 || evs[half-1].Timestamp/86400 == evs[half].Timestamp/86400 {
		half++
	}
	mustApply(t, db, evs[:half]...)
	mustApply(t, db, evs[half:]...)
	want := snapshot(t, db)
	db.Close()
	db2, err := sqlite.Open(path, sqlite.Options{Clock: fixedClock})
	if err != nil {
		t.Fatal(err)
	}
	defer db2.Close()
	if got := snapshot(t, db2); got != want {
		t.Fatal("reopened store answers differently", firstDiff(got, want))
	}
	// One batch and two batches derive the same state.
	one, _ := openDB(t)
	mustApply(t, one, evs...)
	if state(t, one) != state(t, db2) {
		t.Fatal("split batches and one batch differ", firstDiff(state(t, one), state(t, db2)))
	}
}

// firstDiff shows where two snapshots part.
func firstDiff(a, b string) string {
	i := 0
	for i < len(a) && i < len(b) && a[i] == b[i] {
		i++
	}
	lo := max(0, i-150)
	return fmt.Sprintf("\n got  ...%s\n want ...%s", a[lo:min(len(a), i+80)], b[lo:min(len(b), i+80)])
}

func TestProgressAndCancel(t *testing.T) {
	var calls [][2]int
	db, err := sqlite.Open(t.TempDir()+"/p.db", sqlite.Options{Progress: func(d, n int) { calls = append(calls, [2]int{d, n}) }})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	evs := synth(2, 10, 20, 15000)
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := db.Apply(cctx, evs); err == nil {
		t.Fatal("cancelled Apply succeeded")
	}
	if wm, _ := db.Watermark(ctx); wm.Applied != 0 {
		t.Fatalf("cancelled Apply left %+v", wm)
	}
	calls = nil
	mustApply(t, db, evs...)
	if len(calls) != 2 || calls[0] != [2]int{16384, len(evs)} || calls[1] != [2]int{len(evs), len(evs)} {
		t.Fatalf("progress calls %v for %d events", calls, len(evs))
	}
}

// TestSmallBatchesMatchOneBatch: the CLOB's live feed applies a few events
// per batch; each Apply reuses the writer's prepared statements and writes
// its rows in chunks of 64, 32, ..., 1 (stmts.go, bulk.go). Batches of every
// size derive the rows one batch does.
func TestSmallBatchesMatchOneBatch(t *testing.T) {
	evs := synth(7, 6, 8, 600)
	one, _ := openDB(t)
	mustApply(t, one, evs...)
	db, _ := openDB(t)
	sizes := []int{1, 37, 2, 100, 63, 5, 64, 1, 127}
	for i, k := 0, 0; i < len(evs); k++ {
		n := min(sizes[k%len(sizes)], len(evs)-i)
		mustApply(t, db, evs[i:i+n]...)
		i += n
	}
	rows := func(db store.Store) string {
		out := ""
		for w := 1; w <= 8; w++ {
			tr, err := db.Trades(ctx, store.TradesParams{User: addr(w), IncludeMaker: true, Now: 1_790_000_000, Limit: 1000})
			if err != nil {
				t.Fatal(err)
			}
			ac, err := db.Activity(ctx, store.ActivityParams{User: addr(w), Limit: 1000,
				Types: store.ActivityTypes, IncludeDepositsWithdrawals: true})
			if err != nil {
				t.Fatal(err)
			}
			b, err := json.Marshal([]any{tr.Rows, ac.Rows, positions(t, db, store.PositionsParams{User: addr(w)})})
			if err != nil {
				t.Fatal(err)
			}
			out += string(b)
		}
		return out
	}
	if a, b := rows(db), rows(one); a != b || len(a) < 10_000 {
		t.Fatal("small batches and one batch differ", len(a), firstDiff(a, b))
	}
}
