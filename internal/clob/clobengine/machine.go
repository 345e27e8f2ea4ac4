package clobengine

import (
	"slices"

	"pmx/internal/amount"
	"pmx/internal/clob/clob"
	"pmx/internal/exchange/book"
)

// Collateral is held in units of 1e-10 USDC (Unit per micro-USDC), so every
// fill at any tick size (price p of a grid of T ticks, q micro-shares: cost
// q·p·(10^4/T) units) is an exact integer. Balances are reported floored to
// 6 decimals.
const Unit = 10_000

// Modes of the exchange.
const (
	ModeNormal     = "normal"
	ModeHalted     = "halted"
	ModeCancelOnly = "cancel_only"
	ModePostOnly   = "post_only"
)

// Address statuses.
const (
	StatusNormal     = "normal"
	StatusBanned     = "banned"
	StatusClosedOnly = "closed_only"
)

// Config bounds the machine's memory. Zero fields take defaults.
type Config struct {
	KeepOrders int // terminal orders kept for lookups and duplicate checks; default 50,000
	KeepTrades int // trades kept for queries and history; default 20,000
}

// Market is a market's state in the machine.
type Market struct {
	clob.Market
	ID   uint32
	book *book.Book
	upt  int64 // collateral units per (micro-share × tick): 10^4 / Ticks
	// Grid is the public tick grid (ticks per 1.0) orders must be on, when
	// it differs from Ticks, the internal grid prices are kept in (which a
	// tick size change only ever refines; tick.go); 0 means Ticks.
	Grid int64        `json:"grid,omitempty"`
	Last [2]LastTrade // per outcome
	Res  *Resolution  `json:"res,omitempty"` // set once the operator resolved it
}

// LastTrade is a token's last trade price (ticks of its own grid) and the
// taker's side in that token's terms.
type LastTrade struct {
	Price int64  `json:"price"`
	Side  string `json:"side"`
}

// tokenRef locates a token.
type tokenRef struct {
	mkt     uint32
	outcome uint8
}

// Machine is the exchange state; only the engine's apply goroutine touches it.
type Machine struct {
	cfg      Config
	cmdSeq   uint64 // the engine sequence of the command being applied
	markets  []*Market
	byCond   map[string]uint32
	byToken  map[string]tokenRef
	accts    map[string]*Account
	orders   map[uint64]*Order // live and delayed
	byHash   map[string]*Order // live, delayed and recent terminal
	done     []*Order          // recent terminal orders, oldest first (bounded)
	delayed  []uint64          // delayed orders in due order
	gtd      []gtdEntry        // GTD expiries, soonest first
	trades   []*Trade          // recent trades, oldest first (bounded)
	sets     []*SetOp          // recent operator splits/merges, oldest first (bounded like trades)
	nextOID  uint64
	nextTr   uint64
	lastTS   int64
	mode     string
	retry    int64
	status   map[string]string
	nonce    map[string]uint64
	nonceTS  map[string]int64 // ms of the last incrementNonce, for V2 orders
	binding  map[string]string
	kinds    map[string]uint8 // bound wallet -> signature type of its first accepted order
	tiers    map[string]int
	deposits int64 // total collateral credited minus withdrawn, units
	fees     int64 // fees collected, units

	bev []book.Event
	cmd book.Command
}

// New returns an empty exchange.
func New(cfg Config) *Machine {
	if cfg.KeepOrders <= 0 {
		cfg.KeepOrders = 50_000
	}
	if cfg.KeepTrades <= 0 {
		cfg.KeepTrades = 20_000
	}
	m := &Machine{cfg: cfg}
	m.reset()
	return m
}

func (m *Machine) reset() {
	m.markets = nil
	m.byCond = map[string]uint32{}
	m.byToken = map[string]tokenRef{}
	m.accts = map[string]*Account{}
	m.orders = map[uint64]*Order{}
	m.byHash = map[string]*Order{}
	m.done, m.delayed, m.gtd, m.trades, m.sets = nil, nil, nil, nil, nil
	m.nextOID, m.nextTr, m.lastTS = 1, 1, 0
	m.mode, m.retry = ModeNormal, 0
	m.status = map[string]string{}
	m.nonce = map[string]uint64{}
	m.nonceTS = map[string]int64{}
	m.binding = map[string]string{}
	m.kinds = map[string]uint8{}
	m.tiers = map[string]int{}
	m.deposits, m.fees = 0, 0
}

// Result is the one event of a command.
type Result struct {
	Err         *clob.Error       `json:"err,omitempty"`
	Orders      []PlaceResult     `json:"orders,omitempty"`
	Canceled    []string          `json:"canceled,omitempty"`
	NotCanceled map[string]string `json:"not_canceled,omitempty"`
	Mode        string            `json:"mode,omitempty"`
	// Fills are the trades this command made, in order, and Sets the
	// chain operations it did (split, merge, resolve, redeem): what the
	// CLOB → ledger feed (clobsvc) turns into ledger events. Outputs only:
	// never journaled or snapshotted.
	Fills []Trade `json:"-"`
	Sets  []SetOp `json:"-"`
	// Expired are the GTD orders time retired before this command ran (the
	// user channel's CANCELLATION events). Output only, like Fills.
	Expired []string `json:"-"`
	// TickChange is the tick size change this command made (the market
	// channel's tick_size_change). Output only.
	TickChange *TickChange `json:"-"`
}

// SetOp is an operator chain operation: a split or merge (the chain's
// complete-set calls), a resolution or a redemption. The machine keeps the
// recent ones so the ledger feed can re-send them.
type SetOp struct {
	Cmd     uint64  `json:"cmd"` // engine sequence of the command
	Time    int64   `json:"time"`
	Op      string  `json:"op"` // OpSplit, OpMerge, OpResolve or OpRedeem
	Addr    string  `json:"addr,omitempty"`
	Cond    string  `json:"cond"`
	Amount  int64   `json:"amount,omitempty"`  // base units (shares of each outcome = micro-USDC); redeem: shares burned
	Paid    int64   `json:"paid,omitempty"`    // redeem: micro-USDC paid
	Payouts []int64 `json:"payouts,omitempty"` // resolve: micro-USDC per share of each outcome
}

// keepSet retains a chain operation for the ledger feed's catch-up.
func (m *Machine) keepSet(st SetOp, r *Result) {
	r.Sets = append(r.Sets, st)
	m.sets = append(m.sets, &st)
	if len(m.sets) >= 2*m.cfg.KeepTrades {
		m.sets = slices.Clone(m.sets[len(m.sets)-m.cfg.KeepTrades:])
	}
}

// PlaceResult answers one order of a place command.
type PlaceResult struct {
	OrderID  string      `json:"id"`
	Err      *clob.Error `json:"err,omitempty"`
	Status   string      `json:"status,omitempty"` // live, matched, delayed, unmatched
	Making   int64       `json:"making,omitempty"` // base units the maker gave
	Taking   int64       `json:"taking,omitempty"`
	TradeIDs []string    `json:"trades,omitempty"`
}

// Apply executes one command (engine.Machine). ts is Unix ms, made
// non-decreasing here because producers stamp commands before sequencing.
func (m *Machine) Apply(seq uint64, ts int64, payload []byte, out []Result) []Result {
	if ts < m.lastTS {
		ts = m.lastTS
	}
	m.lastTS = ts
	m.cmdSeq = seq
	expired := m.expire(ts)
	c, err := Decode(payload)
	if err != nil {
		return append(out, Result{Err: clob.E(clob.ErrInvalidPayload), Expired: expired})
	}
	var r Result
	firstTrade := m.nextTr
	switch c.Op {
	case OpMarket:
		r.Err = m.upsertMarket(c.Market)
	case OpDeposit, OpWithdraw, OpSplit, OpMerge:
		r.Err = m.money(c)
		if r.Err == nil && (c.Op == OpSplit || c.Op == OpMerge) {
			m.keepSet(SetOp{Cmd: seq, Time: ts, Op: c.Op, Addr: c.Addr, Cond: c.Cond, Amount: c.Amount}, &r)
		}
	case OpResolve:
		r = m.resolve(seq, ts, c)
	case OpRedeem, OpRedeemAll:
		r = m.redeem(seq, ts, c)
	case OpTickSize:
		r = m.setTickSize(c)
	case OpNonce:
		r = m.incrementNonce(ts, c.Addr)
	case OpPlace:
		r = m.place(ts, c.Orders)
	case OpCancel:
		r = m.cancelIDs(c.Addr, c.IDs)
	case OpCancelAll, OpCancelMarket:
		r = m.cancelWhere(c)
	case OpMode:
		r.Err = m.setMode(c.Mode, c.Retry)
		r.Mode = m.mode
	case OpAddress:
		r.Err = m.setStatus(c.Addr, c.Status)
	case OpTier:
		r.Err = m.pinTier(c.Addr, c.Tier)
	case OpTick:
	default:
		r.Err = clob.E(clob.ErrInvalidPayload)
	}
	r.Fills = m.tradesSince(firstTrade)
	r.Expired = expired
	return append(out, r)
}

func (m *Machine) setMode(mode string, retry int64) *clob.Error {
	switch mode {
	case ModeNormal, ModeHalted, ModeCancelOnly, ModePostOnly:
	default:
		return clob.E(clob.ErrInvalidPayload)
	}
	if retry < 0 || retry > 86400 {
		return clob.E(clob.ErrInvalidPayload)
	}
	m.mode, m.retry = mode, retry
	return nil
}

func (m *Machine) setStatus(addr, status string) *clob.Error {
	switch status {
	case StatusNormal:
		delete(m.status, addr)
	case StatusBanned, StatusClosedOnly:
		m.status[addr] = status
	default:
		return clob.E(clob.ErrInvalidPayload)
	}
	return nil
}

func (m *Machine) pinTier(addr string, tier int) *clob.Error {
	switch {
	case tier == -1:
		delete(m.tiers, addr)
	case tier >= 0 && tier < 8:
		m.tiers[addr] = tier
	default:
		return clob.E(clob.ErrInvalidPayload)
	}
	return nil
}

// upsertMarket registers a market (new id, empty books) or updates the
// state of a known one (accepting, closed, fees, delay); its tokens and
// grid never change once registered.
func (m *Machine) upsertMarket(s *clob.Market) *clob.Error {
	if s == nil || len(s.ConditionID) != 66 || s.Tokens[0].ID == "" || s.Tokens[1].ID == "" || s.Tokens[0].ID == s.Tokens[1].ID {
		return clob.E(clob.ErrInvalidMarket)
	}
	if _, err := clob.TicksOf(clobTick(s.Ticks)); err != nil || s.MinSize < 0 {
		return clob.E(clob.ErrInvalidMarket)
	}
	if id, ok := m.byCond[s.ConditionID]; ok {
		mk := m.markets[id]
		keep := mk.Market
		mk.Market = *s
		mk.Tokens, mk.Ticks, mk.NegRisk = keep.Tokens, keep.Ticks, keep.NegRisk
		if mk.Res != nil { // a resolved market never reopens
			mk.Closed, mk.Accepting = true, false
		}
		return nil
	}
	for _, t := range s.Tokens {
		if _, dup := m.byToken[t.ID]; dup {
			return clob.E(clob.ErrInvalidMarket)
		}
	}
	id := uint32(len(m.markets))
	mk := &Market{Market: *s, ID: id, upt: Unit / s.Ticks,
		book: book.New(book.Config{Ticks: s.Ticks, Complement: true, STP: book.STPNone})}
	m.markets = append(m.markets, mk)
	m.byCond[s.ConditionID] = id
	m.byToken[s.Tokens[0].ID] = tokenRef{id, 0}
	m.byToken[s.Tokens[1].ID] = tokenRef{id, 1}
	return nil
}

// clobTick is the tick size (micro) of a grid of ticks per 1.0.
func clobTick(ticks int64) amount.Micro {
	if ticks <= 0 || 1_000_000%ticks != 0 {
		return 0
	}
	return amount.Micro(1_000_000 / ticks)
}

// expire processes what time has made due: delayed orders reaching the
// book and GTD orders reaching their expiration; it returns the hashes of
// the orders that expired (nil when none: the common case allocates nothing).
func (m *Machine) expire(ts int64) (expired []string) {
	for len(m.delayed) > 0 {
		o := m.orders[m.delayed[0]]
		if o == nil || o.Status != StatusDelayed {
			m.delayed = m.delayed[1:]
			continue
		}
		if o.Due > ts {
			break
		}
		m.delayed = m.delayed[1:]
		m.release(o)
	}
	for len(m.gtd) > 0 && m.gtd[0].at <= ts {
		e := m.gtd[0]
		m.gtd = m.gtd[1:]
		if o := m.orders[e.oid]; o != nil && o.Status == StatusLive {
			m.cancelOrder(o, StatusExpired)
			expired = append(expired, o.Hash)
		}
	}
	return expired
}

// gtdEntry is a GTD order's expiry (Unix ms); m.gtd is sorted by (at, oid).
type gtdEntry struct {
	at  int64
	oid uint64
}

func (m *Machine) addGTD(o *Order) {
	e := gtdEntry{o.Expiration * 1000, o.OID}
	i, _ := slices.BinarySearchFunc(m.gtd, e, func(a, b gtdEntry) int {
		if a.at != b.at {
			return cmpInt(a.at, b.at)
		}
		return cmpInt(int64(a.oid), int64(b.oid))
	})
	m.gtd = slices.Insert(m.gtd, i, e)
}

func cmpInt(a, b int64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// NextDue is the earliest time (Unix ms) at which a tick would change
// state, or 0 when nothing is pending.
func (m *Machine) NextDue() int64 {
	var next int64
	for _, id := range m.delayed {
		if o := m.orders[id]; o != nil && o.Status == StatusDelayed {
			next = o.Due
			break
		}
	}
	for _, e := range m.gtd {
		if o := m.orders[e.oid]; o != nil && o.Status == StatusLive {
			if next == 0 || e.at < next {
				next = e.at
			}
			break
		}
	}
	return next
}
