package clobsvc

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"pmx/internal/amount"
	"pmx/internal/catalog/catalog"
	"pmx/internal/clob/clob"
	"pmx/internal/clob/clobengine"
)

// topSink records publishes.
type topSink struct {
	mu     sync.Mutex
	writes [][]clob.BookTop
}

func (s *topSink) Write(_ context.Context, tops []clob.BookTop) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.writes = append(s.writes, append([]clob.BookTop(nil), tops...))
	return nil
}

func (s *topSink) all() [][]clob.BookTop {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([][]clob.BookTop(nil), s.writes...)
}

const topCond = "0x" + "33333333333333333333333333333333333333333333333333333333333333cc"

// openTops opens a service that publishes to sink every interval, with one
// market and a funded maker.
func openTops(t *testing.T, sink *topSink, every time.Duration) *Service {
	s := Open(Options{Dir: t.TempDir(), SyncEvery: -1, BookTops: sink, BookTopsEvery: every})
	t.Cleanup(func() { s.Close() })
	<-s.Ready()
	mk := clob.Market{ConditionID: topCond, Tokens: [2]clob.Token{{ID: "31", Outcome: "Yes"}, {ID: "32", Outcome: "No"}},
		Ticks: 100, Active: true, Accepting: true}
	for _, c := range []clobengine.Command{{Op: clobengine.OpMarket, Market: &mk}, {Op: clobengine.OpDeposit, Addr: "m", Amount: 1_000_000_000}} {
		if r, err := s.Submit(&c); err != nil || r.Err != nil {
			t.Fatal(err, r.Err)
		}
	}
	return s
}

func bid(t *testing.T, s *Service, i int, cents int64) {
	t.Helper()
	in := clobengine.OrderInput{Hash: fmt.Sprintf("0x%064x", i), Token: "31", Type: "GTC", Maker: "m", Signer: "m", APIKey: "k",
		Version: 1, MakerAmt: 10 * cents * 10_000, TakerAmt: 10_000_000}
	if r, err := s.Submit(&clobengine.Command{Op: clobengine.OpPlace, Orders: []clobengine.OrderInput{in}}); err != nil || r.Orders[0].Err != nil {
		t.Fatal(err, r.Orders[0].Err)
	}
}

// TestBookTopsPublishCoalescedAndAtClose: with no tick due, many commands
// publish nothing until Close, which writes the market's last top once.
func TestBookTopsPublishCoalescedAndAtClose(t *testing.T) {
	sink := &topSink{}
	s := openTops(t, sink, time.Hour)
	for i := 1; i <= 20; i++ {
		bid(t, s, i, int64(20+i))
	}
	if w := sink.all(); len(w) != 0 {
		t.Fatalf("published before any tick: %v", w)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	w := sink.all()
	// Bids of 10 at 0.21 … 0.40; the midpoint is the best bid, so the band
	// holds 0.30 … 0.40: 10 × (0.30 + … + 0.40) = 38.5 USDC.
	want := clob.BookTop{Cond: topCond, BestBid: 400_000, BestAsk: amount.One, Liquidity: 38_500_000, Tick: 10_000, Quoted: true}
	if len(w) != 1 || len(w[0]) != 1 || w[0][0] != want {
		t.Fatalf("publishes %+v, want one of %+v", w, want)
	}
}

// TestBookTopsPublishChangedMarkets: on its interval the service publishes
// a market whose top changed, and only then.
func TestBookTopsPublishChangedMarkets(t *testing.T) {
	sink := &topSink{}
	s := openTops(t, sink, 5*time.Millisecond)
	last := func() (clob.BookTop, int) {
		w := sink.all()
		if len(w) == 0 {
			return clob.BookTop{}, 0
		}
		return w[len(w)-1][0], len(w)
	}
	eventually := func(what string, ok func(clob.BookTop) bool) int {
		t.Helper()
		for end := time.Now().Add(10 * time.Second); ; time.Sleep(time.Millisecond) {
			if top, n := last(); n > 0 && ok(top) {
				return n
			}
			if time.Now().After(end) {
				t.Fatalf("never published %s: %+v", what, sink.all())
			}
		}
	}
	eventually("the unquoted market", func(b clob.BookTop) bool { return !b.Quoted && b.Tick == 10_000 })
	bid(t, s, 1, 45)
	n := eventually("the bid", func(b clob.BookTop) bool { return b.Quoted && b.BestBid == 450_000 })
	// A command that leaves the book as it was publishes nothing more.
	if r, err := s.Submit(&clobengine.Command{Op: clobengine.OpDeposit, Addr: "m", Amount: 1}); err != nil || r.Err != nil {
		t.Fatal(err, r.Err)
	}
	bid(t, s, 2, 50)
	if n2 := eventually("the better bid", func(b clob.BookTop) bool { return b.BestBid == 500_000 }); n2 != n+1 {
		t.Fatalf("%d publishes after the bid, want %d (the deposit changed no top)", n2, n+1)
	}
}

// topSource serves fixed tops at a version.
type topSource struct {
	mu   sync.Mutex
	v    int64
	tops map[string]clob.BookTop
}

func (s *topSource) Version(context.Context) (int64, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.v, nil
}

func (s *topSource) Read(context.Context) (int64, map[string]clob.BookTop, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.v, s.tops, nil
}

// TestStoredBookLive: a read node lays the published tops over the data
// store's figures (the tick always, the book fields once quoted), and its
// live generation moves when a new publish is loaded.
func TestStoredBookLive(t *testing.T) {
	last := amount.Micro(420_000)
	data := catalog.StaticLive{topCond: {LastTradePrice: &last}, "0xq": {}}
	src := &topSource{v: 1, tops: map[string]clob.BookTop{
		topCond: {Cond: topCond, BestBid: 400_000, BestAsk: 450_000, Liquidity: 8_500_000, Tick: 10_000, Quoted: true},
		"0xq":   {Cond: "0xq", BestAsk: amount.One, Tick: 1_000}}}
	b := NewStoredBookLive(data, src, time.Millisecond, nil)
	defer b.Close()
	got, err := b.Live(context.Background(), []string{topCond, "0xq", "0xnone"})
	if err != nil {
		t.Fatal(err)
	}
	if l := got[topCond]; *l.LastTradePrice != last || *l.BestBid != 400_000 || *l.BestAsk != 450_000 || *l.Liquidity != 8_500_000 || *l.TickSize != 10_000 {
		t.Fatalf("quoted market %+v", l)
	}
	if l := got["0xq"]; l.BestBid != nil || l.BestAsk != nil || *l.TickSize != 1_000 {
		t.Fatalf("unquoted market %+v", l)
	}
	if _, ok := got["0xnone"]; ok {
		t.Fatal("a market with no top and no data got figures")
	}
	g := b.LiveGeneration()
	if b.LiveGeneration() != g {
		t.Fatal("the generation moved with nothing published")
	}
	src.mu.Lock()
	src.v, src.tops = 2, map[string]clob.BookTop{topCond: {Cond: topCond, BestBid: 410_000, BestAsk: 450_000, Tick: 10_000, Quoted: true}}
	src.mu.Unlock()
	for end := time.Now().Add(10 * time.Second); b.LiveGeneration() == g; time.Sleep(time.Millisecond) {
		if time.Now().After(end) {
			t.Fatal("the generation never moved after a publish")
		}
	}
	if got, _ := b.Live(context.Background(), []string{topCond}); *got[topCond].BestBid != 410_000 {
		t.Fatalf("after the publish %+v", got[topCond])
	}
}
