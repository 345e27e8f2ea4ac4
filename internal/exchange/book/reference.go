package book

// Reference is the naive order book the real Book is tested against: each
// side is one slice kept sorted by priority (price, then arrival), every
// operation is a linear scan, and level totals are recomputed by summing.
// It shares only the state-free validation helpers (normalizeAdd, bookPrice,
// matchKind, reduceOnlyQty) with Book; all state handling is its own.
type Reference struct {
	cfg   Config
	sides [2][]*OrderInfo // sides[Buy] best (highest) first; sides[Sell] lowest first
}

// NewReference returns an empty reference book.
func NewReference(cfg Config) *Reference { return &Reference{cfg: cfg} }

func (r *Reference) Len() int { return len(r.sides[0]) + len(r.sides[1]) }

// better reports whether price a has priority over price b on side.
func better(side Side, a, b int64) bool {
	if side == Buy {
		return a > b
	}
	return a < b
}

// insert places o behind every order with equal or better price.
func (r *Reference) insert(o *OrderInfo) {
	s := r.sides[o.Side]
	i := 0
	for i < len(s) && !better(o.Side, o.Price, s[i].Price) {
		i++
	}
	s = append(s, nil)
	copy(s[i+1:], s[i:])
	s[i] = o
	r.sides[o.Side] = s
}

func (r *Reference) find(oid uint64) *OrderInfo {
	for _, s := range r.sides {
		for _, o := range s {
			if o.OID == oid {
				return o
			}
		}
	}
	return nil
}

func (r *Reference) remove(o *OrderInfo) {
	s := r.sides[o.Side]
	for i := range s {
		if s[i] == o {
			r.sides[o.Side] = append(s[:i], s[i+1:]...)
			return
		}
	}
	panic("reference: removing an order that is not in the book")
}

func (r *Reference) levelQty(side Side, price int64) int64 {
	var q int64
	for _, o := range r.sides[side] {
		if o.Price == price {
			q += o.Orig - o.Filled
		}
	}
	return q
}

func (r *Reference) Apply(c *Command, out []Event) []Event {
	switch c.Op {
	case OpAdd:
		return r.add(c, out)
	case OpCancel:
		o := r.find(c.OID)
		if c.OID == 0 || o == nil {
			return append(out, rejected(c, ReasonUnknownOrder))
		}
		r.remove(o)
		out = append(out, Event{Kind: EvCancelled, Reason: ReasonUser, Side: o.Side, Outcome: o.Outcome, OID: o.OID, Owner: o.Owner, Price: o.Price, Qty: o.Remaining()})
		return append(out, Event{Kind: EvLevel, Side: o.Side, Price: o.Price, Qty: r.levelQty(o.Side, o.Price)})
	case OpModify:
		return r.modify(c, out)
	}
	return append(out, rejected(c, ReasonBadOp))
}

func (r *Reference) add(c *Command, out []Event) []Event {
	side, limit, reason := normalizeAdd(&r.cfg, c)
	if reason == ReasonNone && r.find(c.OID) != nil {
		reason = ReasonDuplicate
	}
	qty := c.Qty
	if reason == ReasonNone && c.Flags&ReduceOnly != 0 {
		qty, reason = reduceOnlyQty(&r.cfg, c)
	}
	opp := side.Opposite()
	if reason == ReasonNone && c.Flags&PostOnly != 0 && len(r.sides[opp]) > 0 && crosses(side, limit, r.sides[opp][0].Price) {
		reason = ReasonPostOnlyCross
	}
	if reason == ReasonNone && c.TIF == FOK {
		// Simulate the match on the priority-ordered slice.
		var avail int64
		for _, m := range r.sides[opp] {
			if !crosses(side, limit, m.Price) || avail >= qty {
				break
			}
			if m.Owner == c.Owner && r.cfg.STP == STPCancelTaker {
				break
			}
			if m.Owner == c.Owner && r.cfg.STP == STPCancelMaker {
				continue
			}
			avail += m.Remaining()
		}
		if avail < qty {
			reason = ReasonFOKUnfilled
		}
	}
	if reason != ReasonNone {
		return append(out, rejected(c, reason))
	}
	market := c.Flags&Market != 0
	price := limit
	if market {
		price = 0
	}
	out = append(out, Event{Kind: EvAccepted, Side: side, Outcome: c.Outcome, OID: c.OID, Owner: c.Owner, Price: price, Qty: qty})
	rem := qty
	for rem > 0 && len(r.sides[opp]) > 0 && crosses(side, limit, r.sides[opp][0].Price) {
		m := r.sides[opp][0]
		if m.Owner == c.Owner && r.cfg.STP != STPNone {
			if r.cfg.STP == STPCancelTaker {
				return append(out, Event{Kind: EvExpired, Reason: ReasonSTP, Side: side, Outcome: c.Outcome, OID: c.OID, Owner: c.Owner, Price: price, Qty: rem})
			}
			r.remove(m)
			out = append(out, Event{Kind: EvCancelled, Reason: ReasonSTP, Side: m.Side, Outcome: m.Outcome, OID: m.OID, Owner: m.Owner, Price: m.Price, Qty: m.Remaining()})
			out = append(out, Event{Kind: EvLevel, Side: opp, Price: m.Price, Qty: r.levelQty(opp, m.Price)})
			continue
		}
		q := min(rem, m.Remaining())
		m.Filled += q
		rem -= q
		out = append(out, Event{Kind: EvTrade, Side: side, Outcome: c.Outcome, Match: matchKind(side, c.Outcome, m.Outcome), MakerOutcome: m.Outcome,
			OID: c.OID, Owner: c.Owner, Maker: m.OID, MakerOwner: m.Owner, Price: m.Price, Qty: q})
		if m.Remaining() == 0 {
			r.remove(m)
		}
		out = append(out, Event{Kind: EvLevel, Side: opp, Price: m.Price, Qty: r.levelQty(opp, m.Price)})
	}
	if rem == 0 {
		return out
	}
	if c.TIF != GTC || market {
		return append(out, Event{Kind: EvExpired, Reason: ReasonIOC, Side: side, Outcome: c.Outcome, OID: c.OID, Owner: c.Owner, Price: price, Qty: rem})
	}
	r.insert(&OrderInfo{OID: c.OID, Owner: c.Owner, Time: c.Time, Price: limit, Orig: qty, Filled: qty - rem, Side: side, Outcome: c.Outcome, Flags: c.Flags})
	return append(out, Event{Kind: EvLevel, Side: side, Price: limit, Qty: r.levelQty(side, limit)})
}

func (r *Reference) modify(c *Command, out []Event) []Event {
	o := r.find(c.OID)
	if c.OID == 0 || o == nil {
		return append(out, rejected(c, ReasonUnknownOrder))
	}
	if c.Qty <= 0 || c.Qty > MaxQty {
		return append(out, rejected(c, ReasonQty))
	}
	np, ok := bookPrice(&r.cfg, o.Outcome, c.Price)
	switch {
	case !ok:
		return append(out, rejected(c, ReasonPrice))
	case c.Qty <= o.Filled:
		return append(out, rejected(c, ReasonModifyQty))
	case np == o.Price && c.Qty == o.Orig:
		return append(out, rejected(c, ReasonModifyNoOp))
	}
	opp := r.sides[o.Side.Opposite()]
	if np != o.Price && len(opp) > 0 && crosses(o.Side, np, opp[0].Price) {
		return append(out, rejected(c, ReasonModifyWouldCross))
	}
	out = append(out, Event{Kind: EvModified, Side: o.Side, Outcome: o.Outcome, OID: o.OID, Owner: o.Owner, Price: np, Qty: c.Qty})
	old := o.Price
	keep := np == old && c.Qty < o.Orig
	if keep { // stays in place
		o.Orig = c.Qty
		return append(out, Event{Kind: EvLevel, Side: o.Side, Price: old, Qty: r.levelQty(o.Side, old)})
	}
	r.remove(o)
	if np != old {
		out = append(out, Event{Kind: EvLevel, Side: o.Side, Price: old, Qty: r.levelQty(o.Side, old)})
	}
	o.Price, o.Orig = np, c.Qty
	r.insert(o)
	return append(out, Event{Kind: EvLevel, Side: o.Side, Price: np, Qty: r.levelQty(o.Side, np)})
}

func (r *Reference) BestBid() (int64, int64, bool) { return r.best(Buy) }
func (r *Reference) BestAsk() (int64, int64, bool) { return r.best(Sell) }

func (r *Reference) best(side Side) (int64, int64, bool) {
	if len(r.sides[side]) == 0 {
		return 0, 0, false
	}
	p := r.sides[side][0].Price
	return p, r.levelQty(side, p), true
}

func (r *Reference) Depth(side Side, max int, dst []Level) []Level {
	start := len(dst)
	for _, o := range r.sides[side] {
		n := len(dst)
		if n > start && dst[n-1].Price == o.Price {
			dst[n-1].Qty += o.Remaining()
			dst[n-1].Count++
			continue
		}
		if max == 0 {
			break
		}
		dst = append(dst, Level{Price: o.Price, Qty: o.Remaining(), Count: 1})
		max--
	}
	return dst
}

func (r *Reference) Orders(fn func(OrderInfo) bool) {
	for _, s := range r.sides {
		for _, o := range s {
			if !fn(*o) {
				return
			}
		}
	}
}
