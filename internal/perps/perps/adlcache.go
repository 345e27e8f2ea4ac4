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
type adlCache struct {
	bucket  map[uint32]map[uint64]int8 // instrument → account id → adl_index of the ranked
	mark    map[uint32]int64           // the mark each ranking was computed at
	hold    map[uint32]map[uint64]bool // instrument → accounts with a position there
	touched map[uint64]bool            // accounts whose inputs moved in this Apply
	dirty   map[uint32]bool            // instruments to re-rank in this Apply
}

func (x *adlCache) reset() {
	*x = adlCache{bucket: map[uint32]map[uint64]int8{}, mark: map[uint32]int64{}, hold: map[uint32]map[uint64]bool{},
		touched: map[uint64]bool{}, dirty: map[uint32]bool{}}
}

// adlTouch notes that a's ranking inputs moved (a flag, an allocation).
func (m *Machine) adlTouch(a *Account) { m.adl.touched[a.ID] = true }

// posMoved is posFill's hook: a's position in iid moved (after the fill).
func (m *Machine) posMoved(a *Account, iid uint32) {
	m.legPosMoved(a, iid) // tpslindex.go
	x := &m.adl
	x.touched[a.ID] = true
	x.dirty[iid] = true
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
	for _, iid := range m.instIDs {
		if mk := m.mark(m.inst[iid]); mk != x.mark[iid] {
			x.dirty[iid] = true
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
					x.dirty[iid] = true
				}
			}
		}
	}
	clear(x.touched)
	if len(x.dirty) == 0 {
		return
	}
	var mk risk.Markets
	for iid := range x.dirty {
		mk = m.rankInto(iid, mk)
	}
	clear(x.dirty)
}

// rankInto recomputes iid's buckets over its holders (both sides). mk is
// every market, built once per refresh.
func (m *Machine) rankInto(iid uint32, mk risk.Markets) risk.Markets {
	x := &m.adl
	in := m.inst[iid]
	if in == nil {
		return mk
	}
	if mk == nil {
		mk = m.allMarkets(nil)
	}
	x.mark[iid] = mk[iid].Mark
	b := x.bucket[iid]
	if b == nil {
		b = map[uint64]int8{}
		x.bucket[iid] = b
	}
	clear(b)
	if mk[iid].Mark <= 0 {
		return mk
	}
	ids := make([]uint64, 0, len(x.hold[iid]))
	for aid := range x.hold[iid] {
		ids = append(ids, aid)
	}
	slices.Sort(ids) // the ranking's order is total; sorted input keeps the work deterministic too
	for _, closingLong := range []bool{true, false} {
		ranked, err := m.rankHolders(iid, closingLong, ids, mk)
		if err != nil {
			continue
		}
		for i, r := range ranked {
			b[r.Acct.ID] = int8(risk.ADLBucket(i, len(ranked)))
		}
	}
	return mk
}

// rankHolders is rankADL over the given holders of iid.
func (m *Machine) rankHolders(iid uint32, closingLong bool, ids []uint64, mk risk.Markets) ([]risk.Ranked, error) {
	var views []risk.Account
	for _, aid := range ids {
		c := m.byID[aid]
		if c == nil || c.Liquidating {
			continue
		}
		if cp := c.Positions[iid]; cp == nil || cp.Size == 0 || (cp.Size > 0) == closingLong {
			continue
		}
		var ra risk.Account
		m.viewInto(&ra, mk, c, 0, 0)
		views = append(views, ra)
	}
	seq := func(yield func(*risk.Account) bool) {
		for i := range views {
			if !yield(&views[i]) {
				return
			}
		}
	}
	return risk.RankADL(seq, mk, iid, closingLong, nil, nil)
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
	mk := m.allMarkets(nil)
	for _, iid := range m.instIDs {
		m.rankInto(iid, mk)
	}
	clear(m.adl.dirty)
}
