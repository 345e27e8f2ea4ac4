package clobengine

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"pmx/internal/clob/clob"
)

// orderAt is a limit order of shares at a price in micro-USDC.
func orderAt(maker, tok string, side uint8, micro, shares int64, typ string) OrderInput {
	hashN++
	size, coll := shares*1_000_000, shares*micro
	in := OrderInput{Hash: fmt.Sprintf("0x%064x", hashN), Token: tok, Side: side, Type: typ, Maker: maker, Signer: maker,
		APIKey: "k-" + maker, Version: 1}
	if side == 0 {
		in.MakerAmt, in.TakerAmt = coll, size
	} else {
		in.MakerAmt, in.TakerAmt = size, coll
	}
	return in
}

func TestTickSizeChange(t *testing.T) {
	r := newRig(t)
	r.ok(Command{Op: OpDeposit, Addr: "a", Amount: 100_000_000})
	r.ok(Command{Op: OpDeposit, Addr: "b", Amount: 100_000_000})
	r.ok(Command{Op: OpSplit, Addr: "b", Cond: cond0, Amount: 50_000_000})
	r.ok(Command{Op: OpPlace, Orders: []OrderInput{orderAt("a", "1", 0, 500_000, 10, "GTC")}}) // YES bid 0.50
	r.ok(Command{Op: OpPlace, Orders: []OrderInput{orderAt("a", "2", 0, 300_000, 10, "GTC")}}) // NO bid 0.30 = YES ask 0.70
	refused := func(in OrderInput, tick string) {
		t.Helper()
		res := r.do(Command{Op: OpPlace, Orders: []OrderInput{in}})
		e := res.Orders[0].Err
		if e == nil || e.Code != clob.ErrTickSize || !strings.HasSuffix(e.Error(), "rule: "+tick) {
			t.Fatalf("order off the %s grid: %v", tick, e)
		}
	}
	refused(orderAt("a", "1", 0, 505_000, 10, "GTC"), "0.01")

	// Finer: every price is rescaled exactly; 0.505 is now on the grid.
	res := r.ok(Command{Op: OpTickSize, Cond: cond0, Ticks: 1000})
	if tc := res.TickChange; tc == nil || tc.Old != 100 || tc.New != 1000 || tc.Cond != cond0 {
		t.Fatalf("tick change %+v", res.TickChange)
	}
	mk := r.m.MarketByCond(cond0)
	bids, asks := mk.Depth(0, 10)
	if mk.Ticks != 1000 || mk.GridTicks() != 1000 || len(bids) != 1 || bids[0].Price != 500 || len(asks) != 1 || asks[0].Price != 700 {
		t.Fatalf("rescaled book: ticks %d grid %d bids %+v asks %+v", mk.Ticks, mk.GridTicks(), bids, asks)
	}
	r.ok(Command{Op: OpPlace, Orders: []OrderInput{orderAt("a", "1", 0, 505_000, 10, "GTC")}})
	res = r.ok(Command{Op: OpPlace, Orders: []OrderInput{orderAt("b", "1", 1, 500_000, 5, "FAK")}})
	if p := res.Orders[0]; p.Status != "matched" || p.Taking != 2_525_000 || len(res.Fills) != 1 || res.Fills[0].Price != 505 || res.Fills[0].Ticks != 1000 {
		t.Fatalf("fill at 0.505: %+v fills %+v", res.Orders[0], res.Fills)
	}
	if mk.Last[0].Price != 505 {
		t.Fatalf("last trade %d", mk.Last[0].Price)
	}
	r.audit()

	// Coarser: the rule changes, resting orders keep their prices.
	res = r.ok(Command{Op: OpTickSize, Cond: cond0, Ticks: 100})
	if tc := res.TickChange; tc == nil || tc.Old != 1000 || tc.New != 100 {
		t.Fatalf("tick change back %+v", res.TickChange)
	}
	refused(orderAt("a", "1", 0, 515_000, 10, "GTC"), "0.01")
	r.ok(Command{Op: OpPlace, Orders: []OrderInput{orderAt("a", "1", 0, 520_000, 10, "GTC")}})
	bids, _ = mk.Depth(0, 10)
	if len(bids) != 3 || bids[0].Price != 520 || bids[1].Price != 505 || bids[1].Size != 5_000_000 {
		t.Fatalf("book after the coarser tick: %+v", bids)
	}
	r.audit()

	for _, tc := range []struct {
		name string
		c    Command
		want clob.Code
	}{
		{"unknown market", Command{Op: OpTickSize, Cond: "0x" + strings.Repeat("9", 64), Ticks: 1000}, clob.ErrMarketNotFound},
		{"not a tick size", Command{Op: OpTickSize, Cond: cond0, Ticks: 50}, clob.ErrInvalidTickSize},
		{"no tick size", Command{Op: OpTickSize, Cond: cond0}, clob.ErrInvalidTickSize},
	} {
		if e := r.do(tc.c).Err; e == nil || e.Code != tc.want {
			t.Errorf("%s: %v", tc.name, e)
		}
	}
	if res := r.ok(Command{Op: OpTickSize, Cond: cond0, Ticks: 100}); res.TickChange != nil {
		t.Fatal("an unchanged tick size reported a change")
	}

	// The state, grid included, survives a snapshot.
	var buf bytes.Buffer
	if err := r.m.Snapshot(&buf); err != nil {
		t.Fatal(err)
	}
	m2 := New(Config{})
	if err := m2.Restore(&buf); err != nil {
		t.Fatal(err)
	}
	if m2.Hash() != r.m.Hash() || m2.MarketByCond(cond0).GridTicks() != 100 {
		t.Fatal("snapshot round trip changed the state")
	}
	r.m = m2
	refused(orderAt("a", "1", 0, 515_000, 10, "GTC"), "0.01")

	// Resolved markets keep their grid.
	r.ok(Command{Op: OpResolve, Cond: cond0, Payouts: []int64{1_000_000, 0}})
	if e := r.do(Command{Op: OpTickSize, Cond: cond0, Ticks: 1000}).Err; e == nil || e.Code != clob.ErrMarketResolved {
		t.Fatalf("tick change of a resolved market: %v", e)
	}
}
