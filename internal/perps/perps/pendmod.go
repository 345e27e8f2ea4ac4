package perps

// Pending modifies (the contract's modify_already_pending). With
// Flight.ModifyMs > 0 a modify that resolves and parses is pending until
// ts + ModifyMs; another modify of the same order meanwhile is
// modify_already_pending. When it is due, every other modify rule is applied
// against the book as it is then (applyModify) and its result is kept for
// the submitter (ModifyOutcome): the HTTP/WS answer is that final outcome.
//
// Invariant: Order.ModPend is the id of the order's pending modify (0: none);
// m.mods holds the pending and recently applied modifies (steps.go).

// PendingMod is one modify awaiting its window.
type PendingMod struct {
	Step
	OID   uint64    `json:"oid"`
	Req   ModifyReq `json:"req"` // as sent (its oid/coid label the result)
	Ticks int64     `json:"p"`
	Lots  int64     `json:"q"`
}

func (m *Machine) pendModify(o *Order, r *ModifyReq, ticks, lots, ts int64) ItemResult {
	st := m.mods.add(&PendingMod{OID: o.OID, Req: *r, Ticks: ticks, Lots: lots}, ts+m.fl.ModifyMs)
	o.ModPend = st.ID
	return ItemResult{Status: StatusHeld, OID: r.OID, COID: r.COID, Due: st.Due, Mod: st.ID}
}

// applyPending applies the pending modify m.mods.pend[i], which is due.
func (m *Machine) applyPending(i int, ts int64, ev *Event) {
	pm := m.mods.take(i)
	o := m.orders[pm.OID]
	var out ItemResult
	if o == nil { // ended and dropped from the history meanwhile
		out = ItemResult{Status: "err", OID: pm.Req.OID, COID: pm.Req.COID, Error: "order_not_in_orderbook"}
	} else {
		o.ModPend = 0
		out = m.applyModify(o, &pm.Req, pm.Ticks, pm.Lots, ts, ev)
	}
	m.mods.resolve(pm, out)
}

// ModifyOutcome is the final result of pending modify id, once applied.
func (m *Machine) ModifyOutcome(id uint64) (ItemResult, bool) { return m.mods.outcome(id) }
