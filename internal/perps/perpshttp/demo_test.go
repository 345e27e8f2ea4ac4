package perpshttp

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"testing"

	"pmx/internal/perps/perps"
)

func TestDemoSeedsOnlyAnEmptyExchange(t *testing.T) {
	e := newEnv(t, Options{})
	if ok, err := e.srv.SeedDemo(); !ok || err != nil {
		t.Fatalf("first seed: %v %v", ok, err)
	}
	if ok, err := e.srv.SeedDemo(); ok || err != nil {
		t.Fatalf("second seed: %v %v", ok, err)
	}
	var inst []map[string]any
	if e.get("/v1/info/instruments", &inst); len(inst) != len(demoInstruments) || inst[4]["symbol"] != "XAU-USD" {
		t.Fatalf("instruments: %v", inst)
	}
	var tk []map[string]any
	if e.get("/v1/info/tickers?instrument_id=1", &tk); len(tk) != 1 || tk[0]["index_price"] != "97000" {
		t.Fatalf("ticker: %v", tk)
	}
	// An exchange with an operator's instrument is never seeded, and the
	// market makers refuse to run on it.
	f := newEnv(t, Options{})
	f.instrument()
	if ok, err := f.srv.SeedDemo(); ok || err != nil {
		t.Fatalf("seeded a non-empty exchange: %v %v", ok, err)
	}
	if err := f.srv.RunMarketMakers(context.Background(), MarketMakerOptions{}); !errors.Is(err, ErrNotDemo) {
		t.Fatalf("market makers on a non-demo exchange: %v", err)
	}
}

// TestDemoMarketMakersKeepBooksTwoSidedAndTrade drives the rounds directly
// (no timer) and reads the venue through the public API.
func TestDemoMarketMakersKeepBooksTwoSidedAndTrade(t *testing.T) {
	e := newEnv(t, Options{})
	if _, err := e.srv.SeedDemo(); err != nil {
		t.Fatal(err)
	}
	o := MarketMakerOptions{Levels: 3, TakeEvery: 1}
	books := e.mmBooks(t)
	rng := rand.New(rand.NewPCG(1, 2))
	var prev []uint64
	var err error
	for range 4 {
		if prev, err = e.srv.mmRound(books, prev, o, rng); err != nil {
			t.Fatal(err)
		}
		if len(prev) != 2*o.Levels*len(demoInstruments) {
			t.Fatalf("%d of %d quotes accepted", len(prev), 2*o.Levels*len(demoInstruments))
		}
	}
	for iid := 1; iid <= len(demoInstruments); iid++ {
		var bk struct{ Bids, Asks [][2]string }
		e.get(fmt.Sprintf("/v1/info/book?instrument_id=%d&depth=10", iid), &bk)
		if len(bk.Bids) == 0 || len(bk.Asks) == 0 || len(bk.Bids) > o.Levels || len(bk.Asks) > o.Levels {
			t.Errorf("instrument %d book: %v", iid, bk)
		}
		var tr struct{ Data []map[string]any }
		if e.get(fmt.Sprintf("/v1/info/trades?instrument_id=%d", iid), &tr); len(tr.Data) == 0 {
			t.Errorf("instrument %d: no trades after 4 rounds with the taker on every round", iid)
		}
	}
	// Only the latest ladder rests: older ones were cancelled.
	var open int
	e.srv.view(func(m *perps.Machine) { open = len(m.OpenOrdersOf(DemoMaker, 0)) })
	if open > 2*o.Levels*len(demoInstruments) || open != len(prev) {
		t.Errorf("maker has %d open orders, ladder %d", open, len(prev))
	}

	// After a restart the makers pick up their resting ladder and the walk
	// resumes from the index; a cancelled context stops them.
	e.restart()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := e.srv.RunMarketMakers(ctx, MarketMakerOptions{Seed: 7}); err != nil {
		t.Fatalf("stopped market makers: %v", err)
	}
	e.srv.view(func(m *perps.Machine) { open = len(m.OpenOrdersOf(DemoMaker, 0)) })
	if open == 0 || open > 2*5*len(demoInstruments) {
		t.Errorf("after one round on restart: %d open", open)
	}
}

func (e *env) mmBooks(t *testing.T) []*mmBook {
	t.Helper()
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
	e := newEnv(b, Options{})
	if _, err := e.srv.SeedDemo(); err != nil {
		b.Fatal(err)
	}
	var books []*mmBook
	for i, d := range demoInstruments {
		g := gridOf(d)
		st, _ := g.ParsePrice(d.start)
		books = append(books, &mmBook{iid: uint32(i + 1), grid: g, start: int64(st), mid: int64(st), lots: d.lots})
	}
	rng := rand.New(rand.NewPCG(1, 2))
	var prev []uint64
	var err error
	for b.Loop() {
		if prev, err = e.srv.mmRound(books, prev, MarketMakerOptions{Levels: 5, TakeEvery: 3}, rng); err != nil {
			b.Fatal(err)
		}
	}
}
