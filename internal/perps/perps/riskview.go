package perps

import (
	"slices"

	"pmx/internal/perps/risk"
)

// The machine's view for the risk engine (internal/perps/risk,
// docs/perps-risk.md "Wiring"): accounts and markets mapped onto risk's types
// at call time, so the risk package stays pure and the machine's state
// keeps its own shape.
//
// A position is in the cross scope unless it holds its own isolated
// allocation (isolated.go): the collateral is Balance less the allocations.

// liqFeePPM is liquidation_fee ("0.025", perps.md §10).
const liqFeePPM = 25_000

// riskMarket is in with its mark, and the price band when in has an index
// (atfill.go).
func (m *Machine) riskMarket(in *Instrument) *risk.Market {
	mt := new(risk.Market)
	m.marketInto(mt, in)
	return mt
}

// marketInto sets *mt to in's risk.Market (riskMarket without the
// allocation).
func (m *Machine) marketInto(mt *risk.Market, in *Instrument) {
	*mt = risk.Market{
		Instrument: risk.Instrument{ID: in.ID, Grid: risk.Grid{PriceDecimals: in.PriceDecimals, QtyDecimals: in.QtyDecimals},
			MaxLeverage: in.MaxLeverage, LiqFeePPM: liqFeePPM},
		Mark: m.mark(in),
	}
	if in.IndexTicks > 0 {
		mt.BandPPM = bandPPM
	}
}

// riskScratch is preTrade's view, reused from order to order so the check
// of each order allocates nothing: the account's slices, the markets map
// and the markets it points to (the first n of ms are in use). Not state:
// every check rebuilds it from the accounts and instruments.
//
// Within one createOrders (keep set) the view is also reused from order to
// order of a batch while the account's state stays what it was (valid, for
// account acct and extra market iid): the orders of a batch share their
// account, and an order that ends without trading, resting or touching
// another order leaves nothing the view reads changed (keepView). mark0 is
// iid's mark as built: the stand-in of the last order (standIns) is undone
// before reuse. A view whose other markets lacked a mark is not kept.
type riskScratch struct {
	ra risk.Account
	mk risk.Markets
	ms []*risk.Market
	n  int

	keep, valid bool
	acct        *Account
	iid         uint32
	mark0       int64
}

// market is a scratch market for mk (nil s: a new one).
func (s *riskScratch) market() *risk.Market {
	if s == nil {
		return new(risk.Market)
	}
	if s.n == len(s.ms) {
		s.ms = append(s.ms, new(risk.Market))
	}
	mt := s.ms[s.n]
	s.n++
	return mt
}

// view is riskView into the scratch: valid until the next call.
func (s *riskScratch) view(m *Machine, a *Account, extra uint32) (*risk.Account, risk.Markets) {
	if s.valid && s.acct == a && s.iid == extra {
		s.mk[extra].Mark = s.mark0
		m.auditView(&s.ra, s.mk, a, extra)
		return &s.ra, s.mk
	}
	if s.mk == nil {
		s.mk = risk.Markets{}
	}
	for _, mt := range s.ms[:s.n] { // what the last view added (cheaper than clear, which reseeds the map)
		delete(s.mk, mt.ID)
	}
	s.n = 0
	m.viewInto(&s.ra, s.mk, a, extra, 0, s)
	s.valid, s.acct, s.iid = s.keep, a, extra
	if mt := s.mk[extra]; mt != nil {
		s.mark0 = mt.Mark
	} else {
		s.valid = false
	}
	for iid, mt := range s.mk {
		if mt.Mark <= 0 && iid != extra {
			s.valid = false // its stand-in depends on the order (standIns)
		}
	}
	return &s.ra, s.mk
}

// viewMark is what keepView compares before and after an order.
type viewMark struct {
	tid, seq   uint64
	open, rows int
	bal        int64
}

// viewMark takes in, the order's instrument (nil: none).
func (m *Machine) viewMark(a *Account, in *Instrument, ev *Event) viewMark {
	v := viewMark{tid: m.nextTID, open: len(a.Open), rows: len(ev.Orders), bal: a.Balance}
	if in != nil {
		v.seq = in.Sequence
	}
	return v
}

// keepView drops the batch's view unless the order just placed left the
// account and its markets as they were: no trade (positions, balance, last
// price), no book level changed (the mark's best prices), the open orders
// as many as before and at most one order row (its own: a removed resting
// order would add another).
func (m *Machine) keepView(before viewMark, a *Account, in *Instrument, ev *Event) {
	after := m.viewMark(a, in, ev)
	if after.rows > before.rows+1 || after.tid != before.tid || after.seq != before.seq ||
		after.open != before.open || after.bal != before.bal {
		m.rv.valid = false
	}
}

// mark is in's mark price in ticks (risk.MarkPrice: the index, the book and
// the last trade with their fallbacks); 0 when nothing gives one.
func (m *Machine) mark(in *Instrument) int64 {
	mi := risk.MarkInputs{Index: in.IndexTicks, Last: in.LastTicks, Premium: in.Premium.Average(), Samples: in.Premium.N}
	if in.book != nil {
		mi.BestBid, _, _ = in.book.BestBid()
		mi.BestAsk, _, _ = in.book.BestAsk()
	}
	return risk.MarkPrice(mi)
}

// riskView maps a onto a risk.Account with the markets of every instrument
// it has a position or an order in, plus extra (0: none). Positions, orders
// and settings are in id order, so the view is deterministic.
func (m *Machine) riskView(a *Account, extra uint32) (risk.Account, risk.Markets) {
	return m.riskViewSkip(a, extra, 0)
}

// riskViewSkip is riskView without the open order skip (0: none).
func (m *Machine) riskViewSkip(a *Account, extra uint32, skip uint64) (risk.Account, risk.Markets) {
	var ra risk.Account
	mk := risk.Markets{}
	m.viewInto(&ra, mk, a, extra, skip, nil)
	return ra, mk
}

// viewInto fills ra (reusing its slices) with a's view and adds to mk the
// markets it needs that mk does not hold yet (the sweep passes every market
// at once). New markets come from s (nil: allocated).
func (m *Machine) viewInto(ra *risk.Account, mk risk.Markets, a *Account, extra uint32, skip uint64, s *riskScratch) {
	*ra = risk.Account{ID: a.ID, Collateral: a.Balance, Liquidating: a.Liquidating,
		Positions: ra.Positions[:0], Orders: ra.Orders[:0], Settings: ra.Settings[:0]}
	if extra != 0 {
		m.needMarket(ra, mk, a, extra, isoCross(a, extra), s)
	}
	m.positionsInto(ra, mk, a, s)
	if len(a.Open) == 0 {
		return
	}
	for _, oid := range m.sortedOpen(a) {
		o := m.orders[oid]
		if o.Reduce || o.Risk || oid == skip { // reduce-only orders add no exposure; orders awaiting checks reserve nothing
			continue
		}
		m.needMarket(ra, mk, a, o.IID, true, s) // an instrument with an isolated position has its setting already
		ra.Orders = append(ra.Orders, risk.Order{IID: o.IID, Buy: o.Buy, Ticks: o.Ticks, Lots: o.Lots - o.Filled})
	}
}

// positionsInto adds a's positions (in id order), their settings and
// markets to ra, and sets its collateral. Alone (ra's slices emptied
// first), it is the view of a's positions without its orders: all that an
// equity or an adl score reads.
func (m *Machine) positionsInto(ra *risk.Account, mk risk.Markets, a *Account, s *riskScratch) {
	var buf [8]uint32
	iids := buf[:0]
	var alloc int64 // isolated allocations (isolated.go) are not collateral
	for iid, p := range a.Positions {
		if p.Size != 0 {
			iids = append(iids, iid)
		}
		if p.Iso {
			alloc = must(add(alloc, p.Margin))
		}
	}
	ra.Collateral = must(sub(a.Balance, alloc))
	slices.Sort(iids)
	for _, iid := range iids {
		p := a.Positions[iid]
		m.needMarket(ra, mk, a, iid, !p.Iso, s)
		ra.Positions = append(ra.Positions, risk.Position{IID: iid, Size: p.Size, Cost: p.Cost, Margin: p.Margin, Liquidating: p.Liq})
	}
}

// needMarket adds iid's setting to ra (unless it has one) and its market
// to mk (unless mk has it; new markets from s, nil: allocated).
func (m *Machine) needMarket(ra *risk.Account, mk risk.Markets, a *Account, iid uint32, cross bool, s *riskScratch) {
	for _, st := range ra.Settings {
		if st.IID == iid {
			return
		}
	}
	in := m.inst[iid]
	if in == nil {
		return
	}
	if mk[iid] == nil {
		mt := s.market()
		m.marketInto(mt, in)
		mk[iid] = mt
	}
	ra.Settings = append(ra.Settings, risk.Setting{IID: iid, Lev: m.leverage(a, in), Cross: cross})
}

// preTrade is the pre-trade check (docs/perps-risk.md "Pre-trade margin"):
// risk.CheckScope for every order (a flagged account places nothing), then
// risk.CheckOrder for orders that are not reduce-only, at the mark.
//
// Without a mark (no index, no two-sided book, no trade yet) the order is
// margined at a stand-in: its own limit price, or for a market order the
// opposite best. A market order with neither cannot fill, so it has nothing
// to margin. This keeps a venue without an index feed tradable; with an
// index the mark always exists.
func (m *Machine) preTrade(a *Account, in *Instrument, buy bool, ticks, lots int64, reduce bool) string {
	ra, mk := m.rv.view(m, a, in.ID)
	if err := risk.CheckScope(ra, in.ID); err != nil {
		return err.Error()
	}
	if reduce {
		return ""
	}
	if !m.standIns(a, mk, in, buy, ticks) {
		return ""
	}
	if err := risk.CheckOrder(ra, mk, risk.Order{IID: in.ID, Buy: buy, Ticks: ticks, Lots: lots}); err != nil {
		return err.Error()
	}
	return ""
}

// standIns gives every market of mk without a mark a stand-in price (see
// preTrade); false when in itself has none (nothing can fill).
func (m *Machine) standIns(a *Account, mk risk.Markets, in *Instrument, buy bool, ticks int64) bool {
	mt := mk[in.ID]
	if mt.Mark <= 0 {
		mt.Mark = ticks
		if ticks == 0 {
			if buy {
				mt.Mark, _, _ = in.book.BestAsk()
			} else {
				mt.Mark, _, _ = in.book.BestBid()
			}
		}
		if mt.Mark <= 0 {
			return false
		}
	}
	if len(mk) == 1 { // in alone
		return true
	}
	for iid, other := range mk { // other markets without a mark: their orders' own prices stand in
		if other.Mark <= 0 && iid != in.ID {
			other.Mark = m.standIn(a, iid)
		}
	}
	return true
}

// modifyMargin checks a modify of o to (ticks, lots): refused
// (insufficient_margin) when it leaves the account's available margin
// negative and lower than the order as it stands does. A modify that shrinks
// the order or moves it away from the mark is therefore always allowed, in a
// margin call too.
func (m *Machine) modifyMargin(o *Order, ticks, lots int64) string {
	if o.Reduce {
		return ""
	}
	a := m.accts[o.Account]
	in := m.inst[o.IID]
	ra, mk := m.riskViewSkip(a, in.ID, o.OID)
	if !m.standIns(a, mk, in, o.Buy, ticks) {
		return ""
	}
	was, err := risk.Available(&ra, mk, &risk.Order{IID: in.ID, Buy: o.Buy, Ticks: o.Ticks, Lots: o.Lots - o.Filled})
	if err != nil {
		return risk.ErrInsufficientMargin.Error()
	}
	now, err := risk.Available(&ra, mk, &risk.Order{IID: in.ID, Buy: o.Buy, Ticks: ticks, Lots: lots - o.Filled})
	if err != nil || (now < 0 && now < was) {
		return risk.ErrInsufficientMargin.Error()
	}
	return ""
}

// standIn is a price for an instrument without a mark: the account's
// position entry, else its first open order's price (1 tick at least).
func (m *Machine) standIn(a *Account, iid uint32) int64 {
	if p := a.Positions[iid]; p != nil && p.Size != 0 {
		return max(p.Cost/abs(p.Size), 1)
	}
	for _, oid := range m.sortedOpen(a) {
		if o := m.orders[oid]; o.IID == iid && o.Ticks > 0 {
			return o.Ticks
		}
	}
	return 1
}
