package clobsvc

import (
	"context"
	"fmt"
	"time"

	"pmx/internal/clob/clobengine"
	"pmx/internal/crypto/keccak"
)

// Demo market makers: funded operator accounts that quote a ladder on
// every accepting CLOB market so a new user sees live books. They submit
// engine commands directly (they are the operator's own accounts, so there
// is no signature to check); everything they do is journaled like any
// other command.

// MarketMakerOptions configure RunMarketMakers.
type MarketMakerOptions struct {
	Interval time.Duration // requote period; default 30 s
	Markets  int           // most markets quoted; default 200
	Levels   int           // price levels per side; default 3
}

// DemoMaker is the demo market maker's address.
const DemoMaker = "0x00000000000000000000000000000000000d3e30"

// awaitReady waits for the replay to end: false with nil when ctx ended
// first, false with the error when the replay failed.
func (s *Service) awaitReady(ctx context.Context) (bool, error) {
	select {
	case <-s.ready:
	case <-ctx.Done():
		return false, nil
	}
	if err := s.Err(); err != nil {
		return false, err
	}
	return true, nil
}

// RunMarketMakers quotes until ctx ends.
func (s *Service) RunMarketMakers(ctx context.Context, o MarketMakerOptions) error {
	if o.Interval <= 0 {
		o.Interval = 30 * time.Second
	}
	if o.Markets <= 0 {
		o.Markets = 200
	}
	if o.Levels <= 0 {
		o.Levels = 3
	}
	if ok, err := s.awaitReady(ctx); !ok {
		return err
	}
	t := time.NewTicker(o.Interval)
	defer t.Stop()
	for round := uint64(0); ; round++ {
		if err := s.quoteRound(round, o); err != nil {
			return err
		}
		select {
		case <-ctx.Done():
			return nil
		case <-t.C:
		}
	}
}

type quoteTarget struct {
	cond  string
	yes   string
	ticks int64
	mid   int64
	min   int64
}

func (s *Service) quoteRound(round uint64, o MarketMakerOptions) error {
	var targets []quoteTarget
	var coll int64
	if err := s.View(func(m *clobengine.Machine) {
		coll = m.Balance(DemoMaker, "")
		for _, mk := range m.Markets() {
			if len(targets) >= o.Markets {
				break
			}
			if !mk.Accepting || mk.Closed || !mk.Active {
				continue
			}
			h := keccak.String(mk.ConditionID)
			g := mk.GridTicks()              // quotes must be on the public grid
			mid := g/5 + int64(h[0])%(g*3/5) // 0.2 .. 0.8, fixed per market
			if lt := mk.Last[0]; lt.Price > 0 {
				mid = lt.Price * g / mk.Ticks
			}
			targets = append(targets, quoteTarget{mk.ConditionID, mk.Tokens[0].ID, g, mid, int64(mk.MinSize)})
		}
	}); err != nil {
		return err
	}
	if len(targets) == 0 {
		return nil
	}
	const size = 100_000_000 // 100 shares a level
	need := int64(len(targets)*o.Levels) * size * 2
	if coll < need {
		if _, err := s.Submit(&clobengine.Command{Op: clobengine.OpDeposit, Addr: DemoMaker, Amount: need * 2}); err != nil {
			return err
		}
	}
	if _, err := s.Submit(&clobengine.Command{Op: clobengine.OpCancelAll, Addr: DemoMaker}); err != nil {
		return err
	}
	for i, t := range targets {
		if _, err := s.Submit(&clobengine.Command{Op: clobengine.OpSplit, Addr: DemoMaker, Cond: t.cond, Amount: int64(o.Levels) * size}); err != nil {
			return err
		}
		step := max(t.ticks/100, 1)
		var ins []clobengine.OrderInput
		for l := 1; l <= o.Levels; l++ {
			for side := uint8(0); side < 2; side++ {
				p := t.mid - int64(l)*step
				if side == 1 {
					p = t.mid + int64(l)*step
				}
				if p <= 0 || p >= t.ticks {
					continue
				}
				h := keccak.String(fmt.Sprintf("pmx demo maker %d %d %d %d", round, i, l, side))
				in := clobengine.OrderInput{Hash: fmt.Sprintf("0x%x", h[:]), Token: t.yes, Side: side, Type: "GTC",
					Maker: DemoMaker, Signer: DemoMaker, APIKey: "demo", Version: 2, Stamp: s.now()}
				coll := size * p / t.ticks
				if side == 0 {
					in.MakerAmt, in.TakerAmt = coll, size
				} else {
					in.MakerAmt, in.TakerAmt = size, coll
				}
				ins = append(ins, in)
			}
		}
		if _, err := s.Submit(&clobengine.Command{Op: clobengine.OpPlace, Orders: ins}); err != nil {
			return err
		}
	}
	return nil
}
