package clobengine

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"testing"

	"pmx/internal/clob/clob"
)

const cond0 = "0x" + "11111111111111111111111111111111111111111111111111111111111111aa"

func testMarket(cond, yes, no string, ticks int64) *clob.Market {
	return &clob.Market{ConditionID: cond, Tokens: [2]clob.Token{{ID: yes, Outcome: "Yes"}, {ID: no, Outcome: "No"}},
		Ticks: ticks, MinSize: 1_000_000, Active: true, Accepting: true}
}

type rig struct {
	t   *testing.T
	m   *Machine
	seq uint64
	ts  int64
}

func newRig(t *testing.T) *rig {
	r := &rig{t: t, m: New(Config{}), ts: 1_700_000_000_000}
	r.ok(Command{Op: OpMarket, Market: testMarket(cond0, "1", "2", 100)})
	return r
}

func (r *rig) do(c Command) Result {
	r.t.Helper()
	b, err := Encode(&c)
	if err != nil {
		r.t.Fatal(err)
	}
	r.seq++
	r.ts++
	return r.m.Apply(r.seq, r.ts, b, nil)[0]
}

func (r *rig) ok(c Command) Result {
	r.t.Helper()
	res := r.do(c)
	if res.Err != nil {
		r.t.Fatalf("%s: %v", c.Op, res.Err)
	}
	for _, o := range res.Orders {
		if o.Err != nil {
			r.t.Fatalf("order %s: %v", o.OrderID, o.Err)
		}
	}
	return res
}

var hashN int

// order is a limit order of size shares at price cents in token tok.
func order(maker, tok string, side uint8, cents, shares int64, typ string) OrderInput {
	hashN++
	size, coll := shares*1_000_000, shares*cents*10_000
	in := OrderInput{Hash: fmt.Sprintf("0x%064x", hashN), Token: tok, Side: side, Type: typ, Maker: maker, Signer: maker,
		APIKey: "k-" + maker, Version: 1}
	if side == 0 {
		in.MakerAmt, in.TakerAmt = coll, size
	} else {
		in.MakerAmt, in.TakerAmt = size, coll
	}
	return in
}

func (r *rig) audit() {
	r.t.Helper()
	coll, sets, fees, dep, ok := r.m.Totals()
	if !ok || coll+sets+fees != dep {
		r.t.Fatalf("conservation: coll %d + sets %d + fees %d != deposits %d (ok=%v)", coll, sets, fees, dep, ok)
	}
}

// TestComplementaryMatching: a YES BUY meets a NO BUY at the complementary
// price (mint) and a YES SELL meets a NO SELL (merge); the taker gets the
// price improvement.
func TestComplementaryMatching(t *testing.T) {
	r := newRig(t)
	r.ok(Command{Op: OpDeposit, Addr: "a", Amount: 100_000_000})
	r.ok(Command{Op: OpDeposit, Addr: "b", Amount: 100_000_000})
	// a bids 0.40 for NO (book: YES ask at 0.60); b buys YES up to 0.65: mint at 0.60.
	r.ok(Command{Op: OpPlace, Orders: []OrderInput{order("a", "2", 0, 40, 10, "GTC")}})
	res := r.ok(Command{Op: OpPlace, Orders: []OrderInput{order("b", "1", 0, 65, 10, "GTC")}})
	if p := res.Orders[0]; p.Status != "matched" || p.Making != 6_000_000 || p.Taking != 10_000_000 {
		t.Fatalf("mint: %+v", p)
	}
	if r.m.Balance("a", "2") != 10_000_000 || r.m.Balance("b", "1") != 10_000_000 ||
		r.m.Balance("a", "") != 96_000_000 || r.m.Balance("b", "") != 94_000_000 {
		t.Fatal("mint balances")
	}
	r.audit()
	// Both sell back: a sells NO at 0.30 (rests), b sells YES at 0.60 or better: merge at YES 0.70.
	r.ok(Command{Op: OpPlace, Orders: []OrderInput{order("a", "2", 1, 30, 10, "GTC")}})
	res = r.ok(Command{Op: OpPlace, Orders: []OrderInput{order("b", "1", 1, 60, 10, "FOK")}})
	if p := res.Orders[0]; p.Status != "matched" || p.Taking != 7_000_000 {
		t.Fatalf("merge: %+v", p)
	}
	if r.m.Balance("a", "") != 99_000_000 || r.m.Balance("b", "") != 101_000_000 {
		t.Fatalf("merge balances %d %d", r.m.Balance("a", ""), r.m.Balance("b", ""))
	}
	r.audit()
}

func TestOrderRules(t *testing.T) {
	r := newRig(t)
	r.ok(Command{Op: OpDeposit, Addr: "a", Amount: 10_000_000})
	tick := order("a", "1", 0, 50, 2, "GTC")
	tick.MakerAmt += 1 // 0.500001: off the 0.01 grid
	small := order("a", "1", 0, 50, 2, "GTC")
	small.TakerAmt, small.MakerAmt = 500_000, 250_000
	gtdBad := order("a", "1", 0, 50, 2, "GTD")
	gtdBad.Expiration = r.ts/1000 + 30
	dup := order("a", "1", 0, 10, 2, "GTC")
	r.ok(Command{Op: OpPlace, Orders: []OrderInput{dup}})
	tests := []struct {
		name string
		in   OrderInput
		want clob.Code
	}{
		{"tick", tick, clob.ErrTickSize},
		{"min size", small, clob.ErrMinSize},
		{"balance", order("a", "1", 0, 50, 100, "GTC"), clob.ErrNotEnoughBalance},
		{"sell without tokens", order("a", "1", 1, 50, 2, "GTC"), clob.ErrNotEnoughBalance},
		{"expiration", gtdBad, clob.ErrInvalidExpiration},
		{"duplicate", dup, clob.ErrDuplicated},
		{"FOK unfilled", order("a", "1", 0, 50, 2, "FOK"), clob.ErrFOKUnfilled},
		{"FAK no match", order("a", "1", 0, 50, 2, "FAK"), clob.ErrFAKNoMatch},
		{"unknown token", order("a", "9", 0, 50, 2, "GTC"), clob.ErrInvalidOrderPayload},
	}
	for _, tc := range tests {
		res := r.do(Command{Op: OpPlace, Orders: []OrderInput{tc.in}})
		if e := res.Orders[0].Err; e == nil || e.Code != tc.want {
			t.Errorf("%s: %v, want %s", tc.name, e, clob.Catalogue[tc.want].Msg)
		}
	}
	r.audit()
}

// TestConservationRandom: thousands of seeded operations across many
// accounts and three grids; after every step collateral + reserved + full
// sets + fees equals deposits net of withdrawals, no balance is negative,
// supplies of both outcomes agree, and reservations equal what live orders
// hold. The state also survives a snapshot round trip.
func TestConservationRandom(t *testing.T) {
	r := newRig(t)
	r.ok(Command{Op: OpMarket, Market: testMarket("0x"+fmt.Sprintf("%064x", 7), "3", "4", 1000)})
	mk3 := testMarket("0x"+fmt.Sprintf("%064x", 8), "5", "6", 10)
	mk3.TakerFeeBps = 200
	r.ok(Command{Op: OpMarket, Market: mk3})
	r.m.markets[0].TakerFeeBps = 100
	rng := rand.New(rand.NewPCG(1, 2))
	addrs := []string{"a", "b", "c", "d", "e", "f", "g", "h"}
	conds := []string{cond0, "0x" + fmt.Sprintf("%064x", 7), "0x" + fmt.Sprintf("%064x", 8)}
	tokens := [][2]string{{"1", "2"}, {"3", "4"}, {"5", "6"}}
	ticks := []int64{100, 1000, 10}
	var live []string
	for step := range 5000 {
		a := addrs[rng.IntN(len(addrs))]
		mi := rng.IntN(3)
		switch k := rng.IntN(20); {
		case k == 0:
			r.do(Command{Op: OpDeposit, Addr: a, Amount: rng.Int64N(1_000_000_000) + 1})
		case k == 1:
			r.do(Command{Op: OpWithdraw, Addr: a, Amount: rng.Int64N(100_000_000) + 1})
		case k == 2:
			r.do(Command{Op: OpSplit, Addr: a, Cond: conds[mi], Amount: rng.Int64N(50_000_000) + 1})
		case k == 3:
			r.do(Command{Op: OpMerge, Addr: a, Cond: conds[mi], Amount: rng.Int64N(50_000_000) + 1})
		case k == 4 && len(live) > 0:
			r.do(Command{Op: OpCancel, Addr: a, IDs: []string{live[rng.IntN(len(live))]}})
		case k == 5:
			r.do(Command{Op: OpCancelAll, Addr: a})
		default:
			T := ticks[mi]
			p := rng.Int64N(T-1) + 1
			sz := (rng.Int64N(3000) + 100) * 10_000 // 1.00 .. 31.00 shares, 0.01 steps
			in := OrderInput{Token: tokens[mi][rng.IntN(2)], Side: uint8(rng.IntN(2)), Maker: a, Signer: a,
				Version: 1, FeeBps: 1000, Type: []string{"GTC", "GTC", "GTC", "FOK", "FAK", "GTD"}[rng.IntN(6)]}
			coll := sz * p / T
			if in.Type == "FOK" || in.Type == "FAK" {
				coll = sz*p/T + rng.Int64N(3) // off-grid market orders round
				if coll >= sz {
					coll = sz - 1
				}
			}
			if in.Type == "GTD" {
				in.Expiration = r.ts/1000 + 61 + rng.Int64N(120)
			}
			hashN++
			in.Hash = fmt.Sprintf("0x%064x", hashN)
			if in.Side == 0 {
				in.MakerAmt, in.TakerAmt = coll, sz
			} else {
				in.MakerAmt, in.TakerAmt = sz, coll
			}
			res := r.do(Command{Op: OpPlace, Orders: []OrderInput{in}})
			if res.Orders[0].Err == nil {
				live = append(live, in.Hash)
			}
			r.ts += rng.Int64N(2000)
		}
		r.audit()
		if step%1000 == 999 {
			var buf bytes.Buffer
			if err := r.m.Snapshot(&buf); err != nil {
				t.Fatal(err)
			}
			h := r.m.Hash()
			m2 := New(Config{})
			if err := m2.Restore(&buf); err != nil {
				t.Fatal(err)
			}
			if m2.Hash() != h {
				t.Fatal("snapshot round trip changed the state")
			}
			r.m = m2
		}
	}
	if len(r.m.trades) < 100 {
		t.Fatalf("only %d trades: the workload does not exercise matching", len(r.m.trades))
	}
}

// TestRefusedOrdersLeaveNoState: orders refused for want of balance from a
// spray of unknown makers create no accounts, orders or hashes.
func TestRefusedOrdersLeaveNoState(t *testing.T) {
	r := newRig(t)
	for i := range 1000 {
		in := order(fmt.Sprintf("0x%040x", i), "1", uint8(i%2), 40, 10, "GTC")
		if res := r.do(Command{Op: OpPlace, Orders: []OrderInput{in}}); res.Orders[0].Err == nil {
			t.Fatal("an unfunded order was accepted")
		}
	}
	if len(r.m.accts) != 0 || len(r.m.byHash) != 0 {
		t.Fatalf("%d accounts, %d hashes after refused orders", len(r.m.accts), len(r.m.byHash))
	}
}

// TestBoundMakerBySignatureType: a signer owning a proxy and a deposit
// wallet reads each by its signature type, every time (the lookup ranges a
// map, so it is asked many times), and across a snapshot round trip.
func TestBoundMakerBySignatureType(t *testing.T) {
	r := newRig(t)
	r.ok(Command{Op: OpDeposit, Addr: "w3", Amount: 10_000_000, Signer: "eoa"})
	r.ok(Command{Op: OpDeposit, Addr: "w1", Amount: 10_000_000, Signer: "eoa"})
	if got := r.m.BoundMaker("eoa", 1); got != "w1" {
		t.Fatalf("before any order: %s, want the lowest tied wallet", got)
	}
	for _, w := range []struct {
		addr string
		typ  uint8
	}{{"w1", 1}, {"w3", 3}} {
		o := order(w.addr, "1", 0, 40, 5, "GTC")
		o.Signer, o.SigType = "eoa", w.typ
		r.ok(Command{Op: OpPlace, Orders: []OrderInput{o}})
	}
	var buf bytes.Buffer
	if err := r.m.Snapshot(&buf); err != nil {
		t.Fatal(err)
	}
	m2 := New(Config{})
	if err := m2.Restore(&buf); err != nil {
		t.Fatal(err)
	}
	for _, m := range []*Machine{r.m, m2} {
		for range 64 {
			if a, b, c := m.BoundMaker("eoa", 1), m.BoundMaker("eoa", 3), m.BoundMaker("other", 1); a != "w1" || b != "w3" || c != "other" {
				t.Fatalf("BoundMaker: type 1 %s, type 3 %s, unbound %s", a, b, c)
			}
		}
	}
}
