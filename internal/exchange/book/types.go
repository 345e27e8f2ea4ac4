package book

// Reason says why a command was rejected or an order left the book.
type Reason uint8

const (
	ReasonNone             Reason = iota
	ReasonBadOp                   // unknown Op
	ReasonBadOID                  // OID is zero
	ReasonBadSide                 // Side not Buy/Sell
	ReasonBadTIF                  // unknown TIF, or a flag combination TIF forbids (post-only IOC/FOK, market GTC)
	ReasonBadOutcome              // OutcomeNo on a plain book, or unknown outcome
	ReasonQty                     // quantity <= 0 or > MaxQty
	ReasonPrice                   // price outside 1..Ticks-1
	ReasonDuplicate               // OID already live in this book
	ReasonReduceOnly              // reduce-only with no reducible size (or no limiter configured)
	ReasonPostOnlyCross           // post-only order would take liquidity
	ReasonFOKUnfilled             // FOK could not fill completely; nothing happened
	ReasonUnknownOrder            // cancel/modify of an OID not live in this book
	ReasonModifyQty               // new total quantity not above the filled quantity
	ReasonModifyNoOp              // modify to the same price and quantity
	ReasonModifyWouldCross        // modify to a price that would cross the opposite best
	ReasonIOC                     // remainder of an IOC or market order expired
	ReasonSTP                     // self-trade prevention removed this order
	ReasonUser                    // cancelled by command
)

var reasonNames = [...]string{"none", "bad_op", "bad_oid", "bad_side", "bad_tif", "bad_outcome", "bad_quantity",
	"bad_price", "duplicate_order", "reduce_only_invalid", "post_only_rejected", "fok_unfilled", "order_not_found",
	"modify_quantity_not_above_filled", "modify_no_op", "modify_would_cross", "ioc_expired", "stp_cancelled", "cancelled"}

func (r Reason) String() string {
	if int(r) < len(reasonNames) {
		return reasonNames[r]
	}
	return "reason?"
}

// EventKind tags an Event.
type EventKind uint8

const (
	EvAccepted  EventKind = 1 // add passed validation; Qty is the accepted size (after a reduce-only cap)
	EvRejected  EventKind = 2 // command refused; fields echo the command as given
	EvTrade     EventKind = 3 // OID (taker) met Maker at Price for Qty
	EvCancelled EventKind = 4 // a resting order left the book; Qty is the remainder removed
	EvExpired   EventKind = 5 // a taker's unfilled remainder did not rest; Qty is that remainder
	EvModified  EventKind = 6 // Price and Qty are the new price and new total quantity
	EvLevel     EventKind = 7 // a price level's total changed; Qty is the new total (0 = level gone)
)

var kindNames = [...]string{"?", "accepted", "rejected", "trade", "cancelled", "expired", "modified", "level"}

func (k EventKind) String() string {
	if int(k) < len(kindNames) {
		return kindNames[k]
	}
	return "?"
}

// MatchKind says how a trade settles in an outcome-token market.
type MatchKind uint8

const (
	MatchNormal MatchKind = 0 // tokens of one outcome change hands
	MatchMint   MatchKind = 1 // a YES buyer and a NO buyer: a new pair is minted
	MatchMerge  MatchKind = 2 // a YES seller and a NO seller: a pair is merged back into collateral
)

// Event is one output of a command. Side and Price are in book (YES) terms:
// for an OutcomeNo order the order's own side is Side.Opposite() and its own
// price is Ticks-Price. EvRejected is the exception: it echoes the command.
type Event struct {
	Kind         EventKind
	Reason       Reason
	Side         Side
	Outcome      Outcome // outcome of OID
	Match        MatchKind
	MakerOutcome Outcome
	OID          uint64 // subject order; the taker of a trade
	Owner        uint64 // owner of OID
	Maker        uint64 // maker OID of a trade
	MakerOwner   uint64
	Price        int64
	Qty          int64
}

// STPMode is the self-trade prevention policy. Two orders self-trade when
// their Owner fields are equal.
type STPMode uint8

const (
	// STPCancelMaker cancels the resting own order (EvCancelled, ReasonSTP)
	// and the taker keeps matching. This is the perps venue's rule.
	STPCancelMaker STPMode = 0
	// STPCancelTaker expires the taker's remainder (EvExpired, ReasonSTP)
	// and leaves the resting order alone.
	STPCancelTaker STPMode = 1
	// STPNone lets an owner trade with itself.
	STPNone STPMode = 2
)

// ReduceOnlyLimiter is the exchange layer's reduce-only hook. It returns the
// largest quantity (lots) a reduce-only order of owner on side (own terms)
// may have; <= 0 rejects the order, a smaller value caps it. It must be
// deterministic: a function of state the engine has already journaled.
type ReduceOnlyLimiter interface {
	ReduceOnlyLimit(owner uint64, side Side, outcome Outcome) int64
}

// MaxQty bounds a command's quantity (lots). With it, a level total cannot
// overflow int64 unless 2^23 maximal orders rest at one price.
const MaxQty = 1 << 40

// MaxTicks bounds Config.Ticks (the bitset and page table scale with it).
const MaxTicks = 1 << 26

// Config fixes a book's grid and policies.
type Config struct {
	// Ticks is the size of the price grid: valid book prices are
	// 1..Ticks-1. In a complementary market Ticks is the number of ticks
	// in 1.0 (fixed.Instrument.PriceOne), so a NO at q maps to Ticks-q.
	Ticks int64
	// Complement enables OutcomeNo orders (outcome-token markets).
	Complement bool
	STP        STPMode
	// ReduceOnly is consulted for ReduceOnly adds; nil rejects them.
	ReduceOnly ReduceOnlyLimiter
	// Orders preallocates room for this many live orders.
	Orders int
}

// Level is one row of an L2 snapshot.
type Level struct {
	Price int64
	Qty   int64 // total remaining lots at Price
	Count int   // number of orders
}

// OrderInfo describes a live order (book terms).
type OrderInfo struct {
	OID     uint64
	Owner   uint64
	Time    int64 // Command.Time of the add
	Price   int64
	Orig    int64 // total quantity, including what has filled
	Filled  int64
	Side    Side
	Outcome Outcome
	Flags   Flags
}

// Remaining is Orig-Filled.
func (o OrderInfo) Remaining() int64 { return o.Orig - o.Filled }

// OrderBook is what the real Book and the naive Reference both implement.
type OrderBook interface {
	// Apply executes c and appends its events to out.
	Apply(c *Command, out []Event) []Event
	// BestBid and BestAsk return the best price and its total quantity.
	BestBid() (price, qty int64, ok bool)
	BestAsk() (price, qty int64, ok bool)
	// Depth appends up to max levels of side, best first.
	Depth(side Side, max int, dst []Level) []Level
	// Orders calls fn for every live order: bids best to worst, then asks
	// best to worst, FIFO within a level; it stops when fn returns false.
	Orders(fn func(OrderInfo) bool)
	// Len is the number of live orders.
	Len() int
}

// normalizeAdd checks the state-free rules of an add and maps it into book
// terms. limit is the book-terms price bound used for matching (the extreme
// of the grid for a market order).
func normalizeAdd(cfg *Config, c *Command) (side Side, limit int64, r Reason) {
	switch {
	case c.OID == 0:
		return 0, 0, ReasonBadOID
	case c.Side > Sell:
		return 0, 0, ReasonBadSide
	case c.TIF > FOK:
		return 0, 0, ReasonBadTIF
	case c.Outcome > OutcomeNo || (c.Outcome == OutcomeNo && !cfg.Complement):
		return 0, 0, ReasonBadOutcome
	case c.Qty <= 0 || c.Qty > MaxQty:
		return 0, 0, ReasonQty
	}
	side = c.Side
	if c.Outcome == OutcomeNo {
		side = side.Opposite()
	}
	if c.Flags&Market != 0 {
		if c.TIF == GTC || c.Flags&PostOnly != 0 {
			return 0, 0, ReasonBadTIF
		}
		if side == Buy {
			return side, cfg.Ticks - 1, ReasonNone
		}
		return side, 1, ReasonNone
	}
	if c.Flags&PostOnly != 0 && c.TIF != GTC {
		return 0, 0, ReasonBadTIF
	}
	p, ok := bookPrice(cfg, c.Outcome, c.Price)
	if !ok {
		return 0, 0, ReasonPrice
	}
	return side, p, ReasonNone
}

// bookPrice validates an own-terms price and maps it to book terms.
func bookPrice(cfg *Config, o Outcome, p int64) (int64, bool) {
	if p <= 0 || p >= cfg.Ticks {
		return 0, false
	}
	if o == OutcomeNo {
		p = cfg.Ticks - p
	}
	return p, true
}

// crosses reports whether a side order with limit meets a resting price.
func crosses(side Side, limit, resting int64) bool {
	if side == Buy {
		return resting <= limit
	}
	return resting >= limit
}

// matchKind classifies a trade between a taker and a maker.
func matchKind(takerSide Side, takerOut, makerOut Outcome) MatchKind {
	if takerOut == makerOut {
		return MatchNormal
	}
	yesSide := takerSide // book side of the YES order
	if takerOut == OutcomeNo {
		yesSide = takerSide.Opposite()
	}
	if yesSide == Buy {
		return MatchMint
	}
	return MatchMerge
}

// reduceOnlyQty applies the limiter to a reduce-only add.
func reduceOnlyQty(cfg *Config, c *Command) (int64, Reason) {
	if cfg.ReduceOnly == nil {
		return 0, ReasonReduceOnly
	}
	lim := cfg.ReduceOnly.ReduceOnlyLimit(c.Owner, c.Side, c.Outcome)
	if lim <= 0 {
		return 0, ReasonReduceOnly
	}
	return min(c.Qty, lim), ReasonNone
}

func rejected(c *Command, r Reason) Event {
	return Event{Kind: EvRejected, Reason: r, Side: c.Side, Outcome: c.Outcome, OID: c.OID, Owner: c.Owner, Price: c.Price, Qty: c.Qty}
}
