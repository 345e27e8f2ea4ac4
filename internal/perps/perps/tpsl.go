package perps

import "slices"

// TP/SL (perps.md §9.3, docs/perps-margin.md "TP/SL"). A leg is an Order
// with TPSL set that never enters a book and is not in its account's Open
// set: it waits in m.trig until the mark crosses its trigger, then a fresh
// reduce-only order (Leg = the leg's oid) enters the book for it.
//   - grp "order" (bracket): [entry, tp?, sl?]; the legs are untriggered
//     until the entry fills in full (then armed); an entry that ends any
//     other way ends them parent_cancelled. One leg firing cancels the other.
//   - grp "position": legs armed at once on the existing position, qty "0",
//     market exit sized at trigger to the whole position.
// An armed leg whose position is gone ends position_closed, one whose
// position changed side ends position_flipped (checked at each sweep).

// TP/SL statuses (perps.md §9.3).
const (
	StUntriggered     = "untriggered"
	StArmed           = "armed"
	StTriggered       = "triggered"
	StParentCancelled = "parent_cancelled"
	StPositionClosed  = "position_closed"
	StPositionFlipped = "position_flipped"
	StROInvalidAtTrig = "reduce_only_invalid_at_trigger"
	StExpired         = "expired" // the leg's instrument settled: it can never fire
	ErrOrderHasTPSL   = "order_has_tpsl"
)

// TPSL is a leg's trigger. Trig is in ticks; Parent is the bracket's entry
// (order scope), Sib the bracket's other leg, Child the order entered at
// trigger.
type TPSL struct {
	Kind   string `json:"kind"`  // tp | sl
	Scope  string `json:"scope"` // order | position
	Trig   int64  `json:"trp"`
	Market bool   `json:"mkt,omitempty"`
	Parent uint64 `json:"parent,omitempty"`
	Sib    uint64 `json:"sib,omitempty"`
	Child  uint64 `json:"child,omitempty"`
	// Slip is the market exit's slippage limit in bps as sent (0: the
	// instrument's default, the price band); Attached: attached to a
	// resting order by parent_oid (shown only then).
	Slip     int64 `json:"slip,omitempty"`
	Attached bool  `json:"att,omitempty"`
}

// TPSLData is OrderData.tpsl.
type TPSLData struct {
	Kind      string `json:"kind"`
	Scope     string `json:"scope"`
	TrP       string `json:"trp"`
	ParentOID uint64 `json:"parent_oid,omitempty"`
	ArmedQty  string `json:"armed_qty,omitempty"`
	SlipBps   *int64 `json:"slip_bps,omitempty"` // market legs
}

func hasTPSL(rs []OrderReq) bool {
	for i := range rs {
		if rs[i].TR || rs[i].Grp != "" {
			return true
		}
	}
	return false
}

// legSpec is a validated leg request.
type legSpec struct {
	r            *OrderReq
	trig, ticks  int64
	slip         int64
	market       bool
	kind, errStr string
}

// parseLeg validates a leg's trigger and exit price on instrument in.
func (m *Machine) parseLeg(r *OrderReq, scope string) legSpec {
	l := legSpec{r: r, kind: r.TrKind, market: r.TrMarket, slip: int64(min(r.TrSlip, MaxSlipBps+1))}
	in := m.inst[r.IID]
	switch {
	case !r.TR || r.TIF != nil || r.PO:
		l.errStr = "invalid_command"
	case r.TrSlip > MaxSlipBps, r.TrSlip > 0 && !r.TrMarket: // slippage bounds a market exit only
		l.errStr = "invalid_command"
	case (scope == "attach") != (r.TrParent != 0):
		l.errStr = "invalid_command"
	case r.TrKind != "tp" && r.TrKind != "sl":
		l.errStr = "invalid_command"
	case in == nil:
		l.errStr = "instrument_not_found"
	case in.Settled:
		l.errStr = ErrSettled
	}
	if l.errStr != "" {
		return l
	}
	g := in.grid()
	p, err := g.ParsePrice(r.TrP)
	if err != nil {
		l.errStr = priceErr(err)
		return l
	}
	if int64(p) >= in.Ticks {
		l.errStr = "price_outside_bounds"
		return l
	}
	l.trig = int64(p)
	switch {
	case r.TrMarket && r.P != nil, !r.TrMarket && r.P == nil, scope == "position" && !r.TrMarket:
		l.errStr = "invalid_command" // market exit has no price; a limit exit needs one; position legs are market
		return l
	case r.P != nil:
		q, err := g.ParsePrice(*r.P)
		if err != nil {
			l.errStr = priceErr(err)
			return l
		}
		if int64(q) >= in.Ticks {
			l.errStr = "price_outside_bounds"
			return l
		}
		l.ticks = int64(q)
	}
	if r.C != "" && !isCOID(r.C) {
		l.errStr = "invalid client order id"
	}
	return l
}

// placeTPSL places a createOrders request that carries a group or a
// trigger. Every refusal of the request's shape answers each item.
func (m *Machine) placeTPSL(a *Account, rs []OrderReq, ts int64, ev *Event) {
	all := func(e string) {
		for i := range rs {
			ev.Acks = append(ev.Acks, Ack{Status: "err", Error: e, COID: rs[i].C})
		}
	}
	grp := rs[0].Grp
	if m.mode == ModePostOnly {
		all(ErrPostOnlyMode)
		return
	}
	kinds := map[string]bool{}
	var legs []legSpec
	switch grp {
	case "order":
		if rs[0].TR {
			m.attachTPSL(a, rs, ts, ev)
			return
		}
		if len(rs) < 2 || len(rs) > 3 {
			all("invalid_command")
			return
		}
		for i := 1; i < len(rs); i++ {
			l := m.parseLeg(&rs[i], grp)
			if l.errStr == "" && (kinds[l.kind] || rs[i].IID != rs[0].IID || rs[i].Buy == rs[0].Buy) {
				l.errStr = "invalid_command"
			}
			if l.errStr == "" && m.legCOIDInUse(a, rs[i].C) {
				l.errStr = "duplicate_order"
			}
			if l.errStr != "" {
				all(l.errStr)
				return
			}
			kinds[l.kind] = true
			legs = append(legs, l)
		}
		m.newLegs = legs
		ack := m.place(a, &rs[0], m.inst[rs[0].IID], ts, ev)
		m.newLegs = nil
		ev.Acks = append(ev.Acks, ack)
		if ack.Status != "ok" {
			for _, l := range legs {
				ev.Acks = append(ev.Acks, Ack{Status: "err", Error: StParentCancelled, COID: l.r.C})
			}
			return
		}
		for _, id := range m.orders[ack.OID].Legs {
			ev.Acks = append(ev.Acks, Ack{Status: "ok", OID: id, COID: m.orders[id].COID})
		}
	case "position":
		if len(rs) > 2 {
			all("invalid_command")
			return
		}
		for i := range rs {
			l := m.parseLeg(&rs[i], grp)
			if l.errStr == "" {
				l.errStr = m.positionLegErr(a, &rs[i], l, kinds)
			}
			if l.errStr == "" && m.legCOIDInUse(a, rs[i].C) {
				l.errStr = "duplicate_order"
			}
			if l.errStr != "" {
				all(l.errStr)
				return
			}
			kinds[l.kind] = true
			legs = append(legs, l)
		}
		var sib uint64
		for _, l := range legs {
			o := m.newLeg(a, l, "position", 0, ts)
			if sib != 0 {
				o.TPSL.Sib, m.orders[sib].TPSL.Sib = sib, o.OID
			}
			sib = o.OID
			o.Status = StArmed
			m.legArmed(o)
			ev.Acks = append(ev.Acks, Ack{Status: "ok", OID: o.OID, COID: o.COID})
		}
		m.flush(ev)
	default: // a trigger needs a group
		all("invalid_command")
	}
}

// positionLegErr checks a position leg against the account: qty "0", a
// position on the other side, no live leg of the same kind on the
// instrument, and a mark not already past the trigger.
func (m *Machine) positionLegErr(a *Account, r *OrderReq, l legSpec, kinds map[string]bool) string {
	in := m.inst[r.IID]
	if q, err := in.grid().ParseQty(r.Qty); r.Qty != "0" && (err != nil || q != 0) {
		return "invalid_command"
	}
	p := a.Positions[r.IID]
	if p == nil || p.Size == 0 || (p.Size > 0) == r.Buy {
		return StReduceInvalid
	}
	if kinds[l.kind] {
		return "invalid_command"
	}
	for _, id := range m.legsOf[a.Addr] {
		o := m.orders[id]
		if o.IID == r.IID && o.TPSL.Scope == "position" && o.TPSL.Kind == l.kind {
			return "duplicate_order"
		}
	}
	mark := m.mark(in)
	if mark <= 0 {
		return StMarkUnavailable
	}
	if crossed(r.Buy, l.kind, l.trig, mark) {
		return "invalid_command"
	}
	return ""
}

// StMarkUnavailable answers a position leg on an instrument without a mark.
const StMarkUnavailable = "mark_price_unavailable"

// newLeg creates a leg order (untriggered) and queues it for triggers.
func (m *Machine) newLeg(a *Account, l legSpec, scope string, parent uint64, ts int64) *Order {
	tif := "gtc"
	if l.market {
		tif = "ioc"
	}
	o := &Order{OID: m.nextOID, IID: l.r.IID, Account: a.Addr, Buy: l.r.Buy, Ticks: l.ticks, TIF: tif, Reduce: true,
		COID: l.r.C, Status: StUntriggered, Created: ts, Updated: ts,
		TPSL: &TPSL{Kind: l.kind, Scope: scope, Trig: l.trig, Market: l.market, Parent: parent, Slip: l.slip}}
	m.nextOID++
	m.orders[o.OID] = o
	m.legAdded(o)
	m.touch(o)
	return o
}

// attachLegs creates the pending bracket legs of entry o (place's hook).
func (m *Machine) attachLegs(a *Account, o *Order, ts int64) {
	var prev *Order
	for _, l := range m.newLegs {
		lo := m.newLeg(a, l, "order", o.OID, ts)
		lo.Lots = o.Lots
		if prev != nil {
			lo.TPSL.Sib, prev.TPSL.Sib = prev.OID, lo.OID
		}
		prev = lo
		o.Legs = append(o.Legs, lo.OID)
	}
}

// parentDone arms or ends the legs of entry o, which just ended (finish's
// hook): armed if it filled in full, parent_cancelled otherwise.
func (m *Machine) parentDone(o *Order, ts int64) {
	for _, id := range o.Legs {
		l := m.orders[id]
		if l == nil || l.Terminal {
			continue
		}
		if o.Status == StFilled {
			l.Status, l.Updated = StArmed, ts
			m.legArmed(l)
			m.touch(l)
			continue
		}
		m.endLeg(l, StParentCancelled, ts)
	}
}

// endLeg makes leg l terminal with status st.
func (m *Machine) endLeg(l *Order, st string, ts int64) {
	was := l.Status == StArmed
	m.finish(l, st, ts)
	m.legRemoved(l, was)
	m.touch(l)
}

// cancelLegs cancels the account's live legs (on iid, 0: all) for cancelAll.
func (m *Machine) cancelLegs(a *Account, iid uint32, ts int64, ev *Event) {
	for _, id := range slices.Clone(m.legsOf[a.Addr]) {
		if l := m.orders[id]; iid == 0 || l.IID == iid {
			m.endLeg(l, StCancelled, ts)
		}
	}
	m.flush(ev)
}

// liveLegs lists the account's live legs in oid order.
func (m *Machine) liveLegs(a *Account) []uint64 { return slices.Clone(m.legsOf[a.Addr]) }

// modifyTPSL is the modify refusal for TP/SL orders: a leg, an entry with
// legs or an order entered at trigger.
func modifyTPSL(o *Order) string {
	if o.TPSL != nil || len(o.Legs) > 0 || o.Leg != 0 {
		return ErrOrderHasTPSL
	}
	return ""
}

// crossed reports whether a leg on side buy (the exit's side) of kind fires
// at mark. A sell exit closes a long: TP at mark ≥ trigger, SL at ≤; a buy
// exit closes a short: the reverse.
func crossed(buy bool, kind string, trig, mark int64) bool {
	if (&TPSL{Kind: kind}).up(buy) {
		return mark >= trig
	}
	return mark <= trig
}

// fireTriggers runs after each sweep (tpslindex.go): armed legs of the
// positions that moved end if their position is gone or flipped; then the
// legs whose trigger the mark crossed, in oid order, enter their exit.
// It reports whether any exit entered (positions moved: sweep again).
func (m *Machine) fireTriggers(ts int64, ev *Event) bool {
	m.closeLegs(ts)
	var cand []uint64
	for _, iid := range m.instIDs {
		ix := m.trigs[iid]
		if ix == nil || len(ix.up)+len(ix.down) == 0 {
			continue
		}
		if mark := m.mark(m.inst[iid]); mark > 0 {
			cand = m.crossedLegs(ix, mark, cand)
		}
	}
	slices.Sort(cand)
	fired := false
	for _, id := range cand {
		l := m.orders[id]
		ix := m.trigs[l.IID]
		if !m.fireLeg(l, ts, ev, &fired) {
			m.rearm(l)
			continue
		}
		ix.dead-- // it ended, after leaving its heap: endLeg counted it dead
	}
	m.flush(ev)
	return fired
}

// closeLegs ends the armed legs of the moved positions that are flat
// (position_closed) or on the leg's own side (position_flipped).
// Flagged (liquidating) accounts' legs wait.
func (m *Machine) closeLegs(ts int64) {
	if len(m.legDirty) == 0 {
		return
	}
	keys := make([]legKey, 0, len(m.legDirty))
	for k := range m.legDirty {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, func(x, y legKey) int {
		if x.acct != y.acct {
			return cmpU64(x.acct, y.acct)
		}
		return cmpU64(uint64(x.iid), uint64(y.iid))
	})
	for _, k := range keys {
		a := m.byID[k.acct]
		if a.Liquidating {
			continue
		}
		delete(m.legDirty, k)
		for _, id := range slices.Clone(m.armedAt[k]) {
			m.closeLeg(a, m.orders[id], ts)
		}
	}
}

// closeLeg ends armed leg l if its position is gone or flipped.
func (m *Machine) closeLeg(a *Account, l *Order, ts int64) bool {
	var size int64
	if p := a.Positions[l.IID]; p != nil {
		size = p.Size
	}
	switch {
	case size == 0:
		m.endLeg(l, StPositionClosed, ts)
	case (size > 0) == l.Buy:
		m.endLeg(l, StPositionFlipped, ts)
	default:
		return false
	}
	return true
}

func cmpU64(x, y uint64) int {
	switch {
	case x < y:
		return -1
	case x > y:
		return 1
	}
	return 0
}

// fireLeg handles one popped leg: false when it stays armed (its account
// is flagged, or the mark moved back since the pass began), else it ended:
// closed, flipped, cancelled by its sibling, or triggered with its exit
// entered.
func (m *Machine) fireLeg(l *Order, ts int64, ev *Event, fired *bool) bool {
	if l.Terminal || l.Status != StArmed { // its sibling fired earlier in this pass
		return true
	}
	a := m.accts[l.Account]
	in := m.inst[l.IID]
	if a.Liquidating {
		return false
	}
	if m.closeLeg(a, l, ts) {
		return true
	}
	mark := m.mark(in)
	if mark <= 0 || !crossed(l.Buy, l.TPSL.Kind, l.TPSL.Trig, mark) {
		return false
	}
	size := a.Positions[l.IID].Size
	lots := l.Lots
	if l.TPSL.Scope == "position" || lots > abs(size) {
		lots = abs(size)
	}
	o := &Order{OID: m.nextOID, IID: l.IID, Account: a.Addr, Buy: l.Buy, Ticks: l.Ticks, Lots: lots, TIF: l.TIF,
		Reduce: true, Status: StOpen, Created: ts, Updated: ts, Leg: l.OID}
	if l.TPSL.Market && l.TPSL.Slip > 0 {
		o.Ticks = m.slipLimit(in, l.Buy, l.TPSL.Slip, mark)
	}
	m.nextOID++
	m.orders[o.OID] = o
	a.Open[o.OID] = true
	l.TPSL.Child = o.OID
	m.endLeg(l, StTriggered, ts)
	if s := m.orders[l.TPSL.Sib]; s != nil && !s.Terminal {
		m.endLeg(s, StCancelled, ts) // one-cancels-other
	}
	m.enter(in, o, ts, ev)
	if o.Status == StReduceInvalid {
		l.Status = StROInvalidAtTrig
		m.touch(l)
	}
	m.flush(ev)
	*fired = true
	return true
}

// tpslData renders a leg's OrderData.tpsl (nil for other orders).
func (m *Machine) tpslData(o *Order) *TPSLData {
	if o.TPSL == nil {
		return nil
	}
	g := m.inst[o.IID].grid()
	d := &TPSLData{Kind: o.TPSL.Kind, Scope: o.TPSL.Scope, TrP: g.FormatPrice(fixedPrice(o.TPSL.Trig)),
		ArmedQty: g.FormatQty(fixedQty(o.Lots))}
	if o.TPSL.Attached { // perps.md §9.3: omitted when created with its entry
		d.ParentOID = o.TPSL.Parent
	}
	if o.TPSL.Market {
		d.SlipBps = &o.TPSL.Slip
	}
	if o.TPSL.Scope == "position" {
		d.ArmedQty = "0"
	}
	return d
}
