package perps

import (
	"pmx/internal/exchange/book"
	"pmx/internal/perps/risk"
)

// Price band and at-fill margin (docs/perps-margin.md "Price band and
// at-fill margin"), applied when an order enters its book (after any
// in-flight window, so at the mark of that moment):
//
//   - the band is price_bounds (5 %) around the mark, only on instruments
//     with an index: a mark built from the book alone would move with the
//     very orders it bounds. An aggressive limit beyond it is refused at
//     placement (risk.CheckOrder: price_outside_bounds); a market order
//     enters as an IOC/FOK limited at the band's edge, so it never fills
//     beyond the band (reduce-only market closes included);
//   - a taker that would raise its position is simulated against the
//     opposite levels it can reach (up to atFillLevels): if the account
//     would end below initial margin (risk.CheckFill), the whole order ends
//     with status insufficient_margin_at_fill without touching the book.

// StInsufficientAtFill is the order status of a refused taker fill.
const StInsufficientAtFill = "insufficient_margin_at_fill"

// bandPPM is price_bounds ("0.05", perps.md §9.1).
const bandPPM = 50_000

// atFillLevels bounds the opposite levels simulated per order.
const atFillLevels = 64

// bandEdge is the worst price a market order of side buy may fill at (0: no
// band).
func (m *Machine) bandEdge(in *Instrument, buy bool) int64 {
	mt := m.riskMarket(in)
	if mt.BandPPM == 0 || mt.Mark <= 0 {
		return 0
	}
	lo, hi := mt.Band()
	if buy {
		return min(hi, in.Ticks-1)
	}
	return lo
}

// atFill is the at-fill check of o entering its book: "" or the status that
// ends it.
func (m *Machine) atFill(in *Instrument, o *Order, limit int64) string {
	if o.Reduce || o.PostOnly {
		return ""
	}
	side := book.Sell // the levels a buy takes
	if !o.Buy {
		side = book.Buy
	}
	m.depth = in.book.Depth(side, atFillLevels, m.depth[:0])
	var lots, cost int64 // what the taker would take, and its value in tick·lots
	need := o.Lots - o.Filled
	for _, lv := range m.depth {
		if limit > 0 && ((o.Buy && lv.Price > limit) || (!o.Buy && lv.Price < limit)) {
			break
		}
		q := min(lv.Qty, need-lots)
		v, ok := notional(lv.Price, q)
		if !ok {
			return ""
		}
		if cost, ok = add(cost, v); !ok {
			return ""
		}
		if lots += q; lots == need {
			break
		}
	}
	if lots == 0 {
		return ""
	}
	avg := cost / lots // the average price, rounded against the taker
	if o.Buy && cost%lots != 0 {
		avg++
	}
	a := m.accts[o.Account]
	ra, mk := m.riskViewSkip(a, in.ID, o.OID)
	if !m.standIns(a, mk, in, o.Buy, avg) {
		return ""
	}
	if err := risk.CheckFill(&ra, mk, in.ID, o.Buy, avg, lots); err == risk.ErrInsufficientAtFill {
		return StInsufficientAtFill
	}
	return ""
}
