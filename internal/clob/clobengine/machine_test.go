package clobengine

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"strings"
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
// accounts and three grids (one of them changing its tick size); after every step collateral + reserved + full
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
		case step == 2000:
			r.ok(Command{Op: OpResolve, Cond: conds[1], Payouts: []int64{1_000_000, 0}})
		case step == 3000:
			r.ok(Command{Op: OpResolve, Cond: conds[2], Payouts: []int64{333_333, 666_667}})
		case step == 1000 || step == 2500: // tick size changes under a live book: finer (rescaled) ...
			before := bookOf(r.m, 0)
			r.ok(Command{Op: OpTickSize, Cond: cond0, Ticks: map[int]int64{1000: 1000, 2500: 10000}[step]})
			if after := bookOf(r.m, 0); after != before || !strings.Contains(after, ":") {
				t.Fatalf("step %d: the book moved with the tick size:\n%s\n%s", step, before, after)
			}
		case step == 1500 || step == 4500: // ... and back to the grid the orders below use
			r.ok(Command{Op: OpTickSize, Cond: cond0, Ticks: 100})
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
		case k == 6 && step > 2000:
			r.do(Command{Op: OpRedeem, Addr: a, Cond: conds[mi]})
		case k == 7 && step > 4000:
			r.do(Command{Op: OpRedeemAll, Cond: conds[mi]})
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
			st := r.m.state()
			if want, _ := json.Marshal(&st); !bytes.Equal(r.m.encode(), want) {
				t.Fatal("the snapshot's hand-appended encoding differs from encoding/json's")
			}
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
	// Redeeming everything leaves only rounding dust in the pools.
	for _, c := range conds[1:] {
		r.do(Command{Op: OpRedeemAll, Cond: c})
		for _, a := range addrs {
			r.do(Command{Op: OpRedeem, Addr: a, Cond: c})
		}
		r.audit()
		if p := r.m.MarketByCond(c).Res.Pool; p < 0 || p >= int64(len(addrs))*2*Unit {
			t.Fatalf("pool of %s after every redemption: %d units", c, p)
		}
	}
	redeems := 0
	for _, st := range r.m.sets {
		if st.Op == OpRedeem {
			redeems++
		}
	}
	if redeems < 10 {
		t.Fatalf("only %d redemptions: the workload does not exercise them", redeems)
	}
}

// bookOf is market id's book as prices (decimal) and sizes, both sides, in
// its first outcome's terms, checked against its live orders' remainders.
func bookOf(m *Machine, id uint32) string {
	mk := m.Market(id)
	bids, asks := mk.Depth(0, 1<<20)
	var out strings.Builder
	var total int64
	for _, side := range [][]Level{bids, asks} {
		for _, l := range side {
			fmt.Fprintf(&out, "%s:%d ", clob.PriceText(l.Price, mk.Ticks), l.Size)
			total += l.Size
		}
		out.WriteString("| ")
	}
	for _, o := range m.orders {
		if o.Mkt == id && o.Status == StatusLive {
			total -= o.Orig - o.Filled
		}
	}
	if total != 0 {
		return "book and live orders differ by " + fmt.Sprint(total)
	}
	return out.String()
}

// TestResolveAndRedeem: resolution cancels the market's orders and
// releases their reservations, stops trading, splits and merges for good
// (a catalog sync does not reopen it), and refuses bad input; redemption
// pays floor(shares × payout) of each outcome and burns the holding.
func TestResolveAndRedeem(t *testing.T) {
	r := newRig(t)
	r.ok(Command{Op: OpDeposit, Addr: "a", Amount: 100_000_000})
	r.ok(Command{Op: OpDeposit, Addr: "b", Amount: 100_000_000})
	r.ok(Command{Op: OpSplit, Addr: "a", Cond: cond0, Amount: 10_000_000})
	r.ok(Command{Op: OpPlace, Orders: []OrderInput{order("a", "1", 1, 60, 4, "GTC")}}) // a sells 4 YES at 0.60
	r.ok(Command{Op: OpPlace, Orders: []OrderInput{order("b", "1", 0, 60, 3, "GTC")}}) // b buys 3 of them
	bid := order("b", "1", 0, 20, 5, "GTC")
	r.ok(Command{Op: OpPlace, Orders: []OrderInput{bid}})
	r.audit()
	for _, c := range []struct {
		name string
		cmd  Command
		want clob.Code
	}{
		{"unknown market", Command{Op: OpResolve, Cond: "0x" + fmt.Sprintf("%064x", 9), Payouts: []int64{1_000_000, 0}}, clob.ErrMarketNotFound},
		{"one payout", Command{Op: OpResolve, Cond: cond0, Payouts: []int64{1_000_000}}, clob.ErrInvalidPayouts},
		{"payouts not summing to 1", Command{Op: OpResolve, Cond: cond0, Payouts: []int64{600_000, 300_000}}, clob.ErrInvalidPayouts},
		{"a negative payout", Command{Op: OpResolve, Cond: cond0, Payouts: []int64{1_100_000, -100_000}}, clob.ErrInvalidPayouts},
		{"redeem before resolution", Command{Op: OpRedeem, Addr: "a", Cond: cond0}, clob.ErrMarketNotResolved},
	} {
		if res := r.do(c.cmd); res.Err == nil || res.Err.Code != c.want {
			t.Errorf("%s: %v, want %q", c.name, res.Err, clob.Catalogue[c.want].Msg)
		}
	}
	res := r.ok(Command{Op: OpResolve, Cond: cond0, Payouts: []int64{1_000_000, 0}})
	if len(res.Canceled) != 2 || len(res.Sets) != 1 || res.Sets[0].Op != OpResolve {
		t.Fatalf("resolve: %+v", res)
	}
	r.audit()
	if a := r.m.accts["b"]; a.CollResv != 0 || r.m.Order(bid.Hash).Status != StatusCanceled {
		t.Fatalf("b's bid still holds %d", a.CollResv)
	}
	// A catalog sync that still says "accepting" does not reopen it.
	r.ok(Command{Op: OpMarket, Market: testMarket(cond0, "1", "2", 100)})
	if res := r.do(Command{Op: OpPlace, Orders: []OrderInput{order("b", "1", 0, 50, 5, "GTC")}}); res.Orders[0].Err == nil ||
		res.Orders[0].Err.Code != clob.ErrMarketNotReady {
		t.Fatalf("order after resolution: %+v", res.Orders[0])
	}
	for _, c := range []struct {
		name string
		cmd  Command
		want clob.Code
	}{
		{"resolved twice", Command{Op: OpResolve, Cond: cond0, Payouts: []int64{0, 1_000_000}}, clob.ErrMarketResolved},
		{"split after resolution", Command{Op: OpSplit, Addr: "a", Cond: cond0, Amount: 1}, clob.ErrMarketResolved},
		{"merge after resolution", Command{Op: OpMerge, Addr: "a", Cond: cond0, Amount: 1}, clob.ErrMarketResolved},
		{"redeem of a stranger", Command{Op: OpRedeem, Addr: "z", Cond: cond0}, clob.ErrNothingToRedeem},
	} {
		if res := r.do(c.cmd); res.Err == nil || res.Err.Code != c.want {
			t.Errorf("%s: %v, want %q", c.name, res.Err, clob.Catalogue[c.want].Msg)
		}
	}
	collA, collB := r.m.Balance("a", ""), r.m.Balance("b", "")
	// a holds 7 YES and 10 NO: paid 7; b holds 3 YES: paid 3.
	res = r.ok(Command{Op: OpRedeem, Addr: "a", Cond: cond0})
	if st := res.Sets[0]; st.Amount != 17_000_000 || st.Paid != 7_000_000 || r.m.Balance("a", "") != collA+7_000_000 {
		t.Fatalf("a's redemption: %+v, collateral %d", st, r.m.Balance("a", ""))
	}
	if res := r.do(Command{Op: OpRedeem, Addr: "a", Cond: cond0}); res.Err == nil || res.Err.Code != clob.ErrNothingToRedeem {
		t.Fatalf("second redemption: %v", res.Err)
	}
	res = r.ok(Command{Op: OpRedeemAll, Cond: cond0})
	if len(res.Sets) != 1 || res.Sets[0].Addr != "b" || r.m.Balance("b", "") != collB+3_000_000 {
		t.Fatalf("automatic redemption: %+v", res.Sets)
	}
	if res := r.ok(Command{Op: OpRedeemAll, Cond: cond0}); len(res.Sets) != 0 {
		t.Fatalf("the automatic redemption ran twice: %+v", res.Sets)
	}
	r.audit()
	if p := r.m.MarketByCond(cond0).Res.Pool; p != 0 {
		t.Fatalf("pool after every redemption: %d", p)
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
