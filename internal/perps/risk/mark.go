package risk

import "math"

// MarkInputs are the candidates of a mark price, all in ticks (0: missing).
type MarkInputs struct {
	Index   int64 // operator- or feed-pushed index price
	BestBid int64
	BestAsk int64
	Last    int64 // last trade price
	Premium int64 // average premium of the current funding window, PPB
	Samples int64 // number of premium samples behind Premium (0: none)
}

// MarkPrice builds the mark (perps.md §10, formula MISSING there; this is
// Hyperliquid's shape without its external CEX candidate):
//
//	with an index I:  median(I, median(bid, ask, last), I·(1 + premium))
//	                  a missing candidate counts as I
//	without an index: median(bid, ask, last), else the last trade, else 0
//
// median(bid, ask, last) needs both sides of the book; without a last trade it
// is the mid (rounded down). The premium candidate needs at least one sample.
// 0 means no mark (order status mark_price_unavailable).
func MarkPrice(in MarkInputs) int64 {
	book := int64(0)
	if in.BestBid > 0 && in.BestAsk > 0 {
		if in.Last > 0 {
			book = median3(in.BestBid, in.BestAsk, in.Last)
		} else {
			book = in.BestBid + (in.BestAsk-in.BestBid)/2
		}
	}
	if in.Index <= 0 {
		if book > 0 {
			return book
		}
		return max(in.Last, 0)
	}
	basis := in.Index
	if in.Samples > 0 {
		var c calc
		b := c.add(in.Index, c.mulDiv(in.Index, in.Premium, PPB, floor))
		if c.err() == nil && b > 0 {
			basis = b
		}
	}
	if book == 0 {
		book = in.Index
	}
	return median3(in.Index, book, basis)
}

func median3(a, b, c int64) int64 {
	if a > b {
		a, b = b, a
	}
	if b > c {
		b = c
	}
	return max(a, b)
}

// Band is the price band around the mark (price_bounds, §9.1): [lo, hi] in
// ticks with lo = mark − ⌊mark·b⌋ and hi = mark + ⌊mark·b⌋. Without a band
// (BandPPM 0) or a mark, every price is inside.
func (m *Market) Band() (lo, hi int64) {
	if m.BandPPM <= 0 || m.Mark <= 0 {
		return 1, math.MaxInt64
	}
	var c calc
	w := c.mulDiv(m.Mark, m.BandPPM, PPM, floor)
	lo, hi = m.Mark-w, c.add(m.Mark, w)
	if c.err() != nil {
		hi = math.MaxInt64
	}
	return max(lo, 1), hi
}

// CheckPrice refuses (price_outside_bounds) a limit price beyond the band on
// the aggressive side: a buy above hi or a sell below lo. A passive price
// beyond the band may rest; it cannot match until the band reaches it.
func (m *Market) CheckPrice(buy bool, ticks int64) error {
	lo, hi := m.Band()
	if (buy && ticks > hi) || (!buy && ticks < lo) {
		return ErrPriceOutsideBounds
	}
	return nil
}

// CanMatch reports whether a fill at ticks is inside the band. The matcher
// stops a taker (liquidation and reduce-only market closes included) at the
// first level outside it.
func (m *Market) CanMatch(ticks int64) bool {
	lo, hi := m.Band()
	return ticks >= lo && ticks <= hi
}
