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
// Invariant: m.ccs holds the waiting and recently resolved cancels (steps.go).

// COIDWait is one cancel-by-coid waiting for its order's create.
type COIDWait struct {
	Step
	Account string `json:"a"`
	COID    string `json:"coid"`
}

func (m *Machine) waitCOID(a *Account, coid string, ts int64) ItemResult {
	st := m.ccs.add(&COIDWait{Account: a.Addr, COID: coid}, ts+m.fl.COIDWaitMs)
	return ItemResult{Status: StatusHeld, COID: coid, Due: st.Due, CC: st.ID}
}

// coidCreated resolves the cancels waiting for a's coid; place calls it
// once the order that took the coid is placed.
func (m *Machine) coidCreated(a *Account, coid string, ts int64, ev *Event) {
	for i := 0; i < len(m.ccs.pend); {
		if w := m.ccs.pend[i]; w.Account != a.Addr || w.COID != coid {
			i++
			continue
		}
		m.resolveCOID(m.ccs.take(i), m.cancelOne(a, a.COIDs[coid], ts, ev))
	}
}

// dueCOIDWaits ends the waits due at ts: no create took the coid in time.
func (m *Machine) dueCOIDWaits(ts int64) {
	for i := 0; i < len(m.ccs.pend); {
		if m.ccs.pend[i].Due > ts {
			i++
			continue
		}
		w := m.ccs.take(i)
		m.resolveCOID(w, ItemResult{Status: "err", COID: w.COID, Error: "order_unknown"})
	}
}

func (m *Machine) resolveCOID(w *COIDWait, out ItemResult) {
	if out.COID == "" {
		out.COID = w.COID
	}
	m.ccs.resolve(w, out)
}

// COIDCancelOutcome is the final result of waiting cancel id, once resolved
// (it may itself be a held cancel of the new order: StatusHeld with its OID).
func (m *Machine) COIDCancelOutcome(id uint64) (ItemResult, bool) { return m.ccs.outcome(id) }

// COIDWaiting reports how many cancels-by-coid are waiting for a create.
func (m *Machine) COIDWaiting() int { return len(m.ccs.pend) }
