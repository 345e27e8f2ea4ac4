package perps

import (
	"slices"

	"pmx/internal/exchange/book"
	"pmx/internal/perps/risk"
)

// Liquidation execution (docs/perps-margin.md "Liquidation execution"): the
// sweep runs the steps of risk.Plan for each flagged account, inside the
// sweep command, until the account recovers or no step can act:
//
//   - market: a reduce-only IOC order for the whole target position, limited
//     at its bankruptcy price (the book never takes the scope below zero),
//     with the liquidation fee (risk.LiquidationFees: the rate to the venue,
//     liquidation_fee to the insurance fund, capped at the equity left);
//   - what the book could not take in this sweep goes to the insurance fund
//     (backstop: every position of the scope at the mark, and the scope's
//     balance, a deficit when negative) when the fund can absorb it,
//   - else to auto-deleveraging: the position closes at its bankruptcy price
//     against the opposite positions ranked by the ADL index.
//
// This is the cross scope; isolated positions with their own allocation are
// liquidated alone (isolated.go).

// fillKind says how a fill is charged and flagged.
type fillKind uint8

const (
	fkTrade       fillKind = iota // an ordinary book fill
	fkLiq                         // the liquidation order's taker fill: liquidation fees, liq
	fkBackstop                    // the account's leg of a backstop: no fee, liq
	fkADLBankrupt                 // the bankrupt side of a deleveraging: no fee, liq and adl
	fkADL                         // a deleveraged counterparty: no fee, adl
	fkSettle                      // a position closed by settlement (retire.go): no fee, no flag
)

func (k fillKind) liq() bool { return k == fkLiq || k == fkBackstop || k == fkADLBankrupt }
func (k fillKind) adl() bool { return k == fkADLBankrupt || k == fkADL }

// maxLiqSteps bounds the steps of one account in one sweep; each step closes
// a position or hands the scope over, so this is never reached in practice.
const maxLiqSteps = 64

// liqFees is the fee of a fill of kind on a (whose position and balance
// already include the fill's pnl) and the part of it for the insurance fund.
// An isolated position's fee is capped at its own equity (isolated.go).
func (m *Machine) liqFees(a *Account, iid uint32, nMicro int64, kind fillKind) (fee, toFund int64) {
	if kind != fkLiq {
		return 0, 0
	}
	var equity int64
	if p := a.Positions[iid]; p != nil && p.Iso {
		eq, err := m.isoEquity(a, iid)
		if err != nil {
			return 0, 0
		}
		equity = eq
	} else {
		ra, mk := m.riskView(a, 0)
		s, err := risk.Evaluate(&ra, mk)
		if err != nil {
			return 0, 0 // unvaluable: charge nothing rather than guess
		}
		equity = s.Equity
	}
	venue, fund, err := risk.LiquidationFees(nMicro, m.cfg.TakerPPM, liqFeePPM, equity)
	if err != nil {
		return 0, 0
	}
	return venue + fund, fund
}

// allMarkets is every instrument's market at its current mark.
func (m *Machine) allMarkets(mk risk.Markets) risk.Markets {
	if mk == nil {
		mk = make(risk.Markets, len(m.instIDs))
	}
	for _, id := range m.instIDs {
		mk[id] = m.riskMarket(m.inst[id])
	}
	return mk
}

// fundView is the insurance fund as a risk account: its balance and the
// positions it took over, cross at each instrument's maximum leverage.
func (m *Machine) fundView() *risk.Account {
	f := &risk.Account{Collateral: m.insurance}
	for _, iid := range m.instIDs {
		p := m.fundPos[iid]
		if p == nil || p.Size == 0 {
			continue
		}
		f.Positions = append(f.Positions, risk.Position{IID: iid, Size: p.Size, Cost: p.Cost})
		f.Settings = append(f.Settings, risk.Setting{IID: iid, Lev: m.inst[iid].MaxLeverage, Cross: true})
	}
	return f
}

// planStep is risk.Plan for h, except that a market step for a market the
// book already took what it could of (tried) becomes the insurance fund's
// backstop when the fund can absorb the rest, else auto-deleveraging.
func (m *Machine) planStep(h *risk.Hit, mk risk.Markets, tried func(iid uint32) bool) (risk.Step, error) {
	fund := m.fundView()
	st, err := risk.Plan(h, mk, fund)
	if err != nil || st.Kind != risk.StepMarket || !tried(st.IID) {
		return st, err
	}
	ok, err := risk.FundCanAbsorb(h, mk, fund)
	if err != nil {
		return st, err
	}
	st.Kind = risk.StepADL
	if ok {
		st.Kind = risk.StepBackstop
	}
	return st, nil
}

// liquidate runs the liquidation steps of the flagged account a.
func (m *Machine) liquidate(a *Account, mk risk.Markets, ts int64, ev *Event) {
	tried := map[uint32]bool{} // market steps sent in this sweep
	for range maxLiqSteps {
		mk = m.allMarkets(mk)
		ra, _ := m.riskView(a, 0)
		h := risk.Hit{Acct: &ra, Cross: true}
		if err := h.Rescan(mk); err != nil {
			return // a position without a mark: the next sweep retries
		}
		st, err := m.planStep(&h, mk, func(iid uint32) bool { return tried[iid] })
		if err != nil {
			return
		}
		switch st.Kind {
		case risk.StepClear:
			a.Liquidating = false
			m.adlTouch(a)
			return
		case risk.StepMarket:
			tried[st.IID] = true
			m.liqOrder(a, m.inst[st.IID], mk[st.IID], h.Equity, ts, ev)
		case risk.StepBackstop:
			m.backstop(a, mk, ts, ev)
		case risk.StepADL:
			if !m.deleverage(a, m.inst[st.IID], mk, h.Equity, ts, ev) {
				return // no counterparty left: the account stays flagged
			}
		default:
			return
		}
	}
}

// liqOrder sends the reduce-only IOC closing a's whole position in in,
// limited at its bankruptcy price.
func (m *Machine) liqOrder(a *Account, in *Instrument, mt *risk.Market, equity, ts int64, ev *Event) {
	p := a.Positions[in.ID]
	x, err := risk.BankruptcyPrice(&risk.Position{IID: in.ID, Size: p.Size, Cost: p.Cost}, mt, equity)
	if err != nil {
		return
	}
	x = min(max(x, 1), in.Ticks-1)
	o := &Order{OID: m.nextOID, IID: in.ID, Account: a.Addr, Buy: p.Size < 0, Ticks: x, Lots: abs(p.Size), TIF: "ioc",
		Reduce: true, Status: StOpen, Created: ts, Updated: ts}
	m.nextOID++
	m.orders[o.OID] = o
	a.Open[o.OID] = true
	m.liqOID = o.OID
	m.touch(o)
	bc := book.Command{Op: book.OpAdd, Time: ts * 1e6, Book: in.ID, OID: o.OID, Owner: a.ID, Price: o.Ticks,
		Qty: o.Lots, TIF: book.IOC, Flags: book.ReduceOnly}
	if !o.Buy {
		bc.Side = book.Sell
	}
	m.runBook(in, &bc, ts, ev)
	m.liqOID = 0
}

// backstop hands every position of a to the insurance fund at the mark
// (fills with oid 0 on a's side, flagged liq), then a's balance: what is
// left of its equity, or the deficit the fund absorbs.
func (m *Machine) backstop(a *Account, mk risk.Markets, ts int64, ev *Event) {
	for _, iid := range m.positionIDs(a) {
		in, p := m.inst[iid], a.Positions[iid]
		if p.Iso { // its own scope (isolated.go)
			continue
		}
		mark := mk[iid].Mark
		size := p.Size
		tid := m.nextTID
		m.nextTID++
		m.posFill(a, in, 0, size < 0, mark, abs(size), true, fkBackstop, tid, ts, ev)
		m.fundFill(in, size > 0, mark, abs(size))
	}
	moved := must(sub(a.Balance, isoAllocated(a))) // allocations stay with their positions
	a.Balance = must(sub(a.Balance, moved))
	m.auditCredit(a, -moved)
	m.insurance = must(add(m.insurance, moved))
}

// fundFill books a fill on the insurance fund's position in in; its pnl
// settles into the fund's balance.
func (m *Machine) fundFill(in *Instrument, buy bool, ticks, lots int64) {
	if m.fundPos == nil {
		m.fundPos = map[uint32]*Position{}
	}
	p := m.fundPos[in.ID]
	if p == nil {
		p = &Position{}
		m.fundPos[in.ID] = p
	}
	prev := p.Size
	pnl := applyPos(p, buy, ticks, lots)
	in.OpenInterest = satAdd(in.OpenInterest, max(p.Size, 0)-max(prev, 0))
	pnlMicro := must(tickLotsToMicro(pnl, in.PriceDecimals, in.QtyDecimals))
	p.Realized = must(add(p.Realized, pnlMicro))
	m.insurance = must(add(m.insurance, pnlMicro))
	if p.Size == 0 {
		delete(m.fundPos, in.ID)
	}
}

// deleverage closes a's position in in at its bankruptcy price against the
// ranked opposite positions; false when nothing could be closed.
func (m *Machine) deleverage(a *Account, in *Instrument, mk risk.Markets, equity, ts int64, ev *Event) bool {
	p := a.Positions[in.ID]
	closingLong := p.Size > 0
	x, err := risk.BankruptcyPrice(&risk.Position{IID: in.ID, Size: p.Size, Cost: p.Cost}, mk[in.ID], equity)
	if err != nil {
		return false
	}
	ranked, err := m.rankADL(in.ID, closingLong, a, mk)
	if err != nil || len(ranked) == 0 {
		return false
	}
	legs, _ := risk.ADLPlan(ranked, abs(p.Size), x, closingLong, nil)
	for _, l := range legs {
		c := m.byID[l.Acct.ID]
		tid := m.nextTID
		m.nextTID++
		m.posFill(a, in, 0, !closingLong, x, l.Lots, true, fkADLBankrupt, tid, ts, ev)
		m.posFill(c, in, 0, closingLong, x, l.Lots, false, fkADL, tid, ts, ev)
	}
	return len(legs) > 0
}

// rankADL ranks the positions in iid opposite to a closing position
// (closingLong: longs are closed, shorts are the candidates), best first;
// skip (the bankrupt account) and flagged accounts are left out.
func (m *Machine) rankADL(iid uint32, closingLong bool, skip *Account, mk risk.Markets) ([]risk.Ranked, error) {
	var views []risk.Account
	for aid := uint64(1); aid < m.nextAcct; aid++ {
		c := m.byID[aid]
		if c == nil || c == skip || c.Liquidating {
			continue
		}
		if cp := c.Positions[iid]; cp == nil || cp.Size == 0 || (cp.Size > 0) == closingLong {
			continue
		}
		var ra risk.Account
		m.viewInto(&ra, mk, c, 0, 0, nil)
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

// adlIndex is the portfolio's adl_index (0–3) of a's position in iid: its
// quarter in the deleveraging queue of its side (3: first to go), from the
// write path's cache (adlcache.go).
func (m *Machine) adlIndex(a *Account, iid uint32) int {
	if p := a.Positions[iid]; p == nil || p.Size == 0 || a.Liquidating {
		return 0
	}
	if r := m.adl.rank[iid]; r != nil {
		return r.bucket(a.ID)
	}
	return 0
}

// adlIndexSlow recomputes adlIndex from every account (the cache's
// reference in tests).
func (m *Machine) adlIndexSlow(a *Account, iid uint32) int {
	p := a.Positions[iid]
	if p == nil || p.Size == 0 || a.Liquidating {
		return 0
	}
	mk := risk.Markets{}
	in := m.inst[iid]
	mk[iid] = m.riskMarket(in)
	if mk[iid].Mark <= 0 {
		return 0
	}
	ranked, err := m.rankADL(iid, p.Size < 0, nil, m.allMarkets(mk))
	if err != nil {
		return 0
	}
	i := slices.IndexFunc(ranked, func(r risk.Ranked) bool { return r.Acct.ID == a.ID })
	return risk.ADLBucket(i, len(ranked))
}

// positionIDs lists a's instruments with an open position, ascending.
func (m *Machine) positionIDs(a *Account) []uint32 {
	var ids []uint32
	for iid, p := range a.Positions {
		if p.Size != 0 {
			ids = append(ids, iid)
		}
	}
	slices.Sort(ids)
	return ids
}

// applyPos books a fill on p and returns the realized pnl (tick×lot units):
// the closed part at price against its share of the cost; a flip opens the
// rest at price.
func applyPos(p *Position, buy bool, ticks, lots int64) int64 {
	signed := lots
	if !buy {
		signed = -lots
	}
	if p.Size == 0 || (p.Size > 0) == buy {
		p.Size = must(add(p.Size, signed))
		p.Cost = must(add(p.Cost, must(notional(ticks, lots))))
		return 0
	}
	var pnl int64
	closeQ := min(lots, abs(p.Size))
	removed := must(mulDiv(p.Cost, closeQ, abs(p.Size)))
	if p.Size > 0 {
		pnl = must(sub(must(notional(ticks, closeQ)), removed))
	} else {
		pnl = must(sub(removed, must(notional(ticks, closeQ))))
	}
	p.Cost -= removed
	if p.Size > 0 {
		p.Size -= closeQ
	} else {
		p.Size += closeQ
	}
	if rest := lots - closeQ; rest > 0 {
		p.Size = signed / lots * rest
		p.Cost = must(notional(ticks, rest))
	}
	if p.Size == 0 {
		p.Cost = 0
	}
	return pnl
}

// FundPosition is the insurance fund's position in iid (lots, signed; 0:
// none) and its cost (tick×lots).
func (m *Machine) FundPosition(iid uint32) (size, cost int64) {
	if p := m.fundPos[iid]; p != nil {
		return p.Size, p.Cost
	}
	return 0, 0
}
