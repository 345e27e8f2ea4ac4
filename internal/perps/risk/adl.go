package risk

import (
	"iter"
	"math"
	"slices"
)

// Auto-deleveraging (perps.md §10): when the insurance fund cannot absorb a
// scope, its position closes at the bankruptcy price against opposite
// positions ranked by
//
//	AdlIndex = ProfitRatio · Notional / Equity
//
// with ProfitRatio = mark/entry for longs and entry/mark for shorts, and
// Equity the counterparty's scope equity (cross equity or the isolated
// position's). Counterparties only shrink, never flip; flagged scopes and
// the fund are never chosen; no fees.

// Ranked is an ADL candidate.
type Ranked struct {
	Acct  *Account
	IID   uint32
	Size  int64 // the candidate's position (opposite to the closing one)
	Score int64 // AdlIndex in PPM; MaxInt64 for equity ≤ 0
}

// ADLScore is a position's AdlIndex in PPM.
func ADLScore(a *Account, p *Position, mk Markets, crossEquity int64) (int64, error) {
	m := mk[p.IID]
	if m == nil || m.Mark <= 0 {
		return 0, ErrMarkUnavailable
	}
	var c calc
	s := a.Setting(&m.Instrument)
	r := positionRisk(&c, p, s, m)
	eq := r.Equity
	if s.Cross {
		eq = crossEquity
	}
	if err := c.err(); err != nil {
		return 0, err
	}
	if eq <= 0 {
		return math.MaxInt64, nil
	}
	if p.Cost == 0 {
		return 0, nil
	}
	value := c.mul(c.abs(p.Size), m.Mark) // tick·lots at the mark
	var x int64
	if p.Size > 0 {
		x = c.mulDiv(r.Notional, value, p.Cost, floor) // notional · mark/entry
	} else {
		x = c.mulDiv(r.Notional, p.Cost, value, floor) // notional · entry/mark
	}
	score := c.mulDiv(x, PPM, eq, floor)
	if c.err() != nil {
		return math.MaxInt64, nil // only ranks: an enormous score ranks first
	}
	return score, nil
}

// RankADL lists the positions in iid on the side opposite to a closing
// position of sign closingLong (true: longs are being closed, so shorts are
// the candidates), best first: highest score, then lowest account id.
// Flagged scopes and the account skip (the fund) are left out.
func RankADL(accts iter.Seq[*Account], mk Markets, iid uint32, closingLong bool, skip *Account, dst []Ranked) ([]Ranked, error) {
	for a := range accts {
		if a == skip {
			continue
		}
		sc, ok, err := ADLCandidate(a, mk, iid, closingLong)
		if err != nil {
			return dst, err
		}
		if ok {
			dst = append(dst, Ranked{Acct: a, IID: iid, Size: a.Position(iid).Size, Score: sc})
		}
	}
	slices.SortStableFunc(dst, func(x, y Ranked) int {
		switch {
		case x.Score != y.Score:
			if x.Score > y.Score {
				return -1
			}
			return 1
		case x.Acct.ID < y.Acct.ID:
			return -1
		case x.Acct.ID > y.Acct.ID:
			return 1
		}
		return 0
	})
	return dst, nil
}

// ADLCandidate is RankADL's test and score for one account: ok is false
// when a holds no position in iid on the candidates' side or its scope is
// flagged. It allocates nothing (the adl_index cache scores one account at
// a time on every fill).
func ADLCandidate(a *Account, mk Markets, iid uint32, closingLong bool) (score int64, ok bool, err error) {
	p := a.Position(iid)
	if p == nil || (p.Size > 0) == closingLong {
		return 0, false, nil
	}
	m := mk[iid]
	if m == nil {
		return 0, false, ErrInstrumentNotFound
	}
	cross := a.Setting(&m.Instrument).Cross
	if p.Liquidating || (cross && a.Liquidating) {
		return 0, false, nil
	}
	var eq int64
	if cross {
		if eq, err = CrossEquity(a, mk); err != nil {
			return 0, false, err
		}
	}
	if score, err = ADLScore(a, p, mk, eq); err != nil {
		return 0, false, err
	}
	return score, true, nil
}

// ADLBucket is a position's adl_index (0–3) from its 0-based rank among n
// candidates of its side: 3 for the first quarter (deleveraged first), 0 for
// the last.
func ADLBucket(rank, n int) int {
	if n <= 0 || rank < 0 || rank >= n {
		return 0
	}
	return 3 - 4*rank/n
}

// BankruptcyPrice is the price (ticks) at which closing p leaves the
// scope's equity at zero: x = mark − E/size, E the scope equity at the mark.
// It is rounded against the bankrupt side's counterparty (a long sells at
// the tick above, a short buys at the tick below), so the scope ends at or
// just above zero, and is at least one tick.
func BankruptcyPrice(p *Position, m *Market, equity int64) (int64, error) {
	var c calc
	e := m.fromMicro(&c, equity, floor)
	r := ceil
	if p.Size < 0 {
		r = floor
	}
	x := c.add(m.Mark, c.mulDiv(c.neg(e), 1, p.Size, r))
	return max(x, 1), c.err()
}

// ADLFill is one counterparty leg of a deleveraging.
type ADLFill struct {
	Acct  *Account
	IID   uint32
	Buy   bool // the counterparty's side: it reduces, never flips
	Lots  int64
	Ticks int64
}

// ADLPlan closes lots of the bankrupt position (long when closingLong)
// against the ranked candidates in order, each at most its own size, all at
// ticks. It returns the legs and the lots left unmatched (no candidates).
func ADLPlan(ranked []Ranked, lots, ticks int64, closingLong bool, dst []ADLFill) ([]ADLFill, int64) {
	for _, r := range ranked {
		if lots == 0 {
			break
		}
		q := min(lots, abs(r.Size))
		dst = append(dst, ADLFill{Acct: r.Acct, IID: r.IID, Buy: closingLong, Lots: q, Ticks: ticks})
		lots -= q
	}
	return dst, lots
}
