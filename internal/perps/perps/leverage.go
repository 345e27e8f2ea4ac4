package perps

import (
	"pmx/internal/perps/risk"
)

// KLeverage is updateLeverage and updateLeverages (perps.md §9.8): the items
// apply in order, each on its own (not atomic), with one result per item.
const KLeverage = "updateLeverages"

// tLeverages is the record tag of Command.Leverages. It leaves a gap after
// the base tags so other additive tags can take the numbers below it.
const tLeverages = 40

// LeverageReq is one updateLeverage item: leverage and margin mode of one
// instrument.
type LeverageReq struct {
	IID   uint32 `json:"iid"`
	Lev   int64  `json:"lev"`
	Cross bool   `json:"cross"`
}

// LeverageResult is one item's outcome: the setting now in force, or Error.
type LeverageResult struct {
	Status string `json:"status"`
	IID    uint32 `json:"instrument_id"`
	Lev    int64  `json:"leverage,omitempty"`
	Cross  bool   `json:"cross"`
	Error  string `json:"error,omitempty"`
}

// updateLeverages applies each item with risk.ValidateLeverage (the
// contract's table, in its order) and risk.CheckLeverage (a lower leverage
// must be affordable; a flagged account refuses).
func (m *Machine) updateLeverages(c *Command, ts int64, ev *Event) {
	if c.Account == "" || len(c.Leverages) == 0 {
		ev.Err = "invalid_command"
		return
	}
	a := m.account(c.Account, ts)
	ev.Leverage = make([]LeverageResult, len(c.Leverages))
	for i, r := range c.Leverages {
		ev.Leverage[i] = m.updateLeverage(a, r)
	}
}

func (m *Machine) updateLeverage(a *Account, r LeverageReq) LeverageResult {
	bad := func(err error) LeverageResult {
		return LeverageResult{Status: "err", IID: r.IID, Error: err.Error()}
	}
	in := m.inst[r.IID]
	var ri *risk.Instrument
	if in != nil {
		ri = &m.riskMarket(in).Instrument
	}
	cur := risk.Setting{IID: r.IID}
	hasPos, orders := false, 0
	if in != nil {
		cur.Lev, cur.Cross = m.leverage(a, in), a.Cross[r.IID]
		if p := a.Positions[r.IID]; p != nil && p.Size != 0 {
			hasPos = true
		}
		for oid := range a.Open { // in flight and awaiting risk checks included
			if m.orders[oid].IID == r.IID {
				orders++
			}
		}
	}
	if err := risk.ValidateLeverage(ri, cur, r.Lev, r.Cross, hasPos, orders, false); err != nil {
		return bad(err)
	}
	ra, mk := m.riskView(a, r.IID)
	if err := risk.CheckLeverage(&ra, mk, risk.Setting{IID: r.IID, Lev: r.Lev, Cross: true}); err != nil {
		return bad(err)
	}
	if a.Leverage == nil {
		a.Leverage = map[uint32]int64{}
	}
	a.Leverage[r.IID] = r.Lev
	if r.Cross {
		if a.Cross == nil {
			a.Cross = map[uint32]bool{}
		}
		a.Cross[r.IID] = true
	} else {
		delete(a.Cross, r.IID)
	}
	return LeverageResult{Status: "ok", IID: r.IID, Lev: r.Lev, Cross: r.Cross}
}

func (l *LeverageReq) encode(w *wbuf) {
	w.uint(1, uint64(l.IID))
	w.int(2, l.Lev)
	w.flag(3, l.Cross)
}

func (l *LeverageReq) decode(r *rbuf) {
	for tag := range r.tags() {
		switch tag {
		case 1:
			l.IID = r.u32()
		case 2:
			l.Lev = r.v()
		case 3:
			l.Cross = true
		default:
			r.fail()
		}
	}
}

// encodeLeverages appends Command.Leverages (after every base tag).
func (c *Command) encodeLeverages(w *wbuf) {
	if len(c.Leverages) == 0 {
		return
	}
	w.list(tLeverages, len(c.Leverages))
	for i := range c.Leverages {
		at := w.begin()
		c.Leverages[i].encode(w)
		w.end(at)
	}
}

func (c *Command) decodeLeverages(r *rbuf) {
	c.Leverages = make([]LeverageReq, r.count(1))
	for i := range c.Leverages {
		sub := r.record()
		c.Leverages[i].decode(&sub)
	}
}
