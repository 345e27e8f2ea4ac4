package perps

import (
	"container/heap"
	"slices"
)

// The TP/SL leg indexes (not state: rebuilt from the orders on restore).
// A mark move must cost only the legs it crosses, not every dormant leg:
//
//   - legsOf: each account's live legs in oid order (queries, cancelAll,
//     the position-leg duplicate check, cancel by coid);
//   - trigs: per instrument, the armed legs in two heaps by trigger, one
//     for legs that fire on a rising mark (least trigger on top) and one
//     for a falling mark (greatest on top); the trigger pass pops only the
//     legs the mark has crossed. A leg that ends otherwise stays in its
//     heap as a dead entry, dropped when it surfaces; a heap with more dead
//     than live entries is rebuilt, so memory stays bounded under cancels;
//   - armedAt/legDirty: the armed legs of each position, and the positions
//     that moved (posFill) or gained an armed leg since the last pass: only
//     those are checked for position_closed and position_flipped.

// legKey names a position: account id and instrument.
type legKey struct {
	acct uint64
	iid  uint32
}

// trigEntry is a heap entry: key is the trigger (rising heap) or its
// negation (falling heap), so both heaps pop the least key first.
type trigEntry struct {
	key int64
	oid uint64
}

type trigHeap []trigEntry

func (h trigHeap) Len() int { return len(h) }
func (h trigHeap) Less(i, j int) bool {
	return h[i].key < h[j].key || h[i].key == h[j].key && h[i].oid < h[j].oid
}
func (h trigHeap) Swap(i, j int) { h[i], h[j] = h[j], h[i] }
func (h *trigHeap) Push(x any)   { *h = append(*h, x.(trigEntry)) }
func (h *trigHeap) Pop() any {
	old := *h
	e := old[len(old)-1]
	*h = old[:len(old)-1]
	return e
}

// trigIndex is one instrument's armed legs.
type trigIndex struct {
	up, down trigHeap // fire at mark ≥ trp / mark ≤ trp
	dead     int      // entries whose leg is no longer armed
}

func (m *Machine) resetLegIndex() {
	m.legsOf = map[string][]uint64{}
	m.trigs = map[uint32]*trigIndex{}
	m.armedAt = map[legKey][]uint64{}
	m.legDirty = map[legKey]bool{}
}

// legAdded indexes a new live leg (oids grow: appending keeps oid order).
func (m *Machine) legAdded(o *Order) {
	m.legsOf[o.Account] = append(m.legsOf[o.Account], o.OID)
	if o.Status == StArmed {
		m.legArmed(o)
	}
}

// legArmed indexes leg o, whose status just became armed.
func (m *Machine) legArmed(o *Order) {
	ix := m.trigs[o.IID]
	if ix == nil {
		ix = &trigIndex{}
		m.trigs[o.IID] = ix
	}
	if o.TPSL.up(o.Buy) {
		heap.Push(&ix.up, trigEntry{o.TPSL.Trig, o.OID})
	} else {
		heap.Push(&ix.down, trigEntry{-o.TPSL.Trig, o.OID})
	}
	k := legKey{m.accts[o.Account].ID, o.IID}
	m.armedAt[k] = append(m.armedAt[k], o.OID)
	m.legDirty[k] = true
}

// legRemoved unindexes leg o, which was armed when wasArmed.
func (m *Machine) legRemoved(o *Order, wasArmed bool) {
	if l := m.legsOf[o.Account]; len(l) > 0 {
		if i, ok := slices.BinarySearch(l, o.OID); ok {
			l = slices.Delete(l, i, i+1)
			if len(l) == 0 {
				delete(m.legsOf, o.Account)
			} else {
				m.legsOf[o.Account] = l
			}
		}
	}
	if !wasArmed {
		return
	}
	k := legKey{m.accts[o.Account].ID, o.IID}
	if l := m.armedAt[k]; len(l) > 0 {
		if i := slices.Index(l, o.OID); i >= 0 {
			l = slices.Delete(l, i, i+1)
			if len(l) == 0 {
				delete(m.armedAt, k)
				delete(m.legDirty, k)
			} else {
				m.armedAt[k] = l
			}
		}
	}
	if ix := m.trigs[o.IID]; ix != nil {
		ix.dead++
		if live := len(ix.up) + len(ix.down) - ix.dead; ix.dead > 64 && ix.dead > live {
			m.compact(ix)
		}
	}
}

// compact drops the dead entries of ix.
func (m *Machine) compact(ix *trigIndex) {
	keep := func(h trigHeap) trigHeap {
		out := h[:0]
		for _, e := range h {
			if o := m.orders[e.oid]; o != nil && !o.Terminal && o.Status == StArmed {
				out = append(out, e)
			}
		}
		clear(h[len(out):])
		heap.Init(&out)
		return out
	}
	ix.up, ix.down, ix.dead = keep(ix.up), keep(ix.down), 0
}

// legPosMoved notes that a's position in iid moved (posFill): its armed
// legs are checked for position_closed/flipped at the next pass.
func (m *Machine) legPosMoved(a *Account, iid uint32) {
	if len(m.armedAt) == 0 {
		return
	}
	if k := (legKey{a.ID, iid}); len(m.armedAt[k]) > 0 {
		m.legDirty[k] = true
	}
}

// crossedLegs pops from ix the armed legs whose trigger mark has crossed
// (dead entries are dropped) and appends their oids to dst.
func (m *Machine) crossedLegs(ix *trigIndex, mark int64, dst []uint64) []uint64 {
	pop := func(h *trigHeap, limit int64) {
		for len(*h) > 0 && (*h)[0].key <= limit {
			e := heap.Pop(h).(trigEntry)
			if o := m.orders[e.oid]; o == nil || o.Terminal || o.Status != StArmed {
				ix.dead--
				continue
			}
			dst = append(dst, e.oid)
		}
	}
	pop(&ix.up, mark)
	pop(&ix.down, -mark)
	return dst
}

// rearm puts back a popped leg that did not fire.
func (m *Machine) rearm(o *Order) {
	ix := m.trigs[o.IID]
	if o.TPSL.up(o.Buy) {
		heap.Push(&ix.up, trigEntry{o.TPSL.Trig, o.OID})
	} else {
		heap.Push(&ix.down, trigEntry{-o.TPSL.Trig, o.OID})
	}
}

// up reports whether the leg (exit side buy) fires on a rising mark.
func (t *TPSL) up(buy bool) bool { return (t.Kind == "tp") != buy }

// restoreTriggers rebuilds the leg indexes from the restored orders; every
// armed position is checked at the next pass.
func (m *Machine) restoreTriggers() {
	m.resetLegIndex()
	var ids []uint64
	for id, o := range m.orders {
		if o.TPSL != nil && !o.Terminal {
			ids = append(ids, id)
		}
	}
	slices.Sort(ids)
	for _, id := range ids {
		m.legAdded(m.orders[id])
	}
}

// allLegs lists every live leg in oid order (tests).
func (m *Machine) allLegs() []uint64 {
	var out []uint64
	for _, l := range m.legsOf {
		out = append(out, l...)
	}
	slices.Sort(out)
	return out
}
