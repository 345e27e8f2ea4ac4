// Package book is a price-time priority limit order book for one instrument
// (or one outcome-token market), built for a single-writer deterministic
// engine: it consumes Commands, appends Events to a caller-owned slice and
// allocates nothing per operation in steady state.
//
// Layout (see docs/book.md): orders live in a slice pool addressed by int32
// slots and linked into per-level FIFO lists (intrusive prev/next); price
// levels are a dense tick-indexed array split into lazily allocated pages,
// with a hierarchical bitset per side to find the next nonempty level; OIDs
// map to slots through an open-addressing table. Nothing iterates a Go map,
// and time comes only from Command.Time.
package book

import "fmt"

const (
	pageShift = 10
	pageSize  = 1 << pageShift
)

// order is a pool slot. Invariant: 0 <= filled < orig while linked.
type order struct {
	oid, owner   uint64
	price        int64
	orig, filled int64
	time         int64
	prev, next   int32 // slots in the level's FIFO; 0 = none
	side         Side
	outcome      Outcome
	flags        Flags
}

// level is one price's FIFO. Invariant: qty is the sum of remaining of its
// orders and n their count; head == 0 iff n == 0 iff the bitset bit is clear.
type level struct {
	head, tail int32
	n          int32
	qty        int64
}

type sideBook struct {
	pages []*[pageSize]level
	bits  bitset
	best  int64 // best nonempty price, -1 if none
}

func (s *sideBook) level(p int64) *level {
	pg := s.pages[p>>pageShift]
	if pg == nil {
		pg = new([pageSize]level) // first touch of this page only
		s.pages[p>>pageShift] = pg
	}
	return &pg[p&(pageSize-1)]
}

// worse returns the next nonempty price after p in priority order, or -1.
func (s *sideBook) worse(side Side, p int64) int64 {
	if side == Buy {
		return s.bits.prev(p - 1)
	}
	return s.bits.next(p + 1)
}

// Book is the real order book. It is not safe for concurrent use: the
// engine's single writer owns it.
type Book struct {
	cfg    Config
	orders []order // slot 0 is the nil slot
	free   []int32
	index  oidIndex
	sides  [2]sideBook
	live   int
}

// New returns an empty book. It panics on an invalid Config (a programming
// error: configs come from the instrument catalogue).
func New(cfg Config) *Book {
	if cfg.Ticks < 2 || cfg.Ticks > MaxTicks {
		panic(fmt.Sprintf("book: Ticks %d outside 2..%d", cfg.Ticks, MaxTicks))
	}
	n := max(cfg.Orders, 16)
	b := &Book{cfg: cfg, orders: make([]order, 1, n+1), free: make([]int32, 0, n), index: newOIDIndex(n)}
	pages := (cfg.Ticks + pageSize - 1) >> pageShift
	for i := range b.sides {
		b.sides[i] = sideBook{pages: make([]*[pageSize]level, pages), bits: newBitset(cfg.Ticks), best: -1}
	}
	return b
}

// Config returns the book's configuration.
func (b *Book) Config() Config { return b.cfg }

// Len is the number of live orders.
func (b *Book) Len() int { return b.live }

// Apply executes one command and appends its events to out.
func (b *Book) Apply(c *Command, out []Event) []Event {
	switch c.Op {
	case OpAdd:
		return b.add(c, out)
	case OpCancel:
		return b.cancel(c, out)
	case OpModify:
		return b.modify(c, out)
	}
	return append(out, rejected(c, ReasonBadOp))
}

func (b *Book) alloc() int32 {
	if n := len(b.free); n > 0 {
		s := b.free[n-1]
		b.free = b.free[:n-1]
		return s
	}
	b.orders = append(b.orders, order{})
	return int32(len(b.orders) - 1)
}

func (b *Book) release(s int32) {
	b.index.del(b.orders[s].oid)
	b.orders[s] = order{}
	b.free = append(b.free, s)
	b.live--
}

// link appends slot s at the tail of its price level.
func (b *Book) link(s int32) {
	o := &b.orders[s]
	sb := &b.sides[o.side]
	lv := sb.level(o.price)
	o.prev, o.next = lv.tail, 0
	if lv.tail != 0 {
		b.orders[lv.tail].next = s
	} else {
		lv.head = s
		sb.bits.set(o.price)
		if sb.best < 0 || (o.side == Buy && o.price > sb.best) || (o.side == Sell && o.price < sb.best) {
			sb.best = o.price
		}
	}
	lv.tail = s
	lv.n++
	lv.qty += o.orig - o.filled
}

// unlink removes slot s from its level and returns the level.
func (b *Book) unlink(s int32) *level {
	o := &b.orders[s]
	sb := &b.sides[o.side]
	lv := sb.level(o.price)
	if o.prev != 0 {
		b.orders[o.prev].next = o.next
	} else {
		lv.head = o.next
	}
	if o.next != 0 {
		b.orders[o.next].prev = o.prev
	} else {
		lv.tail = o.prev
	}
	lv.n--
	lv.qty -= o.orig - o.filled
	if lv.n == 0 {
		sb.bits.clear(o.price)
		if sb.best == o.price {
			sb.best = sb.worse(o.side, o.price)
		}
	}
	return lv
}

func (b *Book) add(c *Command, out []Event) []Event {
	side, limit, r := normalizeAdd(&b.cfg, c)
	if r == ReasonNone && b.index.get(c.OID) != 0 {
		r = ReasonDuplicate
	}
	qty := c.Qty
	if r == ReasonNone && c.Flags&ReduceOnly != 0 {
		qty, r = reduceOnlyQty(&b.cfg, c)
	}
	opp := &b.sides[side.Opposite()]
	if r == ReasonNone && c.Flags&PostOnly != 0 && opp.best >= 0 && crosses(side, limit, opp.best) {
		r = ReasonPostOnlyCross
	}
	if r == ReasonNone && c.TIF == FOK && !b.fillable(side, limit, c.Owner, qty) {
		r = ReasonFOKUnfilled
	}
	if r != ReasonNone {
		return append(out, rejected(c, r))
	}
	market := c.Flags&Market != 0
	price := limit
	if market {
		price = 0
	}
	out = append(out, Event{Kind: EvAccepted, Side: side, Outcome: c.Outcome, OID: c.OID, Owner: c.Owner, Price: price, Qty: qty})

	rem := qty
	for rem > 0 && opp.best >= 0 && crosses(side, limit, opp.best) {
		bp := opp.best
		lv := opp.level(bp)
		ms := lv.head
		m := &b.orders[ms]
		if m.owner == c.Owner && b.cfg.STP != STPNone {
			if b.cfg.STP == STPCancelTaker {
				out = append(out, Event{Kind: EvExpired, Reason: ReasonSTP, Side: side, Outcome: c.Outcome, OID: c.OID, Owner: c.Owner, Price: price, Qty: rem})
				return out
			}
			out = append(out, Event{Kind: EvCancelled, Reason: ReasonSTP, Side: m.side, Outcome: m.outcome, OID: m.oid, Owner: m.owner, Price: bp, Qty: m.orig - m.filled})
			b.unlink(ms)
			b.release(ms)
			out = append(out, Event{Kind: EvLevel, Side: side.Opposite(), Price: bp, Qty: lv.qty})
			continue
		}
		q := min(rem, m.orig-m.filled)
		m.filled += q
		lv.qty -= q
		rem -= q
		out = append(out, Event{Kind: EvTrade, Side: side, Outcome: c.Outcome, Match: matchKind(side, c.Outcome, m.outcome), MakerOutcome: m.outcome,
			OID: c.OID, Owner: c.Owner, Maker: m.oid, MakerOwner: m.owner, Price: bp, Qty: q})
		if m.filled == m.orig {
			b.unlink(ms)
			b.release(ms)
		}
		out = append(out, Event{Kind: EvLevel, Side: side.Opposite(), Price: bp, Qty: lv.qty})
	}
	if rem == 0 {
		return out
	}
	if c.TIF != GTC || market {
		return append(out, Event{Kind: EvExpired, Reason: ReasonIOC, Side: side, Outcome: c.Outcome, OID: c.OID, Owner: c.Owner, Price: price, Qty: rem})
	}
	s := b.alloc()
	b.orders[s] = order{oid: c.OID, owner: c.Owner, price: limit, orig: qty, filled: qty - rem, time: c.Time,
		side: side, outcome: c.Outcome, flags: c.Flags}
	b.index.put(c.OID, s)
	b.live++
	b.link(s)
	lv := b.sides[side].level(limit)
	return append(out, Event{Kind: EvLevel, Side: side, Price: limit, Qty: lv.qty})
}

// fillable reports whether a FOK taker could fill qty completely, counting
// the orders self-trade prevention would skip (cancel-maker) or stop at
// (cancel-taker) exactly as matching will.
func (b *Book) fillable(side Side, limit int64, owner uint64, qty int64) bool {
	opp := &b.sides[side.Opposite()]
	var avail int64
	for p := opp.best; p >= 0 && crosses(side, limit, p); p = opp.worse(side.Opposite(), p) {
		lv := opp.level(p)
		if b.cfg.STP == STPNone {
			avail += lv.qty
		} else {
			for s := lv.head; s != 0; s = b.orders[s].next {
				o := &b.orders[s]
				if o.owner == owner {
					if b.cfg.STP == STPCancelTaker {
						return avail >= qty
					}
					continue
				}
				avail += o.orig - o.filled
				if avail >= qty {
					return true
				}
			}
		}
		if avail >= qty {
			return true
		}
	}
	return false
}

// slotOf returns the slot of a live order, 0 if oid is not live. OID 0 is
// the index's empty-bucket key, so it is never looked up.
func (b *Book) slotOf(oid uint64) int32 {
	if oid == 0 {
		return 0
	}
	return b.index.get(oid)
}

func (b *Book) cancel(c *Command, out []Event) []Event {
	s := b.slotOf(c.OID)
	if s == 0 {
		return append(out, rejected(c, ReasonUnknownOrder))
	}
	o := &b.orders[s]
	side, price := o.side, o.price
	out = append(out, Event{Kind: EvCancelled, Reason: ReasonUser, Side: side, Outcome: o.outcome, OID: o.oid, Owner: o.owner, Price: price, Qty: o.orig - o.filled})
	lv := b.unlink(s)
	b.release(s)
	return append(out, Event{Kind: EvLevel, Side: side, Price: price, Qty: lv.qty})
}

// modify changes price and/or total quantity. A price change or a size
// increase re-queues the order at the tail (loses priority); a pure size
// decrease keeps its place.
func (b *Book) modify(c *Command, out []Event) []Event {
	s := b.slotOf(c.OID)
	if s == 0 {
		return append(out, rejected(c, ReasonUnknownOrder))
	}
	o := &b.orders[s]
	if c.Qty <= 0 || c.Qty > MaxQty {
		return append(out, rejected(c, ReasonQty))
	}
	np, ok := bookPrice(&b.cfg, o.outcome, c.Price)
	if !ok {
		return append(out, rejected(c, ReasonPrice))
	}
	if c.Qty <= o.filled {
		return append(out, rejected(c, ReasonModifyQty))
	}
	if np == o.price && c.Qty == o.orig {
		return append(out, rejected(c, ReasonModifyNoOp))
	}
	opp := &b.sides[o.side.Opposite()]
	if np != o.price && opp.best >= 0 && crosses(o.side, np, opp.best) {
		return append(out, rejected(c, ReasonModifyWouldCross))
	}
	out = append(out, Event{Kind: EvModified, Side: o.side, Outcome: o.outcome, OID: o.oid, Owner: o.owner, Price: np, Qty: c.Qty})
	old := o.price
	if np == old && c.Qty < o.orig {
		lv := b.sides[o.side].level(old)
		lv.qty -= o.orig - c.Qty
		o.orig = c.Qty
		return append(out, Event{Kind: EvLevel, Side: o.side, Price: old, Qty: lv.qty})
	}
	lv := b.unlink(s)
	if np != old {
		out = append(out, Event{Kind: EvLevel, Side: o.side, Price: old, Qty: lv.qty})
	}
	o.price, o.orig = np, c.Qty
	b.link(s)
	return append(out, Event{Kind: EvLevel, Side: o.side, Price: np, Qty: b.sides[o.side].level(np).qty})
}

// BestBid returns the highest bid price and its total quantity.
func (b *Book) BestBid() (price, qty int64, ok bool) { return b.best(Buy) }

// BestAsk returns the lowest ask price and its total quantity.
func (b *Book) BestAsk() (price, qty int64, ok bool) { return b.best(Sell) }

func (b *Book) best(side Side) (int64, int64, bool) {
	sb := &b.sides[side]
	if sb.best < 0 {
		return 0, 0, false
	}
	return sb.best, sb.level(sb.best).qty, true
}

// Depth appends up to max levels of side to dst, best first.
func (b *Book) Depth(side Side, max int, dst []Level) []Level {
	sb := &b.sides[side]
	for p := sb.best; p >= 0 && max > 0; p = sb.worse(side, p) {
		lv := sb.level(p)
		dst = append(dst, Level{Price: p, Qty: lv.qty, Count: int(lv.n)})
		max--
	}
	return dst
}

// Order returns a live order by OID.
func (b *Book) Order(oid uint64) (OrderInfo, bool) {
	s := b.slotOf(oid)
	if s == 0 {
		return OrderInfo{}, false
	}
	return b.info(s), true
}

func (b *Book) info(s int32) OrderInfo {
	o := &b.orders[s]
	return OrderInfo{OID: o.oid, Owner: o.owner, Time: o.time, Price: o.price, Orig: o.orig, Filled: o.filled,
		Side: o.side, Outcome: o.outcome, Flags: o.flags}
}

// Orders calls fn for each live order in canonical order (bids best to
// worst, then asks, FIFO within a level) until fn returns false.
func (b *Book) Orders(fn func(OrderInfo) bool) {
	for _, side := range [2]Side{Buy, Sell} {
		sb := &b.sides[side]
		for p := sb.best; p >= 0; p = sb.worse(side, p) {
			for s := sb.level(p).head; s != 0; s = b.orders[s].next {
				if !fn(b.info(s)) {
					return
				}
			}
		}
	}
}
