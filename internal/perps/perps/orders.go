package perps

import (
	"errors"
	"slices"

	"pmx/internal/exchange/book"
	"pmx/internal/exchange/fixed"
)

// Placement errors named by the contract that are not fixed's parse errors.
var (
	ErrFOKPostOnly   = errors.New("FOK orders cannot be post-only")
	ErrIOCPostOnly   = errors.New("IOC orders cannot be post-only")
	ErrGTCNeedsPrice = errors.New("GTC orders require a price")
	ErrCOIDZero      = errors.New("client order id cannot be all zeros")
)

// RiskCheck is the pre-trade margin hook: it returns "" to accept an order or
// the rejection identifier (the risk engine's, riskview.go).
func (m *Machine) RiskCheck(a *Account, in *Instrument, buy bool, ticks, lots int64, reduce bool) string {
	return m.preTrade(a, in, buy, ticks, lots, reduce)
}

func (m *Machine) leverage(a *Account, in *Instrument) int64 {
	if l := a.Leverage[in.ID]; l > 0 {
		return l
	}
	return in.MaxLeverage
}

// usedMargin is the initial margin of the account's positions (at entry) and
// open non-reduce-only orders (in flight included, awaiting risk checks not).
// ok is false if the sum does not fit (non-negative terms: map order does
// not matter).
func (m *Machine) usedMargin(a *Account) (int64, bool) {
	var used int64
	for iid, p := range a.Positions {
		in := m.inst[iid]
		v, ok := tickLotsToMicro(p.Cost, in.PriceDecimals, in.QtyDecimals)
		if used, ok = add(used, v/m.leverage(a, in)); !ok {
			return 0, false
		}
	}
	for oid := range a.Open {
		o := m.orders[oid]
		if o.Reduce || o.Risk {
			continue
		}
		in := m.inst[o.IID]
		v, ok := valueMicro(in, o.Ticks, o.Lots-o.Filled)
		if !ok {
			return 0, false
		}
		if used, ok = add(used, v/m.leverage(a, in)); !ok {
			return 0, false
		}
	}
	return used, true
}

func (m *Machine) createOrders(c *Command, ts int64, ev *Event) {
	a := m.accts[c.Account]
	if a == nil {
		ev.Err = "account not found for proxy"
		return
	}
	if m.mode == ModeCancelOnly {
		ev.Err, ev.RetryAfter = ErrCancelOnlyMode, m.modeRetry
		return
	}
	ev.Acks = make([]Ack, 0, len(c.Orders))
	if hasTPSL(c.Orders) {
		m.placeTPSL(a, c.Orders, ts, ev) // tpsl.go
		return
	}
	ev.Orders = slices.Grow(ev.Orders, len(c.Orders)) // most orders add an update: grow once, not per order
	refused := 0
	m.rv.keep, m.rv.valid = true, false // one risk view for the batch while it holds (riskview.go)
	m.bs.begin(a, c.Orders)
	defer func() { m.rv.keep, m.rv.valid = false, false; m.bs.end() }()
	for i := range c.Orders {
		r := &c.Orders[i]
		if m.mode == ModePostOnly && !r.PO {
			ev.Acks = append(ev.Acks, Ack{Status: "err", Error: ErrPostOnlyMode, COID: r.C})
			refused++
			continue
		}
		if r.P != nil {
			m.reqP = *r.P // the order's row may show the request's own price string (priceString)
		}
		in := m.inst[r.IID] // nil: place refuses the order
		vm := m.viewMark(a, in, ev)
		ack := m.place(a, r, in, ts, ev)
		m.reqP, m.reqIID, m.reqTicks = "", 0, 0
		putAck(ev, ack)
		m.keepView(vm, a, in, ev)
		if ack.Status == "ok" && ack.COID != "" && len(m.ccs.pend) > 0 {
			m.rv.valid = false
			m.coidCreated(a, ack.COID, ts, ev)
		}
	}
	if refused == len(c.Orders) && refused > 0 { // nothing the mode allows: the whole request is refused
		ev.Acks, ev.Err, ev.RetryAfter = nil, ErrPostOnlyMode, m.modeRetry
	}
}

// putAck appends ack to ev's acks (made with room for the batch) field by
// field: an append copies the struct with its write barriers in bulk.
func putAck(ev *Event, ack Ack) {
	n := len(ev.Acks)
	if n == cap(ev.Acks) {
		ev.Acks = append(ev.Acks, ack)
		return
	}
	ev.Acks = ev.Acks[:n+1]
	p := &ev.Acks[n]
	p.Status, p.OID, p.COID, p.Error = ack.Status, ack.OID, ack.COID, ack.Error
}

// place places r for a; in is m.inst[r.IID] (nil: none).
func (m *Machine) place(a *Account, r *OrderReq, in *Instrument, ts int64, ev *Event) Ack {
	bad := func(e string) Ack { return Ack{Status: "err", Error: e, COID: r.C} }
	tif := "gtc"
	if r.TIF != nil {
		tif = *r.TIF
	}
	switch tif {
	case "gtc", "ioc", "fok":
	default:
		return bad("invalid_command")
	}
	if r.PO && tif == "fok" {
		return bad(ErrFOKPostOnly.Error())
	}
	if r.PO && tif == "ioc" {
		return bad(ErrIOCPostOnly.Error())
	}
	if r.P == nil && tif == "gtc" {
		return bad(ErrGTCNeedsPrice.Error())
	}
	if r.C != "" {
		if r.C == "00000000000000000000000000000000" {
			return bad(ErrCOIDZero.Error())
		}
		if !isCOID(r.C) {
			return bad("invalid client order id")
		}
	}
	if r.TR {
		return bad("invalid_command") // TP/SL legs go through placeTPSL
	}
	if in == nil {
		return bad("instrument_not_found")
	}
	g := in.grid()
	var ticks int64
	if r.P != nil {
		p, plain := plainPrice(g, *r.P) // wire.go: the usual price in one pass
		if plain {
			auditPlainPrice(g, *r.P, p)
		} else {
			pp, err := g.ParsePrice(*r.P)
			if err != nil {
				return bad(priceErr(err))
			}
			p = int64(pp)
		}
		if p >= in.Ticks {
			return bad("price_outside_bounds")
		}
		ticks = p
		if plain && *r.P == m.reqP { // canonical: the row may share the string (priceString)
			m.reqIID, m.reqTicks = in.ID, ticks
		}
	}
	q, err := m.parseQty(g, in.ID, r.Qty)
	if err != nil {
		return bad(qtyErr(err))
	}
	lots := int64(q)
	if lots > book.MaxQty {
		return bad("invalid_command")
	}
	if r.C != "" {
		if _, dup := a.COIDs[r.C]; dup {
			return bad("duplicate_order")
		}
	}
	if in.Settled {
		return bad(ErrSettled)
	}
	if in.CloseOnly && !r.RO {
		return bad("instrument_close_only")
	}
	if len(a.Open) >= m.cfg.MaxOpenOrders {
		return bad("open_orders_limit")
	}
	if w, ok := worst(in, lots); !ok || !m.fits(a, w, 0) {
		return bad(ErrValueRange)
	}
	if m.fl.RiskMs == 0 { // else the order awaits its risk checks (inflight.go)
		if e := m.RiskCheck(a, in, r.Buy, ticks, lots, r.RO); e != "" {
			return bad(e)
		}
	}
	quick := m.fl.RiskMs == 0 && m.fl.AcceptMs == 0 && m.newLegs == nil && m.uncrossedIOC(in, tif, r.Buy, ticks, r.RO)
	o := m.newOrder(tif) // zero: the fields are set one by one (no copy of a whole Order into the slab)
	o.OID, o.IID, o.Account, o.Buy, o.Ticks, o.Lots, o.TIF = m.nextOID, in.ID, a.Addr, r.Buy, ticks, lots, tif
	o.PostOnly, o.Reduce, o.COID, o.Status, o.Created, o.Updated = r.PO, r.RO, r.C, StOpen, ts, ts
	m.nextOID++
	m.orders[o.OID] = o
	if !quick { // a quick IOC ends in this call (expireUncrossed): it is never seen open
		a.Open[o.OID] = true
	}
	if o.COID != "" {
		a.COIDs[o.COID] = o.OID
	}
	if m.newLegs != nil { // a bracket's entry (tpsl.go)
		m.attachLegs(a, o, ts)
		m.newLegs = nil
	}
	ack := Ack{Status: "ok", OID: o.OID, COID: o.COID}
	if ticks > 0 && in.MinNotional > 0 && must(valueMicro(in, ticks, lots)) < in.MinNotional {
		m.finish(o, StBelowMin, ts)
		m.touch(o)
		m.flush(ev)
		return ack
	}
	if m.fl.RiskMs > 0 {
		o.Due, o.Risk = ts+m.fl.RiskMs, true
		m.pend = append(m.pend, o.OID)
		m.touch(o)
		m.flush(ev)
		return ack
	}
	if quick {
		m.expireUncrossed(in, o, ts, ev)
		return ack
	}
	if m.pendingEntry(in, o, ts) {
		m.touch(o)
		m.flush(ev)
		return ack
	}
	m.enter(in, o, ts, ev)
	return ack
}

// enter puts o into its book (matching as a taker first), after the price
// band and the at-fill check (atfill.go).
func (m *Machine) enter(in *Instrument, o *Order, ts int64, ev *Event) {
	bc := book.Command{Op: book.OpAdd, Time: ts * 1e6, Book: in.ID, OID: o.OID, Owner: m.acctOf(o.Account).ID,
		Price: o.Ticks, Qty: o.Lots}
	if o.Ticks == 0 {
		bc.Price = m.bandEdge(in, o.Buy) // 0: no band, a plain market order
	}
	st := m.atFill(in, o, bc.Price)
	switch { // retirement while the order was in flight (retire.go)
	case in.Settled:
		st = StSettled
	case in.CloseOnly && !o.Reduce:
		st = StCloseOnly
	}
	if st != "" {
		m.finish(o, st, ts)
		m.touch(o)
		m.flush(ev)
		return
	}
	if !o.Buy {
		bc.Side = book.Sell
	}
	switch o.TIF {
	case "ioc":
		bc.TIF = book.IOC
	case "fok":
		bc.TIF = book.FOK
	}
	if o.PostOnly {
		bc.Flags |= book.PostOnly
	}
	if o.Reduce {
		bc.Flags |= book.ReduceOnly
	}
	if bc.Price == 0 {
		bc.Flags |= book.Market
	}
	m.touch(o)
	m.runBook(in, &bc, ts, ev)
}

func priceErr(err error) string {
	switch err {
	case fixed.ErrPriceZero, fixed.ErrPriceDecimals, fixed.ErrPriceSigFigs:
		return err.Error()
	}
	return "invalid price"
}

func qtyErr(err error) string {
	switch err {
	case fixed.ErrQtyNonPositive, fixed.ErrQtyDecimals, fixed.ErrQtySigFigs:
		return err.Error()
	}
	return "invalid quantity"
}

func (m *Machine) touch(o *Order) {
	for _, t := range m.touched {
		if t == o {
			return
		}
	}
	m.touched = append(m.touched, o)
}

// flush appends the touched orders' current state to ev.
func (m *Machine) flush(ev *Event) {
	for _, o := range m.touched {
		n := len(ev.Orders)
		ev.Orders = slices.Grow(ev.Orders, 1)[:n+1]
		m.putOrderWire(&ev.Orders[n], o)
	}
	m.touched = m.touched[:0]
}

// finish makes o terminal with status st and releases its coid.
func (m *Machine) finish(o *Order, st string, ts int64) {
	if o.Terminal {
		return
	}
	if st == StCancelled && m.cancelSt != "" { // a cancel on the engine's behalf (autocancel.go)
		st = m.cancelSt
	}
	o.Terminal, o.Status, o.Updated = true, st, ts
	a := m.acctOf(o.Account)
	delete(a.Open, o.OID)
	if o.COID != "" && a.COIDs[o.COID] == o.OID {
		delete(a.COIDs, o.COID)
	}
	a.History = append(a.History, o.OID)
	if len(o.Legs) > 0 { // a bracket's entry ended (tpsl.go)
		m.parentDone(o, ts)
	}
	if len(a.History) > 2*maxHistory {
		for _, old := range a.History[:len(a.History)-maxHistory] {
			delete(m.orders, old)
		}
		a.History = append(a.History[:0], a.History[len(a.History)-maxHistory:]...) // in place: no reader keeps the slice
	}
}

// runBook applies one book command and turns its events into order, fill and
// position changes.
func (m *Machine) runBook(in *Instrument, bc *book.Command, ts int64, ev *Event) {
	m.cur = in.ID
	m.bev = in.book.Apply(bc, m.bev[:0])
	m.levelsChanged(in, ts, ev)
	for i := range m.bev {
		e := &m.bev[i]
		o := m.orders[e.OID]
		switch e.Kind {
		case book.EvAccepted:
			if o != nil && e.Qty < o.Lots { // reduce-only cap
				o.Lots = e.Qty
			}
		case book.EvTrade:
			m.trade(in, e, ts, ev)
		case book.EvCancelled:
			if o != nil {
				st := StCancelled
				if e.Reason == book.ReasonSTP {
					st = StSTP
				}
				m.finish(o, st, ts)
				m.touch(o)
			}
		case book.EvExpired:
			if o != nil {
				st := StIOCNoFill
				switch {
				case e.Reason == book.ReasonSTP:
					st = StSTP
				case o.Filled > 0:
					st = StIOCExpired
				}
				m.finish(o, st, ts)
				m.touch(o)
			}
		case book.EvRejected:
			if o != nil && bc.Op == book.OpAdd {
				st := "rejected"
				switch e.Reason {
				case book.ReasonPostOnlyCross:
					st = StPostOnly
				case book.ReasonFOKUnfilled:
					st = StFOKUnfilled
				case book.ReasonReduceOnly:
					st = StReduceInvalid
				}
				m.finish(o, st, ts)
				m.touch(o)
			}
		case book.EvLevel:
			in.Sequence++
		}
	}
	m.flush(ev)
}

func (m *Machine) trade(in *Instrument, e *book.Event, ts int64, ev *Event) {
	tid := m.nextTID
	m.nextTID++
	taker, maker := m.orders[e.OID], m.orders[e.Maker]
	buy := e.Side == book.Buy
	in.LastTicks = e.Price
	in.Trades = append(in.Trades, Trade{ID: tid, Buy: buy, Ticks: e.Price, Lots: e.Qty, TS: ts})
	if len(in.Trades) > 2*maxTrades {
		in.Trades = append([]Trade(nil), in.Trades[len(in.Trades)-maxTrades:]...)
	}
	in.candle(ts, e.Price, e.Qty)
	g := in.grid()
	ev.Trades = append(ev.Trades, PublicTrade{TradeID: tid, ID: in.ID, Side: side(buy), Price: g.FormatPrice(fixedPrice(e.Price)),
		Quantity: g.FormatQty(fixedQty(e.Qty)), Timestamp: ts, Hash: "0x"})
	m.fill(in, taker, buy, e.Price, e.Qty, true, tid, ts, ev)
	m.fill(in, maker, !buy, e.Price, e.Qty, false, tid, ts, ev)
}

func (in *Instrument) candle(ts, p, q int64) {
	t := ts - ts%60000
	if n := len(in.Candles); n > 0 && in.Candles[n-1].Open == t {
		c := &in.Candles[n-1]
		c.H, c.L, c.C = max(c.H, p), min(c.L, p), p
		c.Volume = satAdd(c.Volume, q)
		c.Count++
		return
	}
	in.Candles = append(in.Candles, Candle{Open: t, O: p, H: p, L: p, C: p, Volume: q, Count: 1})
	if len(in.Candles) > 2*maxCandles {
		in.Candles = append([]Candle(nil), in.Candles[len(in.Candles)-maxCandles:]...)
	}
}

// fill books one side of a trade: order progress, position, realized pnl,
// fee, volume and the fill record.
func (m *Machine) fill(in *Instrument, o *Order, buy bool, ticks, lots int64, taker bool, tid uint64, ts int64, ev *Event) {
	a := m.accts[o.Account]
	o.Filled += lots
	o.Updated = ts
	if o.Filled >= o.Lots {
		m.finish(o, StFilled, ts)
	} else if !o.Terminal {
		o.Status = StPartial
	}
	m.touch(o)

	kind := fkTrade
	if taker && o.OID == m.liqOID {
		kind = fkLiq
	}
	m.posFill(a, in, o.OID, buy, ticks, lots, taker, kind, tid, ts, ev)
}

// posFill books one side of a fill on a's position (liqexec.go: liquidation,
// backstop and ADL fills have no order, oid 0, or their own fees).
func (m *Machine) posFill(a *Account, in *Instrument, oid uint64, buy bool, ticks, lots int64, taker bool, kind fillKind, tid uint64, ts int64, ev *Event) {
	p := a.Positions[in.ID]
	if p == nil {
		p = &Position{}
		a.Positions[in.ID] = p
	}
	prevSize, prevCost := p.Size, p.Cost
	// Checked throughout; the exposure bound (exposure.go) that every
	// order passed guarantees each result fits, so must never fires.
	pnl := applyPos(p, buy, ticks, lots) // tick×lot units
	in.OpenInterest = satAdd(in.OpenInterest, max(p.Size, 0)-max(prevSize, 0))
	m.posMoved(a, in.ID) // TP/SL closure checks, the adl_index cache (adlcache.go)
	pnlMicro := must(tickLotsToMicro(pnl, in.PriceDecimals, in.QtyDecimals))
	nMicro := must(valueMicro(in, ticks, lots))
	ppm := m.cfg.MakerPPM
	if taker {
		ppm = m.cfg.TakerPPM
	}
	p.Realized = must(add(p.Realized, pnlMicro))
	a.Balance = must(add(a.Balance, pnlMicro))
	isoPnL(p, pnlMicro)
	f, toFund := must(fee(nMicro, ppm)), int64(0)
	if kind != fkTrade {
		f, toFund = m.liqFees(a, in.ID, nMicro, kind)
	}
	a.Balance = must(sub(a.Balance, f))
	m.isoFilled(a, in, p, prevSize, ticks, kind, f)
	m.insurance = must(add(m.insurance, toFund))
	m.auditCredit(a, pnlMicro-f)
	m.booked(a, ts, pnlMicro-f)
	// The referrer shares the venue's fee only, never the insurance
	// fund's share of a liquidation fee.
	m.referralFee(a, f-toFund, nMicro, ts)
	if p.Size == 0 && p.Realized == 0 {
		delete(a.Positions, in.ID)
	}
	day := ts / 86400000
	if n := len(a.Volume); n == 0 || a.Volume[n-1].Day != day {
		a.Volume = append(a.Volume, VolumeDay{Day: day})
		if len(a.Volume) > 8 {
			a.Volume = append([]VolumeDay(nil), a.Volume[len(a.Volume)-8:]...)
		}
	}
	if d := &a.Volume[len(a.Volume)-1]; taker {
		d.Taker = satAdd(d.Taker, nMicro)
	} else {
		d.Maker = satAdd(d.Maker, nMicro)
	}
	fl := Fill{TID: tid, OID: oid, IID: in.ID, Buy: buy, Ticks: ticks, Lots: lots, Taker: taker, Fee: f,
		PrevSize: prevSize, PrevCost: prevCost, PnL: pnlMicro, TS: ts, Liq: kind.liq(), ADL: kind.adl(), ToFund: toFund}
	a.Fills = append(a.Fills, fl)
	if len(a.Fills) > 2*maxHistory {
		a.Fills = append([]Fill(nil), a.Fills[len(a.Fills)-maxHistory:]...)
	}
	ev.Fills = append(ev.Fills, AccountFill{Account: a.Addr, Fill: m.fillWire(&fl)})
}

// levelsChanged adds the instrument's BBO to ev when the last book command
// changed any level.
func (m *Machine) levelsChanged(in *Instrument, ts int64, ev *Event) {
	for i := range m.bev {
		if m.bev[i].Kind == book.EvLevel {
			for _, b := range ev.BBOs {
				if b.ID == in.ID {
					return
				}
			}
			ev.BBOs = append(ev.BBOs, BBO{ID: in.ID, Timestamp: ts})
			return
		}
	}
}

// finishBBOs fills in ev's BBO rows from the books as the command left them.
func (m *Machine) finishBBOs(ev *Event) {
	for i := range ev.BBOs {
		b := &ev.BBOs[i]
		in := m.inst[b.ID]
		g := in.grid()
		if p, q, ok := in.book.BestBid(); ok {
			b.BidPrice, b.BidQty = g.FormatPrice(fixedPrice(p)), g.FormatQty(fixedQty(q))
		}
		if p, q, ok := in.book.BestAsk(); ok {
			b.AskPrice, b.AskQty = g.FormatPrice(fixedPrice(p)), g.FormatQty(fixedQty(q))
		}
	}
}
