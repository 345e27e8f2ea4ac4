package perps

import (
	"slices"

	"pmx/internal/perps/risk"
)

// The adl_index cache (docs/perps-margin.md "ADL index cache"; not state,
// rebuilt on restore). A position's adl_index is its quarter in its side's
// deleveraging queue, which depends on every holder's score (their
// position, their scope's equity, the marks). Reads (portfolio, every 5 s
// per subscriber) take it from here in O(1); the write path keeps it
// exact: at the end of every Apply the rankings of the instruments whose
// inputs may have moved are recomputed over their holders only:
//
//   - an instrument whose mark changed, and every instrument held by its
//     holders (their cross equity moved);
//   - every instrument held by an account this Apply touched: a fill
//     (posFill), a balance change (the history's sample queue: fills,
//     funding, fee shares, deposits, transfers, withdrawals), the acting
//     account (margin, leverage), a liquidation flag set or cleared.
//
// A re-rank is incremental when the mark did not move: only the touched
// holders are re-scored and moved in their side's sorted queue (the others'
// scores depend on their own position, equity and the mark alone). A mark
// move re-scores every holder. A read finds the position's queue entry and
// compares it with the entries at the three quarter cuts: O(1).
type adlCache struct {
	rank    map[uint32]*adlRank        // instrument → its queues
	hold    map[uint32]map[uint64]bool // instrument → accounts with a position there
	touched map[uint64]bool            // accounts whose inputs moved in this Apply
	changed map[uint32]map[uint64]bool // instrument → its holders (or former) to re-score (emptied, kept)
	partial int                        // incremental re-ranks so far (tests)

	// Scratch, reused by every refresh so that a fill's re-rank allocates
	// nothing: the instruments to rank in full, the holders' ids, one
	// account's view and the markets of the views.
	full map[uint32]bool
	ids  []uint64
	ra   risk.Account
	rs   riskScratch
}

// adlRank is one instrument's two queues, best first (score descending,
// then account id): side 0 the shorts (deleveraged when a long closes),
// side 1 the longs.
type adlRank struct {
	side   [2][]adlEntry
	where  map[uint64]adlEntry // account id → its entry
	mark   int64               // the mark the scores were computed at
	failed bool                // the last full ranking could not value a holder
}

type adlEntry struct {
	score int64
	id    uint64
	side  int8
}

func entryCmp(x, y adlEntry) int {
	switch {
	case x.score > y.score:
		return -1
	case x.score < y.score:
		return 1
	}
	return cmpU64(x.id, y.id)
}

func (x *adlCache) reset() {
	*x = adlCache{rank: map[uint32]*adlRank{}, hold: map[uint32]map[uint64]bool{},
		touched: map[uint64]bool{}, changed: map[uint32]map[uint64]bool{}, full: map[uint32]bool{}}
}

func (x *adlCache) change(iid uint32, aid uint64) {
	c := x.changed[iid]
	if c == nil {
		c = map[uint64]bool{}
		x.changed[iid] = c
	}
	c[aid] = true
}

// adlTouch notes that a's ranking inputs moved (a flag, an allocation).
func (m *Machine) adlTouch(a *Account) { m.adl.touched[a.ID] = true }

// posMoved is posFill's hook: a's position in iid moved (after the fill).
func (m *Machine) posMoved(a *Account, iid uint32) {
	m.legPosMoved(a, iid) // tpslindex.go
	x := &m.adl
	x.touched[a.ID] = true
	x.change(iid, a.ID)
	h := x.hold[iid]
	if p := a.Positions[iid]; p != nil && p.Size != 0 {
		if h == nil {
			h = map[uint64]bool{}
			x.hold[iid] = h
		}
		h[a.ID] = true
	} else if h != nil {
		delete(h, a.ID)
	}
}

// refreshADL ends an Apply (before recordHistory empties its queue).
func (m *Machine) refreshADL(c *Command, ev *Event) {
	x := &m.adl
	for _, a := range m.histQ {
		x.touched[a.ID] = true
	}
	touch := func(addr string) {
		if a := m.accts[addr]; a != nil {
			x.touched[a.ID] = true
		}
	}
	if c != nil {
		touch(c.Account)
	}
	for i := range ev.Fills {
		touch(ev.Fills[i].Account)
	}
	for i := range ev.Balances {
		touch(ev.Balances[i].Account)
	}
	for i := range ev.Deposits {
		touch(ev.Deposits[i].Account)
	}
	for i := range ev.Withdrawals {
		touch(ev.Withdrawals[i].Account)
	}
	full := x.full
	for _, iid := range m.instIDs {
		r := x.rank[iid]
		if r == nil || m.mark(m.inst[iid]) != r.mark || r.failed {
			if r == nil && len(x.hold[iid]) == 0 && len(x.changed[iid]) == 0 {
				continue // nothing to rank yet
			}
			full[iid] = true
			for aid := range x.hold[iid] { // their other instruments: cross equity moved
				if a := m.byID[aid]; len(a.Positions) > 1 {
					x.touched[aid] = true
				}
			}
		}
	}
	for aid := range x.touched {
		if a := m.byID[aid]; a != nil {
			for iid, p := range a.Positions {
				if p.Size != 0 {
					x.change(iid, aid)
				}
			}
		}
	}
	clear(x.touched)
	mk := x.markets()
	for iid := range full {
		m.rankInto(iid, mk)
		clear(x.changed[iid])
	}
	clear(full)
	for iid, ids := range x.changed {
		if len(ids) > 0 {
			m.rerank(iid, ids, mk)
			clear(ids)
		}
	}
}

// markets empties the views' markets (the marks may have moved since the
// last refresh): they are filled as the views need them (positionsInto).
func (x *adlCache) markets() risk.Markets {
	s := &x.rs
	if s.mk == nil {
		s.mk = risk.Markets{}
	}
	for _, mt := range s.ms[:s.n] {
		delete(s.mk, mt.ID)
	}
	s.n = 0
	return s.mk
}

// rerank moves the given accounts in iid's queues (the mark unchanged):
// each is taken out of its queue and put back at its new score, in place.
func (m *Machine) rerank(iid uint32, ids map[uint64]bool, mk risk.Markets) {
	r := m.adl.rank[iid]
	if r == nil {
		m.rankInto(iid, mk)
		return
	}
	m.adl.partial++
	for aid := range ids {
		if e, ok := r.where[aid]; ok {
			q := r.side[e.side]
			if i, found := slices.BinarySearchFunc(q, e, entryCmp); found {
				r.side[e.side] = slices.Delete(q, i, i+1)
			}
			delete(r.where, aid)
		}
		a := m.byID[aid]
		p := a.Positions[iid]
		if p == nil || p.Size == 0 || a.Liquidating || r.mark <= 0 {
			continue
		}
		side := int8(0)
		if p.Size > 0 {
			side = 1
		}
		score, ok, err := m.adlScore(aid, iid, side == 0, mk)
		if err != nil {
			m.rankInto(iid, mk)
			return
		}
		if ok {
			e := adlEntry{score: score, id: aid, side: side}
			i, _ := slices.BinarySearchFunc(r.side[side], e, entryCmp)
			r.side[side] = slices.Insert(r.side[side], i, e)
			r.where[aid] = e
		}
	}
}

// bucket is the adl_index of account aid in r: 3 − ⌊4·rank/n⌋
// (risk.ADLBucket), the rank compared with the quarter cuts ⌈k·n/4⌉.
func (r *adlRank) bucket(aid uint64) int {
	e, ok := r.where[aid]
	if !ok {
		return 0
	}
	q := r.side[e.side]
	b := 3
	for k := 1; k <= 3; k++ {
		if c := (k*len(q) + 3) / 4; c < len(q) && entryCmp(e, q[c]) >= 0 {
			b--
		}
	}
	return b
}

// rankInto re-scores every holder of iid (both sides), reusing iid's
// queues. mk is the refresh's markets.
func (m *Machine) rankInto(iid uint32, mk risk.Markets) {
	x := &m.adl
	if m.inst[iid] == nil {
		return
	}
	r := x.rank[iid]
	if r == nil {
		r = &adlRank{where: map[uint64]adlEntry{}}
		x.rank[iid] = r
	} else {
		clear(r.where)
	}
	r.mark, r.failed = m.mark(m.inst[iid]), false
	r.side[0], r.side[1] = r.side[0][:0], r.side[1][:0]
	if r.mark <= 0 {
		return
	}
	ids := x.ids[:0]
	for aid := range x.hold[iid] {
		ids = append(ids, aid)
	}
	slices.Sort(ids) // the ranking's order is total; sorted input keeps the work deterministic too
	x.ids = ids
	for side := range int8(2) {
		q := r.side[side]
		for _, aid := range ids {
			score, ok, err := m.adlScore(aid, iid, side == 0, mk)
			if err != nil {
				r.failed = true
				q = q[:0]
				break
			}
			if ok {
				q = append(q, adlEntry{score: score, id: aid, side: side})
			}
		}
		slices.SortFunc(q, entryCmp) // risk.RankADL's order: score descending, then account id
		for _, e := range q {
			r.where[e.id] = e
		}
		r.side[side] = q
	}
}

// adlScore is account aid's adl score in iid against a closing position of
// sign closingLong (risk.ADLCandidate over its positions' view): ok is
// false when it is not a candidate (no position on that side, flagged).
func (m *Machine) adlScore(aid uint64, iid uint32, closingLong bool, mk risk.Markets) (int64, bool, error) {
	c := m.byID[aid]
	if c == nil || c.Liquidating {
		return 0, false, nil
	}
	if cp := c.Positions[iid]; cp == nil || cp.Size == 0 || (cp.Size > 0) == closingLong {
		return 0, false, nil
	}
	x := &m.adl
	ra := &x.ra
	*ra = risk.Account{ID: c.ID, Liquidating: c.Liquidating,
		Positions: ra.Positions[:0], Orders: ra.Orders[:0], Settings: ra.Settings[:0]}
	m.positionsInto(ra, mk, c, &x.rs)
	return risk.ADLCandidate(ra, mk, iid, closingLong)
}

// rebuildADL recomputes the whole cache (restore).
func (m *Machine) rebuildADL() {
	m.adl.reset()
	for aid := uint64(1); aid < m.nextAcct; aid++ {
		a := m.byID[aid]
		if a == nil {
			continue
		}
		for iid, p := range a.Positions {
			if p.Size != 0 {
				m.posMoved(a, iid)
			}
		}
	}
	clear(m.adl.touched)
	clear(m.adl.changed)
	mk := m.adl.markets()
	for _, iid := range m.instIDs {
		m.rankInto(iid, mk)
	}
}
