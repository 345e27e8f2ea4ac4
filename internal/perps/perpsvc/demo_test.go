package perpsvc

import (
	"context"
	"errors"
	"math/rand/v2"
	"testing"
	"time"

	"pmx/internal/amount"
	"pmx/internal/exchange/fixed"
	"pmx/internal/perps/perps"
)

const t0 = int64(1790000000000) // test epoch (ms)

// newTestService opens a service on a temporary directory with a fixed
// clock; it is closed with the test.
func newTestService(t testing.TB) *Service {
	t.Helper()
	dir := t.TempDir()
	return openTestService(t, dir)
}

func openTestService(t testing.TB, dir string) *Service {
	t.Helper()
	s, err := New(Options{Dir: dir, Log: quiet(), Clock: func() time.Time { return time.UnixMilli(t0) }})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func TestDemoSeedsOnlyAnEmptyExchange(t *testing.T) {
	s := newTestService(t)
	if ok, err := s.SeedDemo(); !ok || err != nil {
		t.Fatalf("first seed: %v %v", ok, err)
	}
	if ok, err := s.SeedDemo(); ok || err != nil {
		t.Fatalf("second seed: %v %v", ok, err)
	}
	var inst []perps.InstrumentWire
	var tk []perps.Ticker
	s.View(func(m *perps.Machine) { inst, tk = m.Instruments(), m.Tickers(1, t0) })
	if len(inst) != len(demoInstruments) || inst[4].Symbol != "XAU-USD" {
		t.Fatalf("instruments: %+v", inst)
	}
	if len(tk) != 1 || tk[0].IndexPrice != "97000" {
		t.Fatalf("ticker: %+v", tk)
	}
	// An exchange with an operator's instrument is never seeded, and the
	// market makers refuse to run on it.
	f := newTestService(t)
	if _, err := f.CreateInstrument(perps.InstrumentSpec{Symbol: "BTC-USD", Category: "crypto", PriceDecimals: 1,
		QtyDecimals: 4, MaxLeverage: 20, MinNotional: "1"}); err != nil {
		t.Fatal(err)
	}
	if ok, err := f.SeedDemo(); ok || err != nil {
		t.Fatalf("seeded a non-empty exchange: %v %v", ok, err)
	}
	if err := f.RunMarketMakers(context.Background(), MarketMakerOptions{}); !errors.Is(err, ErrNotDemo) {
		t.Fatalf("market makers on a non-demo exchange: %v", err)
	}
}

// TestDemoMarketMakersKeepBooksTwoSidedAndTrade drives the rounds directly
// (no timer) and reads the venue through the machine.
func TestDemoMarketMakersKeepBooksTwoSidedAndTrade(t *testing.T) {
	dir := t.TempDir()
	s := openTestService(t, dir)
	if _, err := s.SeedDemo(); err != nil {
		t.Fatal(err)
	}
	o := MarketMakerOptions{Levels: 3, TakeEvery: 1}
	books := mmBooks()
	rng := rand.New(rand.NewPCG(1, 2))
	var prev []uint64
	var err error
	for range 4 {
		if prev, err = s.mmRound(books, prev, o, rng); err != nil {
			t.Fatal(err)
		}
		if len(prev) != 2*o.Levels*len(demoInstruments) {
			t.Fatalf("%d of %d quotes accepted", len(prev), 2*o.Levels*len(demoInstruments))
		}
	}
	for iid := uint32(1); iid <= uint32(len(demoInstruments)); iid++ {
		var bk perps.BookWire
		var trades []perps.PublicTrade
		s.View(func(m *perps.Machine) { bk, trades = m.Book(iid, 10, t0), first(m.Trades(iid, 0, t0+1, 100)) })
		if len(bk.Bids) == 0 || len(bk.Asks) == 0 || len(bk.Bids) > o.Levels || len(bk.Asks) > o.Levels {
			t.Errorf("instrument %d book: %+v", iid, bk)
		}
		if len(trades) == 0 {
			t.Errorf("instrument %d: no trades after 4 rounds with the taker on every round", iid)
		}
	}
	// Only the latest ladder rests: older ones were cancelled.
	var open int
	s.View(func(m *perps.Machine) { open = len(m.OpenOrdersOf(DemoMaker, 0)) })
	if open > 2*o.Levels*len(demoInstruments) || open != len(prev) {
		t.Errorf("maker has %d open orders, ladder %d", open, len(prev))
	}

	// After a restart the makers pick up their resting ladder and the walk
	// resumes from the index; a cancelled context stops them.
	s.Close()
	s = openTestService(t, dir)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := s.RunMarketMakers(ctx, MarketMakerOptions{Seed: 7}); err != nil {
		t.Fatalf("stopped market makers: %v", err)
	}
	s.View(func(m *perps.Machine) { open = len(m.OpenOrdersOf(DemoMaker, 0)) })
	if open == 0 || open > 2*5*len(demoInstruments) {
		t.Errorf("after one round on restart: %d open", open)
	}
}

func first[T any](v T, _ bool) T { return v }

func mmBooks() []*mmBook {
	var books []*mmBook
	for i, d := range demoInstruments {
		g := gridOf(d)
		st, _ := g.ParsePrice(d.start)
		books = append(books, &mmBook{iid: uint32(i + 1), grid: g, start: int64(st), mid: int64(st), lots: d.lots})
	}
	return books
}

// BenchmarkMarketMakerRound: one demo round (5 index pushes, a 50-order
// ladder, its predecessor's cancel, the taker's IOCs), journaled.
func BenchmarkMarketMakerRound(b *testing.B) {
	s := newTestService(b)
	if _, err := s.SeedDemo(); err != nil {
		b.Fatal(err)
	}
	books := mmBooks()
	rng := rand.New(rand.NewPCG(1, 2))
	var prev []uint64
	var err error
	for b.Loop() {
		if prev, err = s.mmRound(books, prev, MarketMakerOptions{Levels: 5, TakeEvery: 3}, rng); err != nil {
			b.Fatal(err)
		}
	}
}

// TestDemoBooksAreNotMirrored: the demo makers' bid and ask ladders are
// built independently (gaps, sizes, lean), so no book's asks mirror its bids
// level for level, in distance from the mid or in size.
func TestDemoBooksAreNotMirrored(t *testing.T) {
	s := newTestService(t)
	if _, err := s.SeedDemo(); err != nil {
		t.Fatal(err)
	}
	books := mmBooks()
	rng := rand.New(rand.NewPCG(5, 6))
	var prev []uint64
	var err error
	for range 3 {
		if prev, err = s.mmRound(books, prev, MarketMakerOptions{Levels: 5, TakeEvery: 1000}, rng); err != nil {
			t.Fatal(err)
		}
	}
	for iid := uint32(1); iid <= uint32(len(demoInstruments)); iid++ {
		var bk perps.BookWire
		s.View(func(m *perps.Machine) { bk = m.Book(iid, 10, t0) })
		if len(bk.Bids) < 3 || len(bk.Asks) < 3 {
			t.Fatalf("instrument %d: thin book %+v", iid, bk)
		}
		sameSizes, sameGaps := true, true
		for l := 0; l < min(len(bk.Bids), len(bk.Asks)); l++ {
			sameSizes = sameSizes && bk.Bids[l][1] == bk.Asks[l][1]
			if l > 0 {
				bg := dec(t, bk.Bids[l-1][0]) - dec(t, bk.Bids[l][0])
				ag := dec(t, bk.Asks[l][0]) - dec(t, bk.Asks[l-1][0])
				sameGaps = sameGaps && bg == ag
			}
		}
		if sameSizes || sameGaps {
			t.Errorf("instrument %d: mirrored book (same sizes %t, same gaps %t): %+v", iid, sameSizes, sameGaps, bk)
		}
	}
}

// dec reads a decimal price or size string in micro-units (test only).
func dec(t *testing.T, s string) int64 {
	t.Helper()
	v, err := amount.Parse(s)
	if err != nil {
		t.Fatal(err)
	}
	return int64(v)
}

// TestDemoVenueOpensWithOpenInterest: the seeded venue starts with open
// interest of demoOpenLots innermost quotes per instrument, and an empty book
// (the opening cross filled whole).
func TestDemoVenueOpensWithOpenInterest(t *testing.T) {
	s := newTestService(t)
	if _, err := s.SeedDemo(); err != nil {
		t.Fatal(err)
	}
	for i, d := range demoInstruments {
		iid := uint32(i + 1)
		var tk []perps.Ticker
		var bk perps.BookWire
		s.View(func(m *perps.Machine) { tk, bk = m.Tickers(iid, t0), m.Book(iid, 10, t0) })
		if want := gridOf(d).FormatQty(fixed.Qty(d.lots * demoOpenLots)); len(tk) != 1 || tk[0].OpenInterest != want {
			t.Errorf("instrument %d tickers %+v, want open interest %s", iid, tk, want)
		}
		if len(bk.Bids)+len(bk.Asks) != 0 {
			t.Errorf("instrument %d: the opening cross left a book %+v", iid, bk)
		}
	}
}
