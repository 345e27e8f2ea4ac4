package perpsvc

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"time"

	"pmx/internal/exchange/fixed"
	"pmx/internal/perps/perps"
)

// Demo market: a handful of instruments and two operator-funded accounts, a
// maker that keeps a two-sided ladder around a random-walk mid and a taker
// that crosses the spread now and then. Their commands go through the same
// journaled engine as everyone's (operator-level: no signature, no rate
// limits), so the venue they make is replayed on restart like any other.

// Demo accounts. Nobody holds their keys; they act only through the operator
// path below.
const (
	DemoMaker = "0xde00000000000000000000000000000000000001"
	DemoTaker = "0xde00000000000000000000000000000000000002"
)

// demoInstrument is one seeded market: Start is the first mid (and index),
// Lots the size of the innermost quote in lots.
type demoInstrument struct {
	spec  perps.InstrumentSpec
	start string
	lots  int64
}

var demoInstruments = []demoInstrument{
	{perps.InstrumentSpec{Symbol: "BTC-USD", Category: "crypto", PriceDecimals: 1, QtyDecimals: 4, MaxLeverage: 50,
		MinNotional: "10", MaxPrice: "1000000"}, "97000", 500}, // 0.05 BTC
	{perps.InstrumentSpec{Symbol: "ETH-USD", Category: "crypto", PriceDecimals: 2, QtyDecimals: 3, MaxLeverage: 50,
		MinNotional: "10", MaxPrice: "100000"}, "3400", 1000}, // 1 ETH
	{perps.InstrumentSpec{Symbol: "SOL-USD", Category: "crypto", PriceDecimals: 3, QtyDecimals: 2, MaxLeverage: 20,
		MinNotional: "10", MaxPrice: "10000"}, "180", 2000}, // 20 SOL
	{perps.InstrumentSpec{Symbol: "NVDA-USD", Category: "equity", PriceDecimals: 2, QtyDecimals: 2, MaxLeverage: 10,
		MinNotional: "10", MaxPrice: "10000"}, "180", 2000}, // 20 shares
	{perps.InstrumentSpec{Symbol: "XAU-USD", Base: "GOLD", Category: "commodity", PriceDecimals: 1, QtyDecimals: 3,
		MaxLeverage: 20, MinNotional: "10", MaxPrice: "100000"}, "2650", 1000}, // 1 oz
}

// demoFunding is each demo account's deposit (pUSD): far more than the
// ladders and the taker's wandering position ever need.
const demoFunding = "100000000"

// SeedDemo creates the demo instruments, sets their index prices and funds
// the demo accounts, but only on an exchange that has no instruments yet (so
// an operator's own venue is never touched). It reports whether it seeded.
// The commands and their order are fixed: two seedings give the same state
// apart from timestamps.
func (s *Service) SeedDemo() (bool, error) {
	empty := false
	if err := s.View(func(m *perps.Machine) { empty = len(m.Instruments()) == 0 }); err != nil {
		return false, err
	}
	if !empty {
		return false, nil
	}
	cmds := []*perps.Command{}
	for i := range demoInstruments {
		d := &demoInstruments[i]
		cmds = append(cmds, &perps.Command{Kind: perps.KCreateInstrument, Instrument: &d.spec},
			&perps.Command{Kind: perps.KIndex, IID: uint32(i + 1), Price: d.start})
	}
	for _, a := range []string{DemoMaker, DemoTaker} {
		cmds = append(cmds, &perps.Command{Kind: perps.KDeposit, Account: a, Amount: demoFunding})
	}
	// An opening cross per instrument, so the venue starts with open interest
	// of a size a real book carries (demoOpenLots innermost quotes), not the
	// taker's first few clips.
	for i := range demoInstruments {
		d := &demoInstruments[i]
		q := gridOf(*d).FormatQty(fixed.Qty(d.lots * demoOpenLots))
		cmds = append(cmds,
			&perps.Command{Kind: perps.KCreateOrders, Account: DemoMaker,
				Orders: []perps.OrderReq{{IID: uint32(i + 1), Buy: false, P: ptr(d.start), Qty: q}}},
			&perps.Command{Kind: perps.KCreateOrders, Account: DemoTaker,
				Orders: []perps.OrderReq{{IID: uint32(i + 1), Buy: true, P: ptr(d.start), Qty: q, TIF: ptr("ioc")}}})
	}
	for _, c := range cmds {
		ev, err := s.Submit(c)
		if err != nil {
			return false, err
		}
		if ev.Err != "" {
			return false, fmt.Errorf("perps demo seed %s: %s", c.Kind, ev.Err)
		}
		for _, a := range ev.Acks {
			if a.Status != "ok" {
				return false, fmt.Errorf("perps demo seed %s: %s", c.Kind, a.Error)
			}
		}
	}
	return true, nil
}

// demoOpenLots is the opening open interest in innermost-quote sizes (BTC:
// 300 × 0.05 = 15 BTC).
const demoOpenLots = 300

// MarketMakerOptions configures RunMarketMakers.
type MarketMakerOptions struct {
	Interval time.Duration // between requotes; default 2 s
	Seed     uint64        // random walk and taker choices
	Levels   int           // quotes per side; default 5
	// TakeEvery: the taker trades an instrument on about one requote in
	// TakeEvery (default 3).
	TakeEvery int
}

func (o MarketMakerOptions) withDefaults() MarketMakerOptions {
	if o.Interval <= 0 {
		o.Interval = 2 * time.Second
	}
	if o.Levels <= 0 {
		o.Levels = 5
	}
	if o.TakeEvery <= 0 {
		o.TakeEvery = 3
	}
	return o
}

// ErrNotDemo: RunMarketMakers was asked to run on an exchange that SeedDemo
// did not set up.
var ErrNotDemo = errors.New("perps: not a demo exchange (no funded demo maker)")

// mmBook is the maker's view of one instrument.
type mmBook struct {
	iid   uint32
	grid  fixed.Instrument
	start int64 // ticks
	mid   int64 // ticks
	lots  int64
}

// RunMarketMakers quotes and trades the demo instruments until ctx ends (then
// it returns nil after the command in progress) or the engine fails. It
// refuses to run unless the demo maker has a balance, so it never trades on
// a non-demo exchange.
func (s *Service) RunMarketMakers(ctx context.Context, o MarketMakerOptions) error {
	o = o.withDefaults()
	books, prev, err := s.demoBooks()
	if err != nil {
		return err
	}
	rng := rand.New(rand.NewPCG(o.Seed, 0x9e3779b97f4a7c15))
	t := time.NewTicker(o.Interval)
	defer t.Stop()
	for round := 0; ; round++ {
		if prev, err = s.mmRound(books, prev, o, rng); err != nil {
			if ctx.Err() != nil {
				return nil
			}
			return err
		}
		select {
		case <-ctx.Done():
			return nil
		case <-t.C:
		}
	}
}

// demoBooks reads the demo instruments and the maker's resting orders; it
// refuses unless the demo accounts are funded.
func (s *Service) demoBooks() (books []*mmBook, prev []uint64, err error) {
	funded := false
	err = s.View(func(m *perps.Machine) {
		funded = m.Registered(DemoMaker) && m.Registered(DemoTaker)
		for _, w := range m.Instruments() {
			for i, d := range demoInstruments {
				if d.spec.Symbol != w.Symbol || uint32(i+1) != w.ID {
					continue
				}
				g := gridOf(d)
				st, _ := g.ParsePrice(d.start)
				b := &mmBook{iid: w.ID, grid: g, start: int64(st), mid: m.IndexTicks(w.ID), lots: d.lots}
				if b.mid <= 0 {
					b.mid = b.start
				}
				books = append(books, b)
			}
		}
		for _, od := range m.OpenOrdersOf(DemoMaker, 0) {
			prev = append(prev, od.OrderID)
		}
	})
	if err == nil && (!funded || len(books) == 0) {
		err = ErrNotDemo
	}
	return books, prev, err
}

// RunDemoRounds runs n market-maker rounds at once, without a timer (tests
// and benchmarks that want a traded demo venue).
func (s *Service) RunDemoRounds(n int, o MarketMakerOptions) error {
	books, prev, err := s.demoBooks()
	if err != nil {
		return err
	}
	o = o.withDefaults()
	rng := rand.New(rand.NewPCG(o.Seed, 0x9e3779b97f4a7c15))
	for range n {
		if prev, err = s.mmRound(books, prev, o, rng); err != nil {
			return err
		}
	}
	return nil
}

// mmRound moves every mid, posts the new ladders, then cancels the previous
// ones (new before old, so the books are never empty), then lets the taker
// cross on some instruments. It returns the new ladder's order ids.
func (s *Service) mmRound(books []*mmBook, prev []uint64, o MarketMakerOptions, rng *rand.Rand) ([]uint64, error) {
	var quotes []perps.OrderReq
	for _, b := range books {
		// Random walk of up to ±10 bps per round with a weak pull back to the
		// start price, so the demo never drifts off its grid.
		step := b.mid * (rng.Int64N(21) - 10) / 10000
		b.mid = max(b.mid+step+(b.start-b.mid)/500, 10)
		if _, err := s.Submit(&perps.Command{Kind: perps.KIndex, IID: b.iid,
			Price: b.price(b.mid, false)}); err != nil {
			return prev, err
		}
		// Each side is its own ladder, as on a real book: uneven gaps (1-4
		// bp), sizes that grow with distance but vary by ±50%, and a side
		// leaning with the last step (the side the mid moved towards is thinner).
		half := max(b.mid/10000, 1) // 1 bp of the mid, at least a tick
		for _, buy := range []bool{true, false} {
			lean := int64(100)
			if (step > 0) == buy && step != 0 {
				lean = 60
			}
			off := half
			for l := range int64(o.Levels) {
				if l > 0 {
					off += half * (1 + rng.Int64N(4))
				}
				lots := (b.lots*(l+1)*(50+rng.Int64N(101))/100 + rng.Int64N(b.lots)) * lean / 100
				if l == 0 { // the inside quote outlasts one demo take (< 1.1 lots)
					lots = max(lots, b.lots*11/10+1)
				}
				q := b.qty(lots)
				p := b.price(b.mid+off, true)
				if buy {
					p = b.price(b.mid-off, false)
				}
				quotes = append(quotes, perps.OrderReq{IID: b.iid, Buy: buy, P: ptr(p), Qty: q})
			}
		}
	}
	ev, err := s.Submit(&perps.Command{Kind: perps.KCreateOrders, Account: DemoMaker, Orders: quotes})
	if err != nil {
		return prev, err
	}
	var next []uint64
	for _, a := range ev.Acks {
		if a.Status == "ok" {
			next = append(next, a.OID)
		} else {
			s.log.Warn("perps demo quote refused", "err", a.Error)
		}
	}
	if len(prev) > 0 {
		// Orders already filled or cancelled answer with an error item: fine.
		if _, err := s.Submit(&perps.Command{Kind: perps.KCancel, Account: DemoMaker, OIDs: prev}); err != nil {
			return next, err
		}
	}
	var takes []perps.OrderReq
	for _, b := range books {
		if rng.IntN(o.TakeEvery) != 0 {
			continue
		}
		buy := rng.IntN(2) == 0
		px := b.mid + 5*max(b.mid/10000, 1) // crosses the first levels
		if !buy {
			px = b.mid - 5*max(b.mid/10000, 1)
		}
		takes = append(takes, perps.OrderReq{IID: b.iid, Buy: buy, P: ptr(b.price(px, buy)),
			Qty: b.qty(b.lots/10 + rng.Int64N(b.lots)), TIF: ptr("ioc")})
	}
	if len(takes) > 0 {
		if _, err := s.Submit(&perps.Command{Kind: perps.KCreateOrders, Account: DemoTaker, Orders: takes}); err != nil {
			return next, err
		}
	}
	return next, nil
}

// price formats ticks as an order price the contract accepts: at most 5
// significant figures unless integral, so it is rounded to a step of
// 10^(digits-5) ticks (never coarser than one whole unit), up or down.
func (b *mmBook) price(ticks int64, up bool) string {
	st := min(sigStep(ticks), int64(pow10(b.grid.PriceDecimals)))
	r := ticks / st * st
	if up && r < ticks {
		r += st
	}
	return b.grid.FormatPrice(fixed.Price(max(r, st)))
}

// qty formats lots rounded down to 5 significant figures.
func (b *mmBook) qty(lots int64) string {
	st := sigStep(lots)
	return b.grid.FormatQty(fixed.Qty(max(lots/st*st, 1)))
}

// sigStep is 10^(digits(v)-5), at least 1.
func sigStep(v int64) int64 {
	st := int64(1)
	for v >= 100000 {
		v /= 10
		st *= 10
	}
	return st
}

func pow10(n uint8) uint64 {
	p := uint64(1)
	for range n {
		p *= 10
	}
	return p
}

func gridOf(d demoInstrument) fixed.Instrument {
	return fixed.Instrument{PriceDecimals: d.spec.PriceDecimals, QtyDecimals: d.spec.QtyDecimals}
}

func ptr(s string) *string { return &s }
