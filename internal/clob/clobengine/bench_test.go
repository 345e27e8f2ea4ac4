package clobengine

import (
	"encoding/json"
	"fmt"
	"testing"
)

// BenchmarkMatchComplementary is the machine alone (no journal, no HTTP):
// each op is one place command; every second order is a NO BUY that mints
// against the resting YES BUY at the complementary price, so ops/2 trades
// settle. It reports orders/s and trades/s.
func BenchmarkMatchComplementary(b *testing.B) {
	m := New(Config{})
	mk, _ := Encode(&Command{Op: OpMarket, Market: testMarket(cond0, "1", "2", 100)})
	m.Apply(1, 1, mk, nil)
	dep, _ := Encode(&Command{Op: OpDeposit, Addr: "a", Amount: 1 << 50 / Unit})
	m.Apply(2, 2, dep, nil)
	cmds := make([][]byte, b.N)
	for i := range cmds {
		c := int64(30 + (i/2)%40)
		tok := "1"
		if i%2 == 1 {
			tok, c = "2", 100-c
		}
		in := OrderInput{Hash: fmt.Sprintf("0x%064x", i+1), Token: tok, Side: 0, MakerAmt: 5 * c * 10_000, TakerAmt: 5_000_000,
			Type: "GTC", Maker: "a", Signer: "a", APIKey: "k", Version: 2, Stamp: 1}
		cmds[i], _ = Encode(&Command{Op: OpPlace, Orders: []OrderInput{in}})
	}
	var out []Result
	trades := 0
	b.ReportAllocs()
	b.ResetTimer()
	for i, c := range cmds {
		out = m.Apply(uint64(i+3), int64(i+3), c, out[:0])
		if e := out[0].Orders[0].Err; e != nil {
			b.Fatal(e)
		}
		trades += len(out[0].Orders[0].TradeIDs)
	}
	b.StopTimer()
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "orders/s")
	b.ReportMetric(float64(trades)/b.Elapsed().Seconds(), "trades/s")
}

// BenchmarkPlaceCodec encodes and decodes a 15-order place command: the
// binary record against the JSON every other op uses.
func BenchmarkPlaceCodec(b *testing.B) {
	orders := make([]OrderInput, 15)
	for i := range orders {
		orders[i] = fullOrder()
	}
	c := &Command{Op: OpPlace, Orders: orders}
	b.Run("binary", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			p, _ := Encode(c)
			if _, err := Decode(p); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("json", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			j, _ := json.Marshal(c)
			if _, err := Decode(append([]byte{cmdVersion}, j...)); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// BenchmarkMatchDeepBook is matching into a deep book (the machine alone):
// 10,000 YES BUYs rest on 40 levels (1–40 cents, 250 a level); each op
// pair is a NO BUY at 60 cents that mints against the oldest order on the
// best level (41-cent complement: the 40-cent bid) and a YES BUY at 40
// cents that puts the taken order back, so the depth stays at 10,000
// while every taker walks into a full book. It reports orders/s and trades/s.
func BenchmarkMatchDeepBook(b *testing.B) {
	const depth, levels = 10_000, 40
	m := New(Config{})
	mk, _ := Encode(&Command{Op: OpMarket, Market: testMarket(cond0, "1", "2", 100)})
	m.Apply(1, 1, mk, nil)
	dep, _ := Encode(&Command{Op: OpDeposit, Addr: "a", Amount: 1 << 50 / Unit})
	m.Apply(2, 2, dep, nil)
	seq := uint64(2)
	n := 0
	place := func(tok string, c int64) []byte {
		n++
		in := OrderInput{Hash: fmt.Sprintf("0x%064x", n), Token: tok, Side: 0, MakerAmt: 5 * c * 10_000, TakerAmt: 5_000_000,
			Type: "GTC", Maker: "a", Signer: "a", APIKey: "k", Version: 2, Stamp: 1}
		p, _ := Encode(&Command{Op: OpPlace, Orders: []OrderInput{in}})
		return p
	}
	var out []Result
	for i := range depth {
		seq++
		out = m.Apply(seq, int64(seq), place("1", int64(1+i%levels)), out[:0])
		if e := out[0].Orders[0].Err; e != nil {
			b.Fatal(e)
		}
	}
	cmds := make([][]byte, b.N)
	for i := range cmds {
		if i%2 == 0 {
			cmds[i] = place("2", 60)
		} else {
			cmds[i] = place("1", levels)
		}
	}
	trades := 0
	b.ReportAllocs()
	b.ResetTimer()
	for _, c := range cmds {
		seq++
		out = m.Apply(seq, int64(seq), c, out[:0])
		if e := out[0].Orders[0].Err; e != nil {
			b.Fatal(e)
		}
		trades += len(out[0].Orders[0].TradeIDs)
	}
	b.StopTimer()
	if m.LiveCount() < depth-1 || m.LiveCount() > depth {
		b.Fatalf("book depth %d, want %d", m.LiveCount(), depth)
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "orders/s")
	b.ReportMetric(float64(trades)/b.Elapsed().Seconds(), "trades/s")
}
