package risk

import "pmx/internal/exchange/book"

// Funding (perps.md §10; the interest leg and clamp are MISSING there and are
// Hyperliquid's): every sample takes the premium of the book's impact prices
// over the index; a settlement averages the window's samples P and charges
//
//	rate = clamp((P + clamp(I − P, −C, +C)) / 8, −cap, +cap)
//
// per position: charge = size · mark · rate (positive: the account pays).
type FundingParams struct {
	InterestPPB int64 // I, per 8 hours: 100_000 (0.01 %)
	ClampPPB    int64 // C: 500_000 (0.05 %)
	Periods     int64 // the 8-hour rate is divided by 8 for one (hourly) settlement
	CapPPB      int64 // cap per settlement: 40_000_000 (4 %)
	ImpactMicro int64 // impact notional walked on each side: 1,000 USD
}

// DefaultFunding is the production parameter set.
func DefaultFunding() FundingParams {
	return FundingParams{InterestPPB: 100_000, ClampPPB: 500_000, Periods: 8, CapPPB: 40_000_000,
		ImpactMicro: 1_000 * PPM}
}

// PremiumWindow accumulates one funding interval's premium samples.
type PremiumWindow struct {
	Sum int64 // PPB
	N   int64
}

// Add records one sample.
func (w *PremiumWindow) Add(premiumPPB int64) error {
	var c calc
	s := c.add(w.Sum, premiumPPB)
	if err := c.err(); err != nil {
		return err
	}
	w.Sum, w.N = s, w.N+1
	return nil
}

// Average is the mean sample (PPB, rounded toward zero); 0 without samples.
func (w PremiumWindow) Average() int64 {
	if w.N == 0 {
		return 0
	}
	return w.Sum / w.N
}

// ImpactPrice walks one side of the book (best first) for impactMicro of
// notional and returns the average fill price as num/den (tick·lots over
// lots). ok is false when the side cannot absorb the whole notional.
func ImpactPrice(g Grid, levels []book.Level, impactMicro int64) (num, den int64, ok bool, err error) {
	var c calc
	rest := g.fromMicro(&c, impactMicro, ceil) // tick·lots still to fill
	for _, lv := range levels {
		if rest <= 0 {
			break
		}
		if lv.Price <= 0 || lv.Qty <= 0 {
			continue
		}
		take := min(lv.Qty, c.div(rest, lv.Price, ceil))
		v := c.mul(take, lv.Price)
		num, den = c.add(num, v), c.add(den, take)
		rest = c.sub(rest, v)
	}
	if err := c.err(); err != nil {
		return 0, 0, false, err
	}
	return num, den, rest <= 0 && den > 0, nil
}

// Premium is one sample (PPB): (impactBid − I)⁺/I − (I − impactAsk)⁺/I, each
// term rounded toward zero. A side too thin for the impact notional
// contributes nothing (as if its impact price were the index).
func Premium(g Grid, bids, asks []book.Level, index, impactMicro int64) (int64, error) {
	if index <= 0 {
		return 0, ErrMarkUnavailable
	}
	var c calc
	var p int64
	if num, den, ok, err := ImpactPrice(g, bids, impactMicro); err != nil {
		return 0, err
	} else if ok {
		if d := c.sub(num, c.mul(index, den)); d > 0 { // impact bid above the index
			p = c.add(p, c.mulDiv(d, PPB, c.mul(index, den), trunc))
		}
	}
	if num, den, ok, err := ImpactPrice(g, asks, impactMicro); err != nil {
		return 0, err
	} else if ok {
		if d := c.sub(c.mul(index, den), num); d > 0 { // impact ask below the index
			p = c.sub(p, c.mulDiv(d, PPB, c.mul(index, den), trunc))
		}
	}
	return p, c.err()
}

// Rate is one settlement's funding rate (PPB) from the window's average
// premium.
func (f FundingParams) Rate(avgPremiumPPB int64) (int64, error) {
	var c calc
	leg := min(max(c.sub(f.InterestPPB, avgPremiumPPB), -f.ClampPPB), f.ClampPPB)
	r := c.div(c.add(avgPremiumPPB, leg), max(f.Periods, 1), trunc)
	return min(max(r, -f.CapPPB), f.CapPPB), c.err()
}

// Charge is one position's funding payment in micro-units: size·mark·rate,
// positive when the account pays (a long at a positive rate). It rounds
// toward +∞: a payer pays the part of a micro-unit, a receiver does not get
// it, so the charges of an instrument sum to a small non-negative dust (with
// balanced open interest) that goes to the insurance fund: nothing is minted.
func Charge(g Grid, size, mark, ratePPB int64) (int64, error) {
	var c calc
	tl := c.mul(size, mark) // exact; the one rounding is the last division
	var v int64
	if e := MicroDecimals - int(g.PriceDecimals) - int(g.QtyDecimals); e >= 0 {
		v = c.mulDiv(c.mul(tl, pow10(e)), ratePPB, PPB, ceil)
	} else {
		v = c.mulDiv(tl, ratePPB, c.mul(PPB, pow10(-e)), ceil)
	}
	return v, c.err()
}
