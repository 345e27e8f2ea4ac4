package clobsvc

import (
	"context"
	"fmt"
	"math/rand/v2"
	"time"

	"pmx/internal/clob/clobengine"
	"pmx/internal/crypto/keccak"
)

// Demo taker bots: a few operator-funded accounts that take liquidity from
// the demo market makers' books, so the demo venue keeps trading (new
// /v2/trades rows, last prices and books that move). Like the makers they
// submit engine commands directly and everything they do is journaled.
// Their choices come from a seeded generator (one per bot); what a choice
// meets depends on the books at the time.

// TakerOptions configure RunTakers.
type TakerOptions struct {
	Bots     int           // accounts; default 3
	Interval time.Duration // time between two trades of the venue (the bots take turns); default 5 s
	Seed     uint64        // default 1
	Markets  int           // the first accepting markets they trade in; default 50
}

// DemoTaker is the first demo taker's address; bot i is DemoTaker + i.
const DemoTaker = "0x00000000000000000000000000000000000d3e40"

// Taker bounds: a bot is topped up below takerFloor, buys 5-24 shares at
// a time and sells once it holds takerMaxHold shares of a market's Yes.
const (
	takerFloor   = 1_000_000_000  // 1,000 USDC
	takerTopUp   = 10_000_000_000 // 10,000 USDC
	takerMaxHold = 200_000_000    // 200 shares
)

// TakerAddress is bot i's address.
func TakerAddress(i int) string { return fmt.Sprintf("0x%040x", 0xd3e40+i) }

// RunTakers trades until ctx ends.
func (s *Service) RunTakers(ctx context.Context, o TakerOptions) error {
	if o.Bots <= 0 {
		o.Bots = 3
	}
	if o.Interval <= 0 {
		o.Interval = 5 * time.Second
	}
	if o.Seed == 0 {
		o.Seed = 1
	}
	if o.Markets <= 0 {
		o.Markets = 50
	}
	if ok, err := s.awaitReady(ctx); !ok {
		return err
	}
	rngs := make([]*rand.Rand, o.Bots)
	for i := range rngs {
		rngs[i] = rand.New(rand.NewPCG(o.Seed, uint64(i)))
	}
	t := time.NewTicker(o.Interval)
	defer t.Stop()
	for n := uint64(0); ; n++ {
		select {
		case <-ctx.Done():
			return nil
		case <-t.C:
		}
		bot := int(n % uint64(o.Bots))
		if err := s.take(bot, n, rngs[bot], o); err != nil {
			return err
		}
	}
}

// take is one bot's turn: a FAK order at the best price of a seeded
// choice of market and side.
func (s *Service) take(bot int, n uint64, rng *rand.Rand, o TakerOptions) error {
	addr := TakerAddress(bot)
	type target struct {
		yes      string
		ticks    int64
		min      int64
		bid, ask int64
		last     int64
		held     int64
	}
	var ts []target
	var coll int64
	if err := s.View(func(m *clobengine.Machine) {
		coll = m.Balance(addr, "")
		for _, mk := range m.Markets() {
			if len(ts) >= o.Markets {
				break
			}
			if !mk.Accepting || mk.Closed || !mk.Active {
				continue
			}
			bids, asks := mk.Depth(0, 1)
			tg := target{yes: mk.Tokens[0].ID, ticks: mk.Ticks, min: int64(mk.MinSize), last: mk.Last[0].Price,
				held: m.Balance(addr, mk.Tokens[0].ID)}
			if len(bids) > 0 {
				tg.bid = bids[0].Price
			}
			if len(asks) > 0 {
				tg.ask = asks[0].Price
			}
			ts = append(ts, tg)
		}
	}); err != nil {
		return err
	}
	if len(ts) == 0 {
		return nil
	}
	// Draw every choice before looking at the books, so a bot's sequence
	// of draws depends on the seed only.
	pick, coin, shares := rng.IntN(len(ts)), rng.IntN(2), int64(5+rng.IntN(20))
	tg := ts[pick]
	if coll < takerFloor {
		if _, err := s.Submit(&clobengine.Command{Op: clobengine.OpDeposit, Addr: addr, Amount: takerTopUp}); err != nil {
			return err
		}
	}
	size := max(shares*1_000_000, tg.min)
	low, high := tg.last > 0 && tg.last*5 < tg.ticks, tg.last*5 > tg.ticks*4 // below 0.2, above 0.8
	sell := tg.held >= size && (tg.held >= takerMaxHold || high || coin == 1 && !low)
	if !sell && high { // near 1 with nothing to sell: rest this turn
		return nil
	}
	price := tg.ask
	if sell {
		price = tg.bid
	}
	if price <= 0 {
		return nil // that side of the book is empty
	}
	h := keccak.String(fmt.Sprintf("pmx demo taker %d %d %d", o.Seed, bot, n))
	in := clobengine.OrderInput{Hash: fmt.Sprintf("0x%x", h[:]), Token: tg.yes, Type: "FAK", Maker: addr, Signer: addr,
		APIKey: "demo-taker", Version: 2, Stamp: s.now()}
	coll2 := size * price / tg.ticks
	if sell {
		in.Side, in.MakerAmt, in.TakerAmt = 1, size, coll2
	} else {
		in.MakerAmt, in.TakerAmt = coll2, size
	}
	_, err := s.Submit(&clobengine.Command{Op: clobengine.OpPlace, Orders: []clobengine.OrderInput{in}})
	return err
}
