package perps

// A cancel by client order id racing its create (perps.md §9.6: cancel-by-coid
// "waits ~100 ms for a racing create, then order_unknown"). With
// Flight.COIDWaitMs > 0 a cancel-by-coid naming a coid the account does not
// have waits until ts + COIDWaitMs. If a create with that coid is applied
// meanwhile, the cancel applies right after it (cancelOne: ok, or held or
// order_in_flight while the new order's accept is in flight); at its due
// time it ends order_unknown. With the window 0 (the default) an unknown
// coid is order_unknown at once.
//
// Invariant: m.ccs holds exactly the waiting cancels (id order); m.ccsDone
// the most recently resolved ones in resolution order (bounded, so a
// waiter can still read its outcome).

// COIDWait is one cancel-by-coid waiting for its order's create.
type COIDWait struct {
	ID      uint64      `json:"id"`
	Account string      `json:"a"`
	COID    string      `json:"coid"`
	Due     int64       `json:"due"`           // 0 once resolved
	Out     *ItemResult `json:"out,omitempty"` // the outcome once resolved
}

// keptCOIDWaits bounds the resolved waits kept for their waiters.
const keptCOIDWaits = 1024

func (m *Machine) waitCOID(a *Account, coid string, ts int64) ItemResult {
	w := &COIDWait{ID: m.nextCC, Account: a.Addr, COID: coid, Due: ts + m.fl.COIDWaitMs}
	m.nextCC++
	m.ccs = append(m.ccs, w)
	return ItemResult{Status: StatusHeld, COID: coid, Due: w.Due, CC: w.ID}
}

// coidCreated resolves the cancels waiting for a's coid; place calls it
// once the order that took the coid is placed.
func (m *Machine) coidCreated(a *Account, coid string, ts int64, ev *Event) {
	for i := 0; i < len(m.ccs); {
		w := m.ccs[i]
		if w.Account != a.Addr || w.COID != coid {
			i++
			continue
		}
		m.ccs = append(m.ccs[:i], m.ccs[i+1:]...)
		m.resolveCOID(w, m.cancelOne(a, a.COIDs[coid], ts, ev))
	}
}

// dueCOIDWaits ends the waits due at ts: no create took the coid in time.
func (m *Machine) dueCOIDWaits(ts int64) {
	for i := 0; i < len(m.ccs); {
		w := m.ccs[i]
		if w.Due > ts {
			i++
			continue
		}
		m.ccs = append(m.ccs[:i], m.ccs[i+1:]...)
		m.resolveCOID(w, ItemResult{Status: "err", COID: w.COID, Error: "order_unknown"})
	}
}

func (m *Machine) resolveCOID(w *COIDWait, out ItemResult) {
	if out.COID == "" {
		out.COID = w.COID
	}
	w.Due, w.Out = 0, &out
	m.ccsDone = append(m.ccsDone, w)
	if len(m.ccsDone) > 2*keptCOIDWaits {
		m.ccsDone = append([]*COIDWait(nil), m.ccsDone[len(m.ccsDone)-keptCOIDWaits:]...)
	}
}

// nextCOIDDue is the earliest due time of a waiting cancel (0: none).
func (m *Machine) nextCOIDDue() int64 {
	var d int64
	for _, w := range m.ccs {
		if d == 0 || w.Due < d {
			d = w.Due
		}
	}
	return d
}

// COIDCancelOutcome is the final result of waiting cancel id, once resolved
// (it may itself be a held cancel of the new order: StatusHeld with its OID).
func (m *Machine) COIDCancelOutcome(id uint64) (ItemResult, bool) {
	for i := len(m.ccsDone) - 1; i >= 0; i-- {
		if w := m.ccsDone[i]; w.ID == id {
			return *w.Out, true
		}
	}
	return ItemResult{}, false
}

// COIDWaiting reports how many cancels-by-coid are waiting for a create.
func (m *Machine) COIDWaiting() int { return len(m.ccs) }
