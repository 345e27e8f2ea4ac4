package perps

import "pmx/internal/perps/risk"

// The incremental sweep (docs/perps-margin.md "Incremental sweep"): after
// a full valuation finds an account with a single position healthy, the
// sweep remembers the position's liquidation price together with the
// inputs it was computed from (balance, size, cost). Later sweeps skip the
// account while those inputs are unchanged and the mark is still on the
// safe side of that price, so a sweep over unchanged accounts costs a few
// comparisons each, and a mark move only re-values the accounts it brings
// near their liquidation price. Any fill, fee, funding charge or transfer
// changes the balance or the position and so forces a full valuation. The
// cache is derived, not state: a skipped account is one the full valuation
// would not flag, so replays and snapshots are unaffected.

// safeTicks plus 1/safeDiv of the price is the margin kept from the
// liquidation price: the price and the margins it is solved from are each
// rounded, by at most a tick or a few micro-units.
const (
	safeTicks = 2
	safeDiv   = 10000
)

type safeEntry struct {
	a               *Account
	p               *Position // a's only position: while its size is unchanged it is still in a.Positions (closing to 0 removes it)
	iid             uint32
	bal, size, cost int64
	liq             int64 // ticks: long safe above liq, short safe below
}

// markTicks lists the marks of mk by instrument id (the sweep's fast path
// reads a slice, not the map).
func markTicks(mk risk.Markets, dst []int64) []int64 {
	dst = dst[:0]
	for iid, mt := range mk {
		for len(dst) <= int(iid) {
			dst = append(dst, 0)
		}
		dst[iid] = mt.Mark
	}
	return dst
}

// safe reports whether account aid is known healthy at marks without
// valuing it.
func (m *Machine) safe(aid uint64, marks []int64) bool {
	if aid >= uint64(len(m.safeCache)) {
		return false
	}
	e := &m.safeCache[aid]
	if e.a == nil {
		return false
	}
	a := e.a
	if a.Liquidating || a.Balance != e.bal || len(a.Positions) != 1 || e.p.Size != e.size || e.p.Cost != e.cost || e.p.Iso {
		return false
	}
	if int(e.iid) >= len(marks) || marks[e.iid] <= 0 {
		return false
	}
	mark := marks[e.iid]
	buf := safeTicks + e.liq/safeDiv
	if e.size > 0 {
		return mark >= e.liq+buf
	}
	return mark <= e.liq-buf
}

// remember caches a's liquidation price after a valuation found it healthy
// (single-position accounts only; others are always valued).
func (m *Machine) remember(a *Account, mk risk.Markets) {
	if m.fullSweep || a.Liquidating || len(a.Positions) != 1 {
		return
	}
	for iid, p := range a.Positions { // the only one
		mt := mk[iid]
		if p.Size == 0 || p.Iso || mt == nil || mt.Mark <= 0 { // an isolated scope is always valued
			return
		}
		rp := risk.Position{IID: iid, Size: p.Size, Cost: p.Cost}
		r, err := risk.PositionRisk(&rp, risk.Setting{IID: iid, Lev: m.leverage(a, m.inst[iid]), Cross: true}, mt)
		if err != nil {
			return
		}
		eq, ok := add(a.Balance, r.UPnL)
		if !ok {
			return
		}
		liq, err := risk.LiquidationPrice(&rp, mt, eq, 0)
		if err != nil || (p.Size < 0 && liq <= 2*safeTicks) {
			return
		}
		for uint64(len(m.safeCache)) <= a.ID {
			m.safeCache = append(m.safeCache, safeEntry{})
		}
		m.safeCache[a.ID] = safeEntry{a: a, p: p, iid: iid, bal: a.Balance, size: p.Size, cost: p.Cost, liq: liq}
	}
}
