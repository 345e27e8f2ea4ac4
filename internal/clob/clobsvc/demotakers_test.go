package clobsvc

import (
	"context"
	"math/rand/v2"
	"testing"
	"time"

	"pmx/internal/clob/clob"
	"pmx/internal/clob/clobengine"
)

type stillClock struct{ t time.Time }

func (c stillClock) Now() time.Time { return c.t }

// TestDemoTakersAreDeterministic: two venues with the same markets, makers
// and seed end in the same state after the same turns of the taker bots,
// having traded; another seed ends elsewhere.
func TestDemoTakersAreDeterministic(t *testing.T) {
	run := func(seed uint64) ([32]byte, int) {
		markets := []clob.Market{
			{ConditionID: "0x00000000000000000000000000000000000000000000000000000000000000a1", Ticks: 100, Active: true, Accepting: true,
				Tokens: [2]clob.Token{{ID: "11", Outcome: "Yes"}, {ID: "12", Outcome: "No"}}},
			{ConditionID: "0x00000000000000000000000000000000000000000000000000000000000000a2", Ticks: 1000, Active: true, Accepting: true,
				Tokens: [2]clob.Token{{ID: "21", Outcome: "Yes"}, {ID: "22", Outcome: "No"}}},
		}
		s := Open(Options{Dir: t.TempDir(), SyncEvery: -1, Clock: stillClock{time.Unix(1_800_000_000, 0)},
			Markets: func(context.Context) ([]clob.Market, error) { return markets, nil }})
		defer s.Close()
		<-s.Ready()
		o := TakerOptions{Bots: 3, Seed: seed, Markets: 50}
		rngs := []*rand.Rand{rand.New(rand.NewPCG(seed, 0)), rand.New(rand.NewPCG(seed, 1)), rand.New(rand.NewPCG(seed, 2))}
		for n := range uint64(60) {
			if n%20 == 0 {
				if err := s.quoteRound(n/20, MarketMakerOptions{Markets: 50, Levels: 3}); err != nil {
					t.Fatal(err)
				}
			}
			if err := s.take(int(n%3), n, rngs[n%3], o); err != nil {
				t.Fatal(err)
			}
		}
		h, err := s.Hash()
		if err != nil {
			t.Fatal(err)
		}
		var trades int
		s.View(func(m *clobengine.Machine) {
			trades = len(m.Trades(func(tr *clobengine.Trade) bool { return tr.TakerMaker != DemoMaker }))
		})
		return h, trades
	}
	h1, n1 := run(7)
	h2, n2 := run(7)
	h3, _ := run(8)
	if n1 < 20 || h1 != h2 || n1 != n2 {
		t.Fatalf("seed 7 twice: %d and %d trades, same state %v", n1, n2, h1 == h2)
	}
	if h1 == h3 {
		t.Fatal("seeds 7 and 8 ended in the same state")
	}
}
