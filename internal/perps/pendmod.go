package perps

// Pending modifies (the contract's modify_already_pending). With
// Flight.ModifyMs > 0 a modify that resolves and parses is pending until
// ts + ModifyMs; another modify of the same order meanwhile is
// modify_already_pending. When it is due, every other modify rule is applied
// against the book as it is then (applyModify) and its result is kept for
// the submitter (ModifyOutcome): the HTTP/WS answer is that final outcome.
//
// Invariant: Order.ModPend is the id of the order's pending modify (0: none);
// m.mods holds exactly the pending modifies (id order), m.modsDone the most
// recent applied ones in the order they applied (bounded, so a waiter can
// still read its outcome).

// PendingMod is one modify awaiting its window.
type PendingMod struct {
	ID    uint64      `json:"id"`
	OID   uint64      `json:"oid"`
	Req   ModifyReq   `json:"req"` // as sent (its oid/coid label the result)
	Ticks int64       `json:"p"`
	Lots  int64       `json:"q"`
	Due   int64       `json:"due"`           // 0 once applied
	Out   *ItemResult `json:"out,omitempty"` // the outcome once applied
}

// keptMods bounds the applied modifies kept for their waiters.
const keptMods = 1024

func (m *Machine) pendModify(o *Order, r *ModifyReq, ticks, lots, ts int64) ItemResult {
	pm := &PendingMod{ID: m.nextMod, OID: o.OID, Req: *r, Ticks: ticks, Lots: lots, Due: ts + m.fl.ModifyMs}
	m.nextMod++
	m.mods = append(m.mods, pm)
	o.ModPend = pm.ID
	return ItemResult{Status: StatusHeld, OID: r.OID, COID: r.COID, Due: pm.Due, Mod: pm.ID}
}

// dueMod is the pending modify that is due first (then lowest id), or nil.
func (m *Machine) dueMod() *PendingMod {
	var best *PendingMod
	for _, pm := range m.mods {
		if best == nil || pm.Due < best.Due {
			best = pm
		}
	}
	return best
}

// applyPending applies a due pending modify.
func (m *Machine) applyPending(pm *PendingMod, ts int64, ev *Event) {
	for i, p := range m.mods {
		if p == pm {
			m.mods = append(m.mods[:i], m.mods[i+1:]...)
			break
		}
	}
	m.modsDone = append(m.modsDone, pm)
	if len(m.modsDone) > 2*keptMods {
		m.modsDone = append([]*PendingMod(nil), m.modsDone[len(m.modsDone)-keptMods:]...)
	}
	pm.Due = 0
	o := m.orders[pm.OID]
	var out ItemResult
	if o == nil { // ended and dropped from the history meanwhile
		out = ItemResult{Status: "err", OID: pm.Req.OID, COID: pm.Req.COID, Error: "order_not_in_orderbook"}
	} else {
		o.ModPend = 0
		out = m.applyModify(o, &pm.Req, pm.Ticks, pm.Lots, ts, ev)
	}
	pm.Out = &out
}

// ModifyOutcome is the final result of pending modify id, once applied.
func (m *Machine) ModifyOutcome(id uint64) (ItemResult, bool) {
	for i := len(m.modsDone) - 1; i >= 0; i-- { // newest first: waiters read right after the apply
		if pm := m.modsDone[i]; pm.ID == id {
			if pm.Out == nil {
				return ItemResult{}, false
			}
			return *pm.Out, true
		}
	}
	return ItemResult{}, false
}
