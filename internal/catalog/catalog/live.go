package catalog

import (
	"context"
	"math/big"
	"strings"

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
	// Price changes of the first outcome over the last hour and day.
	OneHourPriceChange *amount.Micro
	OneDayPriceChange  *amount.Micro
	OutcomePrices      []amount.Micro // same order as outcomes; nil when unknown
	// TickSize is the order book's tick size (orderPriceMinTickSize),
	// which the venue's tick size changes move.
	TickSize *amount.Micro
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
	if l.OneHourPriceChange != nil {
		m.OneHourPriceChange = microNum(*l.OneHourPriceChange)
	}
	if l.OneDayPriceChange != nil {
		m.OneDayPriceChange = microNum(*l.OneDayPriceChange)
	}
	if l.BestBid != nil && l.BestAsk != nil {
		m.Spread = microNum(*l.BestAsk - *l.BestBid)
	}
	if l.TickSize != nil {
		m.OrderPriceMinTickSize = microNum(*l.TickSize)
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

// sumEvent recomputes an event's live totals (volume, volume24hr,
// liquidity, openInterest) from its markets, field by field, when at least
// one market has a live value for the field: markets without one count with
// their stored value. Sums are exact (big.Rat over the decimal text). A
// field no market has live keeps the event's stored total.
func sumEvent(e *Event, live map[string]Live) {
	type field struct {
		live   func(Live) *amount.Micro
		stored func(*Market) string
		set    func(Num)
	}
	fields := []field{
		{func(l Live) *amount.Micro { return l.Volume }, func(m *Market) string { return text(m.Volume) },
			func(n Num) { e.Volume = &n }},
		{func(l Live) *amount.Micro { return l.Volume24hr }, func(m *Market) string { return text(m.Volume24hr) },
			func(n Num) { e.Volume24hr = &n }},
		{func(l Live) *amount.Micro { return l.Liquidity }, func(m *Market) string { return text(m.Liquidity) },
			func(n Num) { e.Liquidity, e.LiquidityClob = &n, &n }},
		{func(l Live) *amount.Micro { return l.OpenInterest }, func(m *Market) string { return text(m.OpenInterest) },
			func(n Num) { e.OpenInterest = &n }},
	}
	for _, f := range fields {
		anyLive := false
		sum, decimals := new(big.Rat), 0
		for i := range e.Markets {
			m := &e.Markets[i]
			text := f.stored(m)
			if m.ConditionID != nil {
				if l, ok := live[*m.ConditionID]; ok && f.live(l) != nil {
					anyLive = true
					text = f.live(l).String()
				}
			}
			if text == "" {
				continue
			}
			r, ok := new(big.Rat).SetString(text)
			if !ok {
				continue
			}
			sum.Add(sum, r)
			if i := strings.IndexByte(text, '.'); i >= 0 && len(text)-i-1 > decimals {
				decimals = len(text) - i - 1
			}
		}
		if anyLive {
			f.set(Num(trimDecimal(sum.FloatString(decimals))))
		}
	}
}

// trimDecimal drops trailing fractional zeros ("1.500" -> "1.5", "2.0" -> "2").
func trimDecimal(s string) string {
	if !strings.Contains(s, ".") {
		return s
	}
	s = strings.TrimRight(s, "0")
	return strings.TrimSuffix(s, ".")
}
