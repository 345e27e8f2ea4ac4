package perps

import (
	"sort"
	"strings"

	"pmx/internal/exchange/book"
	"pmx/internal/exchange/fixed"
)

// Config sets the machine's policies. Zero fields take defaults.
type Config struct {
	MaxModifies   int   // successful modifications per order; default 10,000
	MakerPPM      int64 // maker fee, millionths of notional; default 125 (0.000125)
	TakerPPM      int64 // taker fee; default 400 (0.0004)
	MaxOpenOrders int   // per account; default 1,000
	// OnReplay, if set, is called with the replay key of every applied signed
	// command (also during recovery), so the caller can re-seed its replay
	// cache. It must not affect machine state.
	OnReplay func(key []byte)
	// AcceptDelayMs, TakerDelayMs, RiskDelayMs, ModifyDelayMs and
	// NoHeldCancels shape the in-flight windows (inflight.go); zero delays
	// enter orders and apply modifies in their own step. They are only the
	// initial Flight: the machine keeps the windows in its state and KConfig
	// commands change them (so a journal replays with the windows that were
	// in force, whatever the restarting process was configured with).
	AcceptDelayMs, TakerDelayMs, RiskDelayMs, ModifyDelayMs int64
	COIDWaitMs                                              int64 // cancel-by-coid's wait for a racing create (coidwait.go)
	NoHeldCancels                                           bool
}

const (
	maxTrades  = 10000 // public trades kept per instrument
	maxCandles = 10080 // one week of 1-minute candles
	maxHistory = 1000  // terminal orders and fills kept per account
	maxTicks   = book.MaxTicks
)

// Machine is the exchange state. Only the engine's apply goroutine touches it.
type Machine struct {
	cfg Config
	fl  Flight // in-flight windows in force (state; KConfig)

	mode      string // exchange-wide trading mode (modes.go): "" normal, ModeCancelOnly, ModePostOnly
	modeRetry int64  // seconds clients are told to wait in a mode

	inst     map[uint32]*Instrument
	instIDs  []uint32 // ascending
	accts    map[string]*Account
	byID     map[uint64]*Account
	proxies  map[string]*Proxy
	orders   map[uint64]*Order
	nextOID  uint64
	nextTID  uint64
	nextAcct uint64
	nextDep  uint64
	lastTS   int64

	insurance int64                // insurance fund (micro): funding dust, top-ups (funding.go)
	nextFund  uint64               // next funding charge id
	sweepDue  bool                 // a liquidation sweep may find something (liquidation.go; not state)
	cancelSt  string               // status of cancels while the engine cancels on an account's behalf (autocancel.go)
	fundPos   map[uint32]*Position // positions the insurance fund took over (liqexec.go)
	liqOID    uint64               // the liquidation order being matched (liqexec.go; not state)
	depth     []book.Level         // scratch of the at-fill check (atfill.go)
	rv        riskScratch          // scratch of the pre-trade check (riskview.go)
	reqP      string               // the price string of the order being placed (wire.go priceString; scratch)
	reqIID    uint32               // reqP is the canonical form of reqTicks on reqIID (priceString; scratch)
	reqTicks  int64                // 0: reqP is not known canonical
	bs        batchScratch         // what a createOrders' orders share (batch.go; scratch)
	noQuick   bool                 // every IOC goes through the book (quickioc.go; tests compare both paths)
	quickIOCs int                  // IOCs that took the quick path (quickioc.go; tests)
	safeCache []safeEntry          // the incremental sweep's cache, by account id (sweepcache.go; not state)
	marks     []int64              // the sweep's marks by instrument id (sweepcache.go)
	fullSweep bool                 // value every account in every sweep (benchmark reference)

	cur     uint32 // instrument of the book command being applied (for ReduceOnlyLimit)
	bev     []book.Event
	touched []*Order
	ordBuf  []OrderReq         // backing array of the decoded commands' orders (not state: no order request outlives its Apply)
	pend    []uint64           // in-flight order ids (Due > 0)
	mods    steps[*PendingMod] // pending modifies (pendmod.go)
	ccs     steps[*COIDWait]   // cancels-by-coid waiting for a create (coidwait.go)
	// TP/SL leg indexes (tpslindex.go; not state, rebuilt on restore)
	legsOf   map[string][]uint64
	trigs    map[uint32]*trigIndex
	armedAt  map[legKey][]uint64
	legDirty map[legKey]bool
	newLegs  []legSpec // the bracket legs place attaches to its entry (tpsl.go)

	mo money // withdrawals and transfers (withdraw.go)

	adl adlCache // adl_index by position (adlcache.go; not state)

	histQ   []*Account // accounts whose equity this Apply samples (history.go; not state)
	histGen uint64
	codes   map[string]string // invite code → owner (referral.go; not state, rebuilt on use)

	aud auditState // the perpsaudit build's shadow state (audit_on.go)
}

// New returns an empty exchange.
func New(cfg Config) *Machine {
	if cfg.MaxModifies <= 0 {
		cfg.MaxModifies = 10000
	}
	if cfg.MakerPPM == 0 {
		cfg.MakerPPM = 125
	}
	if cfg.TakerPPM == 0 {
		cfg.TakerPPM = 400
	}
	if cfg.MaxOpenOrders <= 0 {
		cfg.MaxOpenOrders = 1000
	}
	m := &Machine{cfg: cfg}
	m.reset()
	return m
}

// initialFlight is the Flight a fresh machine starts with.
func (m *Machine) initialFlight() Flight {
	return Flight{AcceptMs: m.cfg.AcceptDelayMs, TakerMs: m.cfg.TakerDelayMs, RiskMs: m.cfg.RiskDelayMs,
		ModifyMs: m.cfg.ModifyDelayMs, COIDWaitMs: m.cfg.COIDWaitMs, NoHeldCancels: m.cfg.NoHeldCancels}
}

func (m *Machine) reset() {
	m.inst = map[uint32]*Instrument{}
	m.instIDs = nil
	m.accts = map[string]*Account{}
	m.byID = map[uint64]*Account{}
	m.proxies = map[string]*Proxy{}
	m.orders = map[uint64]*Order{}
	m.nextOID, m.nextTID, m.nextAcct, m.nextDep, m.lastTS = 1, 1, 1, 1, 0
	m.insurance, m.nextFund, m.fundPos = 0, 1, nil
	m.safeCache = nil // its entries point at the accounts being replaced
	m.pend = nil
	m.resetLegIndex()
	m.adl.reset()
	m.fl = m.initialFlight()
	m.mode, m.modeRetry = "", 0
	m.mods = steps[*PendingMod]{next: 1}
	m.ccs = steps[*COIDWait]{next: 1}
	m.mo.reset()
	m.codes = nil
}

// Apply executes one command (engine.Machine). ts is Unix ms; it is made
// non-decreasing here because producers stamp commands before sequencing.
func (m *Machine) Apply(seq uint64, ts int64, cmd []byte, out []Event) []Event {
	return m.apply(ts, cmd, nil, out)
}

// ApplyDecoded is Apply for a live command whose producer holds it decoded
// (engine.DecodedApplier): hint is the *Command that decodeCommand(cmd)
// gives, applied without decoding cmd again (perpsaudit checks that it is).
// Replay decodes cmd, so both paths must agree exactly.
func (m *Machine) ApplyDecoded(seq uint64, ts int64, cmd []byte, hint any, out []Event) []Event {
	c, _ := hint.(*Command)
	if c != nil {
		m.auditDecoded(cmd, c)
	}
	return m.apply(ts, cmd, c, out)
}

// apply is Apply with cmd decoded already (hint non-nil) or not.
func (m *Machine) apply(ts int64, cmd []byte, hint *Command, out []Event) []Event {
	if ts < m.lastTS {
		ts = m.lastTS
	}
	prevTS := m.lastTS
	m.lastTS = ts
	var ev Event
	m.processDue(ts, &ev)
	m.chainStep(ts, &ev) // deposits and withdrawals the chain has advanced (chain.go)
	m.sweepDue = true
	c, err := hint, error(nil)
	if c == nil {
		c, err = decodeCommand(cmd, m.ordBuf)
		if c != nil && cap(c.Orders) > cap(m.ordBuf) {
			m.ordBuf = c.Orders[:0]
		}
	}
	if err != nil {
		ev.Err = "invalid_command"
		m.refreshADL(nil, &ev)           // due steps may have filled
		m.recordHistory(prevTS, ts, &ev) // (adlcache.go, history.go)
		m.finishBBOs(&ev)
		return append(out, ev)
	}
	if len(c.Replay) > 0 && m.cfg.OnReplay != nil {
		m.cfg.OnReplay(c.Replay)
	}
	ev.Replay = c.Replay
	switch c.Kind {
	case KTick:
	case KCreateInstrument:
		m.createInstrument(c, ts, &ev)
	case KDeposit:
		m.deposit(c, ts, &ev)
	case KIndex:
		m.index(c, ts, &ev)
	case KCloseOnly:
		m.closeOnly(c, ts, &ev)
	case KSettle:
		m.settle(c, ts, &ev)
	case KCreateProxy:
		m.createProxy(c, ts, &ev)
	case KDeleteProxy:
		m.deleteProxy(c, &ev)
	case KCreateOrders:
		m.createOrders(c, ts, &ev)
	case KModify, KModifyCOID:
		m.modify(c, ts, &ev)
	case KCancel, KCancelCOID:
		m.cancel(c, ts, &ev)
	case KCancelAll:
		m.cancelAll(c, ts, &ev)
	case KConfig:
		m.setFlight(c, &ev)
	case KMode:
		m.setMode(c, &ev)
	case KLiquidating:
		m.setLiquidating(c, &ev)
	case KLeverage:
		m.updateLeverages(c, ts, &ev)
	case KMargin:
		m.adjustMargin(c, ts, &ev)
	case KFundingSample:
		m.fundingSample()
	case KFunding:
		m.settleFunding(ts, &ev)
	case KLiqSweep:
		m.sweep(ts, &ev)
		m.sweepDue = m.fireTriggers(ts, &ev) // an exit entered: sweep again (tpsl.go)
	case KInsurance:
		m.topUpInsurance(c, &ev)
	case KAutoCancel:
		m.armAutoCancel(c, ts, &ev)
	case KAutoCancelFire:
		m.fireAutoCancels(ts, &ev)
	case KWithdraw:
		m.withdraw(c, ts, &ev)
	case KBlock:
		m.block(c, ts, &ev)
	case KWithdrawStatus:
		m.withdrawStatus(c, &ev)
	case KTransfer:
		m.transfer(c, ts, &ev)
	case KInvite:
		m.invite(c, ts, &ev)
	case KReferral:
		m.bindReferral(c, ts, &ev)
	default:
		ev.Err = "invalid_command"
	}
	m.refreshADL(c, &ev)
	m.recordHistory(prevTS, ts, &ev)
	m.finishBBOs(&ev)
	m.audit()
	return append(out, ev)
}

var categories = map[string]bool{"equity": true, "commodity": true, "index": true, "crypto": true}

func (m *Machine) createInstrument(c *Command, ts int64, ev *Event) {
	s := c.Instrument
	if s == nil || s.Symbol == "" || !categories[s.Category] || s.PriceDecimals > 8 || s.QtyDecimals > 8 ||
		s.MaxLeverage < 1 || s.MaxLeverage > 200 {
		ev.Err = "invalid instrument"
		return
	}
	for _, id := range m.instIDs {
		if strings.EqualFold(m.inst[id].Symbol, s.Symbol) {
			ev.Err = "instrument exists"
			return
		}
	}
	minN, ok := ParseMicro(s.MinNotional)
	if s.MinNotional == "" {
		minN, ok = 0, true
	}
	if !ok {
		ev.Err = "invalid min_notional"
		return
	}
	ticks := int64(pow10(int(s.PriceDecimals))) * 100000
	if s.MaxPrice != "" {
		g := fixed.Instrument{PriceDecimals: s.PriceDecimals, QtyDecimals: s.QtyDecimals}
		p, err := g.ParsePrice(s.MaxPrice)
		if err != nil {
			ev.Err = "invalid max_price: " + err.Error()
			return
		}
		ticks = int64(p) + 1
	}
	ticks = min(max(ticks, 2), maxTicks)
	base := s.Base
	if base == "" {
		base, _, _ = strings.Cut(s.Symbol, "-")
	}
	id := uint32(len(m.instIDs) + 1)
	in := &Instrument{ID: id, Symbol: s.Symbol, Base: base, Category: s.Category, PriceDecimals: s.PriceDecimals,
		QtyDecimals: s.QtyDecimals, MaxLeverage: s.MaxLeverage, MinNotional: minN, Created: ts, Ticks: ticks}
	in.book = book.New(m.bookConfig(ticks))
	m.inst[id] = in
	m.instIDs = append(m.instIDs, id)
	ev.ID = uint64(id)
}

func (m *Machine) bookConfig(ticks int64) book.Config {
	return book.Config{Ticks: ticks, STP: book.STPCancelMaker, ReduceOnly: m}
}

func (m *Machine) account(addr string, ts int64) *Account {
	a := m.accts[addr]
	if a == nil {
		a = &Account{ID: m.nextAcct, Addr: addr, Created: ts, Positions: map[uint32]*Position{},
			Open: map[uint64]bool{}, COIDs: map[string]uint64{}}
		m.nextAcct++
		m.accts[addr] = a
		m.byID[a.ID] = a
	}
	return a
}

func (m *Machine) deposit(c *Command, ts int64, ev *Event) {
	amt, ok := ParseMicro(c.Amount)
	if !ok || amt <= 0 || c.Account == "" {
		ev.Err = "invalid amount"
		return
	}
	if a := m.accts[c.Account]; a != nil && !m.fits(a, 0, amt) {
		ev.Err = ErrAmountRange
		return
	}
	a := m.account(c.Account, ts)
	a.Balance += amt // fits: checked above (a new account starts at 0)
	m.auditCredit(a, amt)
	a.Deposits = append(a.Deposits, Deposit{ID: m.nextDep, Amount: amt, TS: ts, Req: max(c.Required, 0),
		Chain: sentAt(c, ts)})
	m.depositMade(a, ts, ev)
	ev.ID = m.nextDep
	m.nextDep++
}

func (m *Machine) index(c *Command, ts int64, ev *Event) {
	in := m.inst[c.IID]
	if in == nil {
		ev.Err = "instrument_not_found"
		return
	}
	p, err := in.grid().ParsePrice(c.Price)
	if err != nil {
		ev.Err = err.Error()
		return
	}
	in.IndexTicks = int64(p)
	in.indexed(ts, int64(p)) // retire.go
}

func (m *Machine) createProxy(c *Command, ts int64, ev *Event) {
	p := c.Proxy
	if p == nil || c.Account == "" || p.Addr == "" {
		ev.Err = "invalid_command"
		return
	}
	if old := m.proxies[p.Addr]; old != nil && old.Active(ts) {
		ev.Err = "proxy already exists"
		return
	}
	if m.accts[p.Addr] != nil {
		ev.Err = "proxy is an account"
		return
	}
	isNew := m.accts[c.Account] == nil
	m.account(c.Account, ts)
	if isNew && c.Label != "" {
		m.bindOnCreate(c.Account, c.Label, ts) // the createProxy's invite code (referral.go)
	}
	cp := *p
	cp.Account = c.Account
	m.proxies[p.Addr] = &cp
}

func (m *Machine) deleteProxy(c *Command, ev *Event) {
	p := m.proxies[c.Proxy.Addr]
	if p == nil || p.Account != c.Account || p.Deleted {
		ev.Err = "proxy not found"
		return
	}
	p.Deleted = true
}

// ReduceOnlyLimit is the book's reduce-only hook: the closeable size of the
// owner's position in the instrument being applied. A reduce-only order
// may only shrink the position; its quantity is capped at the position size.
func (m *Machine) ReduceOnlyLimit(owner uint64, s book.Side, _ book.Outcome) int64 {
	a := m.byID[owner]
	if a == nil {
		return 0
	}
	p := a.Positions[m.cur]
	if p == nil {
		return 0
	}
	if s == book.Sell && p.Size > 0 {
		return p.Size
	}
	if s == book.Buy && p.Size < 0 {
		return -p.Size
	}
	return 0
}

func isCOID(s string) bool {
	if len(s) != 32 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f') {
			return false
		}
	}
	return true
}

func fixedPrice(t int64) fixed.Price { return fixed.Price(t) }
func fixedQty(q int64) fixed.Qty     { return fixed.Qty(q) }

func (m *Machine) sortedOpen(a *Account) []uint64 {
	ids := make([]uint64, 0, len(a.Open))
	for id := range a.Open {
		ids = append(ids, id)
	}
	sort.Slice(ids, func(i, j int) bool { return ids[i] < ids[j] })
	return ids
}
