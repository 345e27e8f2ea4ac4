package clobsvc

import (
	"context"
	"slices"
	"strconv"
	"strings"

	"pmx/internal/amount"
	"pmx/internal/clob/clobengine"
	"pmx/internal/crypto/keccak"
	"pmx/internal/data/ledger"
	"pmx/internal/exchange/book"
	"pmx/internal/exchange/engine"
)

// Ledger takes ledger events (ingest.Pipeline: the data store, then the
// catalog). Apply must be idempotent for on-chain events already applied
// (the data store skips a (block, log_index) slot it holds with the same
// tx hash), which is what lets the feed replay.
type Ledger interface {
	Apply(ctx context.Context, events []ledger.Event) (int, error)
}

// ChainBlock0 is the simulated chain's first block: a command journaled at
// engine sequence n is mined in block ChainBlock0+n. It is far above any
// block the demo world or a Polygon capture uses, so the CLOB's (block,
// log_index) slots never collide with ingested history.
const ChainBlock0 = 1_000_000_000

// ExchangeAddress is the counterparty of the ledger rows of mint and merge
// matches: the CTF exchange contract, as on chain (its OrderFilled events
// name it as the taker of such matches).
const ExchangeAddress = "0x4bfb41d5b3570defd03c39a9a4d8de6bd8b8982e"

// feedBuffer is how many apply batches may wait for the ledger.
const feedBuffer = 4096

// feed follows the engine's applied commands and hands their fills and
// set operations to the ledger, in command order, on one goroutine. It
// ends when the engine closes the subscription, after delivering what the
// engine applied before closing.
func (s *Service) feed(sub *engine.Subscription[clobengine.Result]) {
	defer s.feedWG.Done()
	defer func() { sub.Unsubscribe() }()
	s.catchUp()
	for {
		batch, ok := <-sub.C
		closed := !ok
		// Under load, what queued while the last batch was applied goes
		// into one data-store batch: one commit for many trades.
	drain:
		for ok && len(batch) < feedMaxBatch {
			select {
			case more, open := <-sub.C:
				if !open {
					closed = true
					break drain
				}
				batch = append(batch[:len(batch):len(batch)], more...) // never into a published array
			default:
				break drain
			}
		}
		if len(batch) > 0 {
			s.deliver(batch)
		}
		if closed {
			if sub.Lagged() { // cut off: follow again and re-send what the engine retains
				s.log.Error("clob ledger feed fell behind")
				sub = s.eng.Load().Subscribe(feedBuffer)
				s.catchUp()
				continue
			}
			return
		}
	}
}

// feedMaxBatch bounds the commands of one data-store batch.
const feedMaxBatch = 1024

// deliver applies one apply batch of the engine as one data-store batch.
// If the data store refuses it, each command's events are applied on
// their own, so one refused command (logged) does not hold back the rest.
func (s *Service) deliver(batch []engine.Applied[clobengine.Result]) {
	n := 0
	for _, a := range batch {
		for i := range a.Events {
			n += eventsAtMost(&a.Events[i])
		}
	}
	// One buffer, sized once, reused by every batch (deliver runs on the
	// feed goroutine only; the ledger keeps nothing of the events).
	if cap(s.feedEvs) < n {
		s.feedEvs = make([]ledger.Event, 0, n)
	}
	evs := s.feedEvs[:0]
	defer func() { clear(evs); s.feedEvs = evs[:0] }() // drop the strings
	for _, a := range batch {
		for i := range a.Events {
			evs = s.LedgerEvents(evs, a.Seq, a.TS, &a.Events[i])
		}
	}
	if len(evs) == 0 {
		return
	}
	if _, err := s.opt.Ledger.Apply(context.Background(), evs); err == nil || len(batch) == 1 {
		if err != nil {
			s.log.Error("clob ledger feed", "err", err, "block", ChainBlock0+batch[0].Seq)
		}
		return
	}
	for _, a := range batch {
		var one []ledger.Event
		for i := range a.Events {
			one = s.LedgerEvents(one, a.Seq, a.TS, &a.Events[i])
		}
		if len(one) == 0 {
			continue
		}
		if _, err := s.opt.Ledger.Apply(context.Background(), one); err != nil {
			s.log.Error("clob ledger feed", "err", err, "block", ChainBlock0+a.Seq)
		}
	}
}

// eventsAtMost bounds the ledger events of one applied command.
func eventsAtMost(r *clobengine.Result) int {
	n := len(r.Sets)
	for i := range r.Fills {
		n++
		if book.MatchKind(r.Fills[i].Match) != book.MatchNormal {
			n += 2 // a mint or merge: a split or merge and two trades
		}
	}
	return n
}

// catchUp re-sends what the engine retains (the last KeepTrades fills and
// operator splits/merges), one command per batch, in command order. The
// data store skips what it already holds, so after a crash between the
// CLOB's journal and the data store's commit the missing events arrive,
// and nothing twice. The subscription was taken before this View, so no
// command falls between the two.
func (s *Service) catchUp() {
	byCmd := map[uint64]*clobengine.Result{}
	var cmds []uint64
	at := func(cmd uint64) *clobengine.Result {
		r := byCmd[cmd]
		if r == nil {
			r = &clobengine.Result{}
			byCmd[cmd] = r
			cmds = append(cmds, cmd)
		}
		return r
	}
	times := map[uint64]int64{}
	if err := s.View(func(m *clobengine.Machine) {
		for _, t := range m.Trades(func(t *clobengine.Trade) bool { return t.Cmd > 0 }) {
			r := at(t.Cmd)
			r.Fills = append(r.Fills, *t)
			times[t.Cmd] = t.Time
		}
		for _, st := range m.Sets() {
			r := at(st.Cmd)
			r.Sets = append(r.Sets, st)
			times[st.Cmd] = st.Time
		}
	}); err != nil {
		return
	}
	slices.Sort(cmds)
	for _, cmd := range cmds {
		if evs := s.LedgerEvents(nil, cmd, times[cmd], byCmd[cmd]); len(evs) > 0 {
			if _, err := s.opt.Ledger.Apply(context.Background(), evs); err != nil {
				s.log.Error("clob ledger catch-up", "err", err, "block", ChainBlock0+cmd)
			}
		}
	}
}

// LedgerEvents appends the ledger events of one applied command (engine
// sequence seq, time ts in ms) to out. docs/clob.md "CLOB → ledger" is the
// mapping.
func (s *Service) LedgerEvents(out []ledger.Event, seq uint64, ts int64, r *clobengine.Result) []ledger.Event {
	start, block := len(out), int64(ChainBlock0+seq)
	sec := max(ts/1000, 1)
	env := func(tx string) ledger.Event {
		return ledger.Event{TxHash: tx, BlockNumber: block, Timestamp: sec}
	}
	add := func(e ledger.Event) { out = append(out, e) }
	var res *ledger.Event // off chain: after the command's chain events
	for i := range r.Sets {
		st := &r.Sets[i]
		switch st.Op {
		case clobengine.OpSplit, clobengine.OpMerge:
			h := keccak.String("pmx " + st.Op + " " + strconv.FormatUint(seq, 10))
			e := env("0x" + hexOf(h[:]))
			e.Kind, e.User, e.ConditionID, e.Amount = ledger.KindSplit, st.Addr, st.Cond, amount.Micro(st.Amount)
			if st.Op == clobengine.OpMerge {
				e.Kind = ledger.KindMerge
			}
			add(e)
		case clobengine.OpRedeem:
			h := keccak.String("pmx redeem " + strconv.FormatUint(seq, 10) + " " + st.Addr)
			e := env("0x" + hexOf(h[:]))
			e.Kind, e.User, e.ConditionID = ledger.KindRedeem, st.Addr, st.Cond
			add(e)
		case clobengine.OpResolve:
			e := ledger.Event{Kind: ledger.KindResolution, ConditionID: st.Cond, ResolvedAt: sec}
			for _, p := range st.Payouts {
				e.Payouts = append(e.Payouts, amount.Micro(p))
			}
			res = &e
		}
	}
	for i := range r.Fills {
		out = s.fillEvents(out, env, &r.Fills[i])
	}
	// Log indexes count from 0 in each command's block, whatever out held
	// before: a replay must land on the same slots.
	for i := start; i < len(out); i++ {
		out[i].LogIndex = int64(i - start)
	}
	if res != nil {
		out = append(out, *res)
	}
	return out
}

// fillEvents maps one fill (see docs/clob.md "CLOB → ledger").
func (s *Service) fillEvents(out []ledger.Event, env func(string) ledger.Event, t *clobengine.Trade) []ledger.Event {
	ti, ok := s.Token(t.TakerToken)
	if !ok || ti.Ticks <= 0 {
		s.log.Error("clob ledger feed: unknown token", "trade", t.ID)
		return out
	}
	tx := clobengine.TxHash(t.ID)
	size := amount.Micro(t.Size)
	fee := amount.Micro(t.Fee / clobengine.Unit)
	grid := ti.Ticks
	if t.Ticks > 0 { // the fill's own grid: a tick size change may have moved the market's since
		grid = t.Ticks
	}
	price := func(ticks int64) amount.Micro { return amount.Micro(ticks * 1_000_000 / grid) }
	add := func(e ledger.Event) { out = append(out, e) }
	set := func(kind ledger.Kind, user string) {
		e := env(tx)
		e.Kind, e.User, e.ConditionID, e.Amount = kind, user, ti.Cond, size
		add(e)
	}
	trade := func(token, maker, taker string, side uint8, p int64, fee amount.Micro, code string) {
		e := env(tx)
		e.Kind, e.TokenID, e.Maker, e.Taker, e.Side = ledger.KindTrade, token, maker, taker, clobengine.SideName(side)
		e.Price, e.Size, e.FeeUSDC, e.BuilderCode = price(p), size, fee, code
		add(e)
	}
	takerCode, makerCode := builderCode(t.TakerCode, t.TakerBuild), builderCode(t.MakerCode, t.MakerBuild)
	self := t.TakerMaker == t.MakerAddr
	switch book.MatchKind(t.Match) {
	case book.MatchMint:
		if self { // both outcomes bought by one wallet at prices summing to 1: a split
			set(ledger.KindSplit, t.TakerMaker)
			return out
		}
		set(ledger.KindSplit, ExchangeAddress)
		trade(t.TakerToken, ExchangeAddress, t.TakerMaker, 0, t.Price, fee, takerCode)
		trade(t.MakerToken, t.MakerAddr, ExchangeAddress, 1, t.MakerPrice, 0, makerCode)
	case book.MatchMerge:
		if self {
			set(ledger.KindMerge, t.TakerMaker)
			return out
		}
		trade(t.TakerToken, ExchangeAddress, t.TakerMaker, 1, t.Price, fee, takerCode)
		trade(t.MakerToken, t.MakerAddr, ExchangeAddress, 0, t.MakerPrice, 0, makerCode)
		set(ledger.KindMerge, ExchangeAddress)
	default:
		if self { // a wash: no position moves
			return out
		}
		trade(t.TakerToken, t.MakerAddr, t.TakerMaker, t.TakerSide, t.Price, fee, takerCode)
	}
	return out
}

// builderCode is the ledger builder code of an order: its V2 builder
// field, else (attributed by builder headers) keccak256 of the builder API
// key, else none.
func builderCode(code, key string) string {
	if code != "" {
		return code
	}
	if key == "" {
		return ""
	}
	h := keccak.String("pmx builder " + key)
	return "0x" + hexOf(h[:])
}

func hexOf(b []byte) string {
	const digits = "0123456789abcdef"
	var sb strings.Builder
	sb.Grow(2 * len(b))
	for _, c := range b {
		sb.WriteByte(digits[c>>4])
		sb.WriteByte(digits[c&15])
	}
	return sb.String()
}
