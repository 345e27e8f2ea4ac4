package clobsvc

import (
	"context"
	"sync"
	"sync/atomic"

	"pmx/internal/amount"
	"pmx/internal/catalog/catalog"
	"pmx/internal/clob/clob"
	"pmx/internal/clob/clobengine"
)

// LiquidityBand is how far from the midpoint resting orders count towards a
// market's liquidity: 0.10 (docs/clob.md "Catalog live fields").
const LiquidityBand = 100_000 // micro

// BookLive is the catalog's live source for the venue: the data store's
// figures (volumes, last trade price, price changes, open interest, outcome
// prices) with the CLOB's book on top (bestBid, bestAsk, hence spread, and
// liquidity), for the markets the CLOB trades. Before SetService, for a
// market the CLOB does not know, or one it has never quoted nor traded (an
// empty book and no last trade), it is the data store alone.
type BookLive struct {
	Data catalog.LiveFields
	svc  atomic.Pointer[Service]

	gen pairGen
}

// SetService makes the CLOB's books part of the answers.
func (b *BookLive) SetService(s *Service) { b.svc.Store(s) }

// LiveGeneration moves whenever the data store's live generation or the
// CLOB's book version does (each distinct pair gets a new, increasing
// number), so the catalog's response cache never serves a stale book.
func (b *BookLive) LiveGeneration() uint64 {
	var ver uint64
	if s := b.svc.Load(); s != nil {
		ver = s.bookVer.Load()
	}
	return b.gen.next(b.Data, ver)
}

// pairGen numbers (data store live generation, book version) pairs: each
// distinct pair gets a new, increasing number.
type pairGen struct {
	mu   sync.Mutex // guards last and gen (a leaf lock)
	last [2]uint64
	gen  uint64
}

func (p *pairGen) next(data catalog.LiveFields, book uint64) uint64 {
	pair := [2]uint64{0, book}
	if g, ok := data.(interface{ LiveGeneration() uint64 }); ok {
		pair[0] = g.LiveGeneration()
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if pair != p.last || p.gen == 0 {
		p.last = pair
		p.gen++
	}
	return p.gen
}

// Live implements catalog.LiveFields.
func (b *BookLive) Live(ctx context.Context, conds []string) (map[string]catalog.Live, error) {
	out, err := b.Data.Live(ctx, conds)
	if err != nil {
		return nil, err
	}
	s := b.svc.Load()
	if s == nil {
		return out, nil
	}
	if out == nil {
		out = make(map[string]catalog.Live, len(conds))
	}
	// While the engine replays (425), the data store's figures stand alone.
	_ = s.View(func(m *clobengine.Machine) {
		for _, c := range conds {
			if mk := m.MarketByCond(c); mk != nil {
				out[c] = WithTop(out[c], TopOf(mk))
			}
		}
	})
	return out, nil
}

// TopOf is a market's book top (BookFigures, its tick size, and whether it
// was ever quoted or traded).
func TopOf(mk *clobengine.Market) clob.BookTop {
	bid, ask, liq := BookFigures(mk)
	return clob.BookTop{Cond: mk.ConditionID, BestBid: bid, BestAsk: ask, Liquidity: liq,
		Tick:   amount.Micro(amount.Scale / mk.GridTicks()),
		Quoted: bid != 0 || ask != amount.One || mk.Last != [2]clobengine.LastTrade{}}
}

// WithTop lays a market's book top over its data store figures: the tick
// size always; the book fields once the market was quoted or traded (before
// that the catalog's own figures stand, docs/clob.md "Catalog live fields").
func WithTop(l catalog.Live, t clob.BookTop) catalog.Live {
	tick := t.Tick
	l.TickSize = &tick
	if t.Quoted {
		bid, ask, liq := t.BestBid, t.BestAsk, t.Liquidity
		l.BestBid, l.BestAsk, l.Liquidity = &bid, &ask, &liq
	}
	return l
}

// BookFigures are a market's book figures in its first outcome's terms:
// the best bid (0 when none), the best ask (1 when none) and the liquidity,
// the notional (price × size, USDC) of the resting orders of both sides
// priced within LiquidityBand of the midpoint (of the one side when the
// other is empty). A NO order rests in the same book at the complementary
// price, so each order counts once.
func BookFigures(mk *clobengine.Market) (bid, ask, liq amount.Micro) {
	unit := amount.Micro(amount.Scale / mk.Ticks) // micro per tick
	// At most this many levels of a side lie within the band: it is all the
	// liquidity needs, and the first is the best price either way.
	bids, asks := mk.Depth(0, int(LiquidityBand/unit)+1)
	bid, ask = 0, amount.One
	if len(bids) > 0 {
		bid = amount.Micro(bids[0].Price) * unit
	}
	if len(asks) > 0 {
		ask = amount.Micro(asks[0].Price) * unit
	}
	var mid amount.Micro
	switch {
	case len(bids) > 0 && len(asks) > 0:
		mid = (bid + ask) / 2
	case len(bids) > 0:
		mid = bid
	case len(asks) > 0:
		mid = ask
	default:
		return bid, ask, 0
	}
	for _, side := range [][]clobengine.Level{bids, asks} {
		for _, l := range side {
			p := amount.Micro(l.Price) * unit
			if p < mid-LiquidityBand || p > mid+LiquidityBand {
				break // levels are best first: the rest are farther out
			}
			liq += amount.MulFloor(amount.Micro(l.Size), p)
		}
	}
	return bid, ask, liq
}
