package catalog

import (
	"context"

	"pmx/internal/amount"
)

// Live holds a market's figures derived from the data store at read time.
// A nil field means the store does not know it; the stored value is kept.
// Volumes, liquidity and open interest are USDC; prices are USDC per share.
type Live struct {
	Volume         *amount.Micro
	Volume24hr     *amount.Micro
	Liquidity      *amount.Micro
	OpenInterest   *amount.Micro
	LastTradePrice *amount.Micro
	BestBid        *amount.Micro
	BestAsk        *amount.Micro
	OutcomePrices  []amount.Micro // same order as outcomes; nil when unknown
}

// LiveFields is the data store's view of markets, keyed by condition id
// (0x + 64 lower-case hex). Missing keys mean "nothing known".
type LiveFields interface {
	Live(ctx context.Context, conditionIDs []string) (map[string]Live, error)
}

// NoLive knows nothing: stored values are served as they are.
type NoLive struct{}

// Live returns an empty map.
func (NoLive) Live(context.Context, []string) (map[string]Live, error) { return nil, nil }

// StaticLive is a fixed map, for tests and tools.
type StaticLive map[string]Live

// Live returns the entries asked for.
func (s StaticLive) Live(_ context.Context, ids []string) (map[string]Live, error) {
	out := make(map[string]Live, len(ids))
	for _, id := range ids {
		if l, ok := s[id]; ok {
			out[id] = l
		}
	}
	return out, nil
}

func microNum(m amount.Micro) *Num { n := Num(m.String()); return &n }
func microStr(m amount.Micro) *Str { s := Str(m.String()); return &s }

// applyLive overwrites a market's live fields with what the store knows.
func applyLive(m *Market, l Live) {
	if l.Volume != nil {
		m.Volume, m.VolumeNum, m.VolumeClob = microStr(*l.Volume), microNum(*l.Volume), microNum(*l.Volume)
	}
	if l.Volume24hr != nil {
		m.Volume24hr, m.Volume24hrClob = microNum(*l.Volume24hr), microNum(*l.Volume24hr)
	}
	if l.Liquidity != nil {
		m.Liquidity, m.LiquidityNum, m.LiquidityClob = microStr(*l.Liquidity), microNum(*l.Liquidity), microNum(*l.Liquidity)
	}
	if l.OpenInterest != nil {
		m.OpenInterest = microNum(*l.OpenInterest)
	}
	if l.LastTradePrice != nil {
		m.LastTradePrice = microNum(*l.LastTradePrice)
	}
	if l.BestBid != nil {
		m.BestBid = microNum(*l.BestBid)
	}
	if l.BestAsk != nil {
		m.BestAsk = microNum(*l.BestAsk)
	}
	if l.BestBid != nil && l.BestAsk != nil {
		m.Spread = microNum(*l.BestAsk - *l.BestBid)
	}
	if l.OutcomePrices != nil {
		s := make([]string, len(l.OutcomePrices))
		for i, p := range l.OutcomePrices {
			s[i] = p.String()
		}
		enc := EncodeStringList(s)
		m.OutcomePrices = &enc
	}
}

// sumEvent recomputes an event's live totals from its markets when any market
// had live data; otherwise the stored totals stand.
func sumEvent(e *Event, live map[string]Live) {
	var vol, vol24, liq, oi amount.Micro
	var any bool
	for i := range e.Markets {
		m := &e.Markets[i]
		if m.ConditionID == nil {
			continue
		}
		l, ok := live[*m.ConditionID]
		if !ok {
			continue
		}
		any = true
		vol += orZero(l.Volume)
		vol24 += orZero(l.Volume24hr)
		liq += orZero(l.Liquidity)
		oi += orZero(l.OpenInterest)
	}
	if !any {
		return
	}
	e.Volume, e.Volume24hr, e.Liquidity, e.LiquidityClob, e.OpenInterest =
		microNum(vol), microNum(vol24), microNum(liq), microNum(liq), microNum(oi)
}

func orZero(m *amount.Micro) amount.Micro {
	if m == nil {
		return 0
	}
	return *m
}
