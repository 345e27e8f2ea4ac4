package clobengine

import (
	"slices"

	"pmx/internal/amount"
	"pmx/internal/clob/clob"
	"pmx/internal/exchange/book"
)

// Order statuses (the Rust SDK's spellings).
const (
	StatusLive     = "LIVE"
	StatusMatched  = "MATCHED"
	StatusCanceled = "CANCELED"
	StatusDelayed  = "DELAYED"
	StatusExpired  = "CANCELED" // a GTD order past its expiration
)

// Order is a signed order the machine accepted. Price is the limit in the
// order's own token (ticks); Orig and Filled are micro-shares; Resv is what
// the remainder holds (collateral units for a BUY, micro-shares for a SELL).
type Order struct {
	OID        uint64   `json:"oid"`
	Hash       string   `json:"hash"`
	Mkt        uint32   `json:"mkt"`
	Outcome    uint8    `json:"outcome"`
	Token      string   `json:"token"`
	Side       uint8    `json:"side"`
	Price      int64    `json:"price"`
	Orig       int64    `json:"orig"`
	Filled     int64    `json:"filled"`
	Type       string   `json:"type"`
	PostOnly   bool     `json:"post_only,omitempty"`
	Maker      string   `json:"maker"`
	Signer     string   `json:"signer"`
	APIKey     string   `json:"key"`
	Expiration int64    `json:"exp,omitempty"`
	Created    int64    `json:"created"` // ms
	Resv       int64    `json:"resv"`
	FeeBps     int64    `json:"fee_bps,omitempty"`
	Status     string   `json:"status"`
	Trades     []string `json:"trades,omitempty"`
	Due        int64    `json:"due,omitempty"` // delayed: ms when it reaches the book
	Builder    string   `json:"builder,omitempty"`
	Code       string   `json:"code,omitempty"` // the V2 order's builder field (0x + 64 hex), when not zero
}

// SideName is "BUY" or "SELL".
func SideName(s uint8) string {
	if s == 0 {
		return "BUY"
	}
	return "SELL"
}

// ownPrice maps a book (YES-terms) price to outcome's own terms.
func ownPrice(bp, ticks int64, outcome uint8) int64 {
	if outcome == 1 {
		return ticks - bp
	}
	return bp
}

// feeOn is the taker fee of q micro-shares at own price p (units):
// bps/10^4 × min(p, 1-p) × q, floored, computed without overflow.
func feeOn(q, p, bps int64, mk *Market) int64 {
	if bps == 0 {
		return 0
	}
	x := q * min(p, mk.Ticks-p) * mk.upt // ≤ 2^40 · 10^4
	return x/10_000*bps + x%10_000*bps/10_000
}

// resvFor is what a BUY remainder of rem at limit p holds: its cost plus
// the largest taker fee it could pay (the fee peaks at a price of 0.5).
func resvFor(rem, p, bps int64, mk *Market) int64 {
	x := rem * min(p, mk.Ticks/2) * mk.upt
	return rem*p*mk.upt + x/10_000*bps + x%10_000*bps/10_000
}

func (m *Machine) place(ts int64, in []OrderInput) Result {
	r := Result{Orders: make([]PlaceResult, 0, len(in))}
	for i := range in {
		r.Orders = append(r.Orders, m.placeOne(ts, &in[i]))
	}
	return r
}

// check applies every state rule to an order before it reaches the book
// and returns the order to enter, or the catalogue error.
func (m *Machine) check(ts int64, in *OrderInput) (*Order, *clob.Error) {
	switch {
	case m.mode == ModeHalted:
		return nil, clob.E(clob.ErrTradingDisabled)
	case m.mode == ModeCancelOnly:
		return nil, clob.E(clob.ErrCancelOnly)
	case m.mode == ModePostOnly && !in.PostOnly:
		e := clob.E(clob.ErrPostOnlyMode)
		e.RetryAfter, e.Tag = m.retry, "post_only_mode"
		return nil, e
	}
	ref, ok := m.byToken[in.Token]
	if !ok {
		return nil, clob.E(clob.ErrInvalidOrderPayload)
	}
	mk := m.markets[ref.mkt]
	if !mk.Accepting || mk.Closed || !mk.Active {
		return nil, clob.E(clob.ErrMarketNotReady)
	}
	for _, a := range []string{in.Maker, in.Signer} {
		switch m.status[a] {
		case StatusBanned:
			return nil, clob.E(clob.ErrAddressBanned, a)
		case StatusClosedOnly:
			if in.Side == 0 {
				return nil, clob.E(clob.ErrClosedOnly, a)
			}
		}
	}
	if in.Maker != in.Signer && m.binding[in.Maker] != in.Signer {
		// A maker other than the signer must be a wallet the operator tied
		// to this signer (deposit with a signer), never a free-for-all.
		return nil, clob.E(clob.ErrSignerMismatch)
	}
	if in.Version == 1 && (in.NonceHuge || in.Nonce != m.nonce[in.Maker]) {
		return nil, clob.E(clob.ErrNonceCanceled)
	}
	if in.Version == 2 && in.Stamp <= m.nonceTS[in.Maker] {
		return nil, clob.E(clob.ErrNonceCanceled)
	}
	if _, dup := m.byHash[in.Hash]; dup {
		return nil, clob.E(clob.ErrDuplicated, in.Hash)
	}
	switch in.Type {
	case "GTC", "GTD":
	case "FOK", "FAK":
		if in.PostOnly {
			return nil, clob.E(clob.ErrInvalidOrderPayload)
		}
	default:
		return nil, clob.E(clob.ErrInvalidOrderPayload)
	}
	if in.Type == "GTD" {
		if in.Expiration <= 0 || in.Expiration > 1<<40 || in.Expiration*1000 < ts+60_000 {
			return nil, clob.E(clob.ErrInvalidExpiration)
		}
	} else if in.Expiration != 0 {
		return nil, clob.E(clob.ErrInvalidExpiration)
	}
	size, coll := in.TakerAmt, in.MakerAmt
	if in.Side == 1 {
		size, coll = in.MakerAmt, in.TakerAmt
	}
	if size <= 0 || coll <= 0 || size > book.MaxQty || coll > size || in.FeeBps < 0 {
		return nil, clob.E(clob.ErrInvalidOrderPayload)
	}
	if in.Version == 1 && in.FeeBps < mk.TakerFeeBps {
		return nil, clob.E(clob.ErrInvalidOrderPayload)
	}
	g := mk.GridTicks() // the public grid; prices are kept on mk.Ticks, a multiple of it
	num := coll * g
	p := num / size
	if num%size != 0 {
		if in.Type == "GTC" || in.Type == "GTD" {
			return nil, clob.E(clob.ErrTickSize, in.Hash, amount.Micro(coll*1_000_000/size).String(), clob.TickSize(g))
		}
		if in.Side == 1 { // a market SELL's worst acceptable price rounds up
			p++
		}
	}
	if p <= 0 || p >= g {
		return nil, clob.E(clob.ErrTickSize, in.Hash, amount.Micro(coll*1_000_000/size).String(), clob.TickSize(g))
	}
	p *= mk.Ticks / g
	if amount.Micro(size) < mk.MinSize {
		return nil, clob.E(clob.ErrMinSize, in.Hash, amount.Micro(size).String(), mk.MinSize.String())
	}
	o := &Order{OID: m.nextOID, Hash: in.Hash, Mkt: mk.ID, Outcome: ref.outcome, Token: in.Token, Side: in.Side,
		Price: p, Orig: size, Type: in.Type, PostOnly: in.PostOnly, Maker: in.Maker, Signer: in.Signer,
		APIKey: in.APIKey, Expiration: in.Expiration, Created: ts, FeeBps: mk.TakerFeeBps, Status: StatusLive,
		Builder: in.Builder, Code: in.Code}
	// Look up without creating: a refused order must leave no state behind
	// (memory stays bounded under a spray of unknown makers).
	a := m.accts[in.Maker]
	if a == nil {
		return nil, clob.E(clob.ErrNotEnoughBalance)
	}
	if o.Side == 0 {
		o.Resv = resvFor(size, p, o.FeeBps, mk)
		if a.Coll < o.Resv {
			return nil, clob.E(clob.ErrNotEnoughBalance)
		}
	} else {
		o.Resv = size
		if t := a.Tokens[o.Token]; t == nil || t.Free < size {
			return nil, clob.E(clob.ErrNotEnoughBalance)
		}
	}
	return o, nil
}

func (m *Machine) placeOne(ts int64, in *OrderInput) PlaceResult {
	pr := PlaceResult{OrderID: in.Hash}
	o, err := m.check(ts, in)
	if err != nil {
		pr.Err = err
		return pr
	}
	mk := m.markets[o.Mkt]
	bookSide, bookPrice := o.Side, o.Price
	if o.Outcome == 1 {
		bookSide, bookPrice = o.Side^1, mk.Ticks-o.Price
	}
	crosses := false
	if bookSide == 0 {
		if p, _, ok := mk.book.BestAsk(); ok && p <= bookPrice {
			crosses = true
		}
	} else if p, _, ok := mk.book.BestBid(); ok && p >= bookPrice {
		crosses = true
	}
	if crosses && o.PostOnly {
		pr.Err = clob.E(clob.ErrPostOnlyCrosses)
		return pr
	}
	if crosses && mk.SecondsDelay > 0 && (o.Type == "FOK" || o.Type == "FAK") {
		pr.Err = clob.E(clob.ErrMatchDelayed)
		return pr
	}
	m.nextOID++
	m.reserve(o)
	if in.Maker != in.Signer {
		if _, ok := m.kinds[in.Maker]; !ok {
			m.kinds[in.Maker] = in.SigType
		}
	}
	if crosses && mk.SecondsDelay > 0 {
		o.Status, o.Due = StatusDelayed, ts+mk.SecondsDelay*1000
		m.orders[o.OID] = o
		m.byHash[o.Hash] = o
		m.delayed = append(m.delayed, o.OID)
		pr.Status = "delayed"
		return pr
	}
	return m.enter(ts, o, pr)
}

// reserve moves what o can spend from free to reserved.
func (m *Machine) reserve(o *Order) {
	a := m.acct(o.Maker)
	if o.Side == 0 {
		a.Coll -= o.Resv
		a.CollResv += o.Resv
	} else {
		t := a.tok(o.Token)
		t.Free -= o.Resv
		t.Resv += o.Resv
	}
}

// unreserve returns o's remaining reservation.
func (m *Machine) unreserve(o *Order) {
	a := m.acct(o.Maker)
	if o.Side == 0 {
		a.CollResv -= o.Resv
		a.Coll += o.Resv
	} else {
		t := a.tok(o.Token)
		t.Resv -= o.Resv
		t.Free += o.Resv
	}
	o.Resv = 0
}

// release moves a delayed order whose wait is over into the book.
func (m *Machine) release(o *Order) {
	o.Status = StatusLive
	m.enter(m.lastTS, o, PlaceResult{OrderID: o.Hash})
}

// enter runs o through its book as the taker, settles its fills, and rests
// or retires it.
func (m *Machine) enter(ts int64, o *Order, pr PlaceResult) PlaceResult {
	mk := m.markets[o.Mkt]
	tif := book.GTC
	switch o.Type {
	case "FOK":
		tif = book.FOK
	case "FAK":
		tif = book.IOC
	}
	var flags book.Flags
	if o.PostOnly {
		flags = book.PostOnly
	}
	m.cmd = book.Command{Seq: o.OID, Time: ts, Op: book.OpAdd, Side: book.Side(o.Side), TIF: tif, Flags: flags,
		Outcome: book.Outcome(o.Outcome), OID: o.OID, Owner: o.OID, Price: o.Price, Qty: o.Orig}
	m.bev = mk.book.Apply(&m.cmd, m.bev[:0])
	m.orders[o.OID] = o
	m.byHash[o.Hash] = o
	expired := false
	for _, ev := range m.bev {
		switch ev.Kind {
		case book.EvRejected:
			delete(m.orders, o.OID)
			delete(m.byHash, o.Hash)
			m.unreserve(o)
			switch ev.Reason {
			case book.ReasonPostOnlyCross:
				pr.Err = clob.E(clob.ErrPostOnlyCrosses)
			case book.ReasonFOKUnfilled:
				pr.Err = clob.E(clob.ErrFOKUnfilled)
			default:
				pr.Err = clob.E(clob.ErrInvalidOrderPayload)
			}
			return pr
		case book.EvTrade:
			id, making, taking := m.settle(ts, o, m.orders[ev.Maker], ev, mk)
			pr.TradeIDs = append(pr.TradeIDs, id)
			pr.Making += making
			pr.Taking += taking
		case book.EvExpired:
			expired = true
		}
	}
	if expired && o.Type == "FAK" && len(pr.TradeIDs) == 0 {
		delete(m.orders, o.OID)
		delete(m.byHash, o.Hash)
		m.unreserve(o)
		pr.Err = clob.E(clob.ErrFAKNoMatch)
		return pr
	}
	pr.Status = "live"
	if len(pr.TradeIDs) > 0 {
		pr.Status = "matched"
	}
	switch {
	case o.Filled == o.Orig:
		m.retire(o, StatusMatched)
	case expired:
		m.unreserve(o)
		m.retire(o, StatusCanceled)
	case o.Type == "GTD":
		m.addGTD(o)
	}
	return pr
}

// retire moves a finished order to the bounded terminal history.
func (m *Machine) retire(o *Order, status string) {
	o.Status = status
	delete(m.orders, o.OID)
	m.done = append(m.done, o)
	if len(m.done) >= 2*m.cfg.KeepOrders { // trim in halves: amortised O(1)
		cut := len(m.done) - m.cfg.KeepOrders
		for _, old := range m.done[:cut] {
			if m.byHash[old.Hash] == old {
				delete(m.byHash, old.Hash)
			}
		}
		m.done = slices.Clone(m.done[cut:])
	}
}

// cancelOrder removes a live or delayed order and frees its reservation.
func (m *Machine) cancelOrder(o *Order, status string) {
	if o.Status == StatusLive {
		m.cmd = book.Command{Op: book.OpCancel, OID: o.OID}
		m.bev = m.markets[o.Mkt].book.Apply(&m.cmd, m.bev[:0])
	}
	m.unreserve(o)
	m.retire(o, status)
}
