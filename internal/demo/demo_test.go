package demo

import (
	"bytes"
	"crypto/sha256"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"pmx/internal/amount"
	"pmx/internal/data/ledger"
)

var testNow = time.Date(2026, 11, 21, 0, 0, 0, 0, time.UTC)

func world(t testing.TB, opts Options) []byte {
	var buf bytes.Buffer
	enc := ledger.NewEncoder(&buf)
	if err := Generate(opts, func(e *ledger.Event) error { return enc.Encode(e) }); err != nil {
		t.Fatal(err)
	}
	enc.Flush()
	return buf.Bytes()
}

// checkWorld parses the world (every line must validate), replays it under
// the ledger rules, and returns per-kind counts.
func checkWorld(t testing.TB, data []byte, opts Options) map[ledger.Kind]int {
	evs, err := ledger.ParseAll(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	r := newReplay()
	lo, hi := opts.Now.Add(-Window).Unix(), opts.Now.Unix()
	for i := range evs {
		e := &evs[i]
		if err := r.apply(e); err != nil {
			t.Fatalf("event %d (%s): %v", i+1, e.Kind, err)
		}
		if e.Kind.Onchain() && (e.Timestamp < lo || e.Timestamp > hi) {
			t.Fatalf("event %d outside the window: %d", i+1, e.Timestamp)
		}
	}
	return r.counts
}

func TestSmallWorld(t *testing.T) {
	opts := Options{Seed: 7, Scale: 0.02, Now: testNow}
	data := world(t, opts)
	counts := checkWorld(t, data, opts)
	t.Logf("%d bytes, counts %v", len(data), counts)
	if counts[ledger.KindTrade] < int(fullTrades*opts.Scale*0.95) {
		t.Errorf("only %d trades", counts[ledger.KindTrade])
	}
	if counts[ledger.KindProfile] != 100 {
		t.Errorf("%d profiles, want 100", counts[ledger.KindProfile])
	}
	// Every kind shows up even in a small world, except the rare migration.
	for k := range map[ledger.Kind]bool{
		ledger.KindMarket: true, ledger.KindTrade: true, ledger.KindSplit: true, ledger.KindMerge: true,
		ledger.KindRedeem: true, ledger.KindConversion: true, ledger.KindReward: true, ledger.KindYield: true,
		ledger.KindMakerRebate: true, ledger.KindTakerRebate: true, ledger.KindReferralReward: true,
		ledger.KindDeposit: true, ledger.KindWithdrawal: true, ledger.KindTip: true, ledger.KindResolution: true,
		ledger.KindProfile: true, ledger.KindBuilder: true, ledger.KindComboMarket: true,
		ledger.KindComboTrade: true, ledger.KindComboActivity: true,
	} {
		if counts[k] == 0 {
			t.Errorf("no %s events", k)
		}
	}
}

func TestDeterministic(t *testing.T) {
	opts := Options{Seed: 42, Scale: 0.01, Now: testNow}
	a, b := world(t, opts), world(t, opts)
	if sha256.Sum256(a) != sha256.Sum256(b) {
		t.Fatal("same options gave different bytes")
	}
	opts.Seed = 43
	if bytes.Equal(a, world(t, opts)) {
		t.Fatal("different seeds gave the same world")
	}
	opts.Seed, opts.Now = 42, testNow.Add(time.Hour)
	if bytes.Equal(a, world(t, opts)) {
		t.Fatal("different Now gave the same world")
	}
}

func TestOptionsRejected(t *testing.T) {
	for _, o := range []Options{{Scale: 0, Now: testNow}, {Scale: -1, Now: testNow}, {Scale: 1}} {
		if err := Generate(o, func(*ledger.Event) error { return nil }); err == nil {
			t.Errorf("%+v accepted", o)
		}
	}
}

func TestEmitErrorStops(t *testing.T) {
	stop := os.ErrClosed
	n := 0
	err := Generate(Options{Seed: 1, Scale: 0.01, Now: testNow}, func(*ledger.Event) error {
		n++
		if n == 100 {
			return stop
		}
		return nil
	})
	if err != stop || n != 100 {
		t.Fatalf("err %v after %d events", err, n)
	}
}

func TestWriteFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "world.ndjson")
	opts := Options{Seed: 3, Scale: 0.01, Now: testNow}
	var last [2]int
	calls := 0
	if err := WriteFile(path, opts, func(done, total int) { last = [2]int{done, total}; calls++ }); err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, world(t, opts)) {
		t.Fatal("WriteFile differs from Generate")
	}
	if calls == 0 || last[0] != last[1] || last[0] != bytes.Count(got, []byte("\n")) {
		t.Fatalf("progress ended at %v after %d calls", last, calls)
	}
	if fi, _ := os.Stat(path); fi.Mode().Perm() != 0o644 {
		t.Errorf("mode %v", fi.Mode())
	}
	if err := WriteFile(filepath.Join(t.TempDir(), "no", "such", "dir"), opts, nil); err == nil {
		t.Fatal("write into a missing directory succeeded")
	}
}

// TestFullWorld checks the full-scale promises (PMX_LONG=1; about a minute).
func TestFullWorld(t *testing.T) {
	if os.Getenv("PMX_LONG") == "" {
		t.Skip("set PMX_LONG=1 for the full-scale world")
	}
	opts := Options{Seed: 1, Scale: 1, Now: testNow}
	counts := checkWorld(t, world(t, opts), opts)
	t.Logf("counts %v", counts)
	if counts[ledger.KindTrade] < 500_000 || counts[ledger.KindProfile] != fullWallets {
		t.Fatalf("trades %d profiles %d", counts[ledger.KindTrade], counts[ledger.KindProfile])
	}
	for k := range map[ledger.Kind]bool{ledger.KindMigration: true, ledger.KindComboMarket: true} {
		if counts[k] == 0 {
			t.Errorf("no %s events", k)
		}
	}
}

// TestReplayCatches shows the consistency checker can fail: each history
// breaks one rule the generator promises to keep.
func TestReplayCatches(t *testing.T) {
	const (
		cond  = "0x1111111111111111111111111111111111111111111111111111111111111111"
		alice = "0x00000000000000000000000000000000000000a1"
		bob   = "0x00000000000000000000000000000000000000b0"
	)
	no := false
	market := ledger.Event{Kind: ledger.KindMarket, ConditionID: cond, Outcomes: []string{"Yes", "No"},
		TokenIDs: []string{"1", "2"}, Closed: &no}
	seq := int64(0)
	chain := func(e ledger.Event) ledger.Event {
		seq++
		e.TxHash = fmt.Sprintf("0x%064x", seq)
		e.BlockNumber, e.Timestamp = 100+seq, 1000+seq
		return e
	}
	split := chain(ledger.Event{Kind: ledger.KindSplit, User: bob, ConditionID: cond, Amount: 5})
	buy := chain(ledger.Event{Kind: ledger.KindTrade, TokenID: "1", Maker: bob, Taker: alice, Side: "BUY", Size: 5})
	res := ledger.Event{Kind: ledger.KindResolution, ConditionID: cond, Payouts: []amount.Micro{0, amount.One}}
	redeem := chain(ledger.Event{Kind: ledger.KindRedeem, User: alice, ConditionID: cond})
	merge := chain(ledger.Event{Kind: ledger.KindMerge, User: alice, ConditionID: cond, Amount: 1})
	late := buy
	late.TxHash, late.BlockNumber = "0xlate", 1
	for _, tc := range []struct {
		name string
		h    []ledger.Event
		want string
	}{
		{"sell without holding", []ledger.Event{market, buy}, bob + " would hold -0.000005 of 1"},
		{"merge incomplete set", []ledger.Event{market, split, buy, merge}, alice + " would hold -0.000001 of 2"},
		{"redeem before resolved", []ledger.Event{market, split, buy, redeem}, "redeem before resolution"},
		{"redeem a loser", []ledger.Event{market, split, buy, res, redeem}, "redeem without a paying holding"},
		{"trade after resolution", []ledger.Event{market, split, res, buy}, "is closed"},
		{"out of order", []ledger.Event{market, split, buy, late}, "out of order"},
	} {
		r := newReplay()
		var err error
		for i := range tc.h {
			if err = r.apply(&tc.h[i]); err != nil {
				break
			}
		}
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: got %v, want %q", tc.name, err, tc.want)
		}
	}
	// And the same pieces in a valid order pass.
	win := res
	win.Payouts = []amount.Micro{amount.One, 0}
	r := newReplay()
	for _, e := range []ledger.Event{market, split, buy, win, redeem} {
		if err := r.apply(&e); err != nil {
			t.Fatalf("valid history rejected: %v", err)
		}
	}
}
