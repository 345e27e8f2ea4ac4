package clobsvc

import (
	"encoding/json"
	"slices"
	"strconv"
	"strings"
	"time"

	"pmx/internal/amount"
	"pmx/internal/clob/clob"
	"pmx/internal/clob/clobengine"
	"pmx/internal/exchange/engine"
)

// The WebSocket fan-out: it follows the engine's applied commands, derives
// the frames from their results (orders placed, fills, cancels) and one
// read of the touched orders and books per apply batch, encodes each frame
// once and queues it on the subscribed sessions. It never blocks the
// engine (a full subscription is cut off; the fan-out logs and follows
// again) and never waits for a client (a full session queue ends that
// session).

const (
	maxTracked   = 200_000 // resting orders whose fills the fan-out counts (beyond: read from the engine)
	streamBuffer = 1024    // apply batches waiting for the fan-out
	maxPending   = 100_000 // trades waiting for their MINED / CONFIRMED frames
)

// pendingTrade is a trade whose next chain status is due at due (ms).
type pendingTrade struct {
	due  int64
	step int // 1 MINED, 2 CONFIRMED
	t    clobengine.Trade
	v    *marketView // identity only (cond, labels, ticks)
}

// fan is the fan-out's own state (its goroutine only).
type fan struct {
	s       *Service
	sent    map[uint32]*sentBook   // last book state pushed per market (YES terms)
	pending [2][]pendingTrade      // waiting for MINED, for CONFIRMED: each in due order
	track   map[string]*orderTrack // resting orders seen placed (at most maxTracked)
	scratch []*StreamSession
}

// sentBook is a market's YES-token levels as last pushed: price -> size.
type sentBook struct{ bids, asks map[int64]int64 }

func (s *Service) startStream(e *engine.Engine[clobengine.Result]) {
	f := &fan{s: s, sent: map[uint32]*sentBook{}, track: map[string]*orderTrack{}}
	s.feedWG.Add(1)
	go f.run(e.Subscribe(streamBuffer))
}

func (f *fan) run(sub *engine.Subscription[clobengine.Result]) {
	defer f.s.feedWG.Done()
	defer func() { sub.Unsubscribe() }()
	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
	for {
		select {
		case batch, ok := <-sub.C:
			if !ok {
				if sub.Lagged() {
					f.s.log.Error("clob websocket fan-out fell behind the engine; frames were lost")
					for id := range f.sent { // the next change of each market goes out as a book
						f.sent[id] = nil
					}
					sub = f.s.eng.Load().Subscribe(streamBuffer)
					continue
				}
				return
			}
			f.batch(batch)
		case <-tick.C:
			f.chain()
		}
	}
}

// userSessions are the sessions of API key k.
func (f *fan) userSessions(k string) []*StreamSession {
	if k == "" {
		return nil
	}
	f.scratch = f.s.hub.subscribers(f.scratch[:0], f.s.hub.byKey, k)
	return f.scratch
}

func (f *fan) pushUser(key, cond string, b []byte) {
	for _, c := range f.userSessions(key) {
		c.pushUser(key, cond, b)
	}
}

// orderEvent is one order frame to send: the order's state at its command
// (the fan-out reads the engine later, when the order may have moved on).
type orderEvent struct {
	hash    string
	kind    string // PLACEMENT, UPDATE, CANCELLATION
	ts      int64
	status  string
	matched int64    // size matched so far
	trades  []string // its trades so far
	known   bool     // matched and trades are exact (the fan-out followed the order from its placement)
}

// orderTrack is what the fan-out knows of a resting order it saw placed.
type orderTrack struct {
	matched int64
	trades  []string
}

// batch turns one apply batch into frames.
func (f *fan) batch(batch []engine.Applied[clobengine.Result]) {
	var evs []orderEvent
	var fills []clobengine.Trade
	var fillTS []int64
	var ticks []tickChange
	touched := map[uint32]bool{}
	hashes := map[string]bool{}
	// fill applies one fill to a followed order and returns its event (its
	// status, MATCHED or LIVE, is decided once the order's size is read).
	fill := func(hash, kind string, ts int64, t *clobengine.Trade) orderEvent {
		e := orderEvent{hash: hash, kind: kind, ts: ts}
		if tr := f.track[hash]; tr != nil {
			tr.matched += t.Size
			tr.trades = append(tr.trades, t.ID)
			e.matched, e.trades, e.known = tr.matched, slices.Clone(tr.trades), true
		}
		return e
	}
	for _, a := range batch {
		for _, r := range a.Events {
			for _, id := range r.Expired { // time retired them before the command ran
				evs = append(evs, f.cancellation(id, a.TS))
			}
			placed := map[string]int{}
			for _, o := range r.Orders {
				if o.Err == nil && o.Status != "" {
					placed[o.OrderID] = len(evs)
					evs = append(evs, orderEvent{hash: o.OrderID, kind: "PLACEMENT", ts: a.TS, status: strings.ToUpper(o.Status),
						trades: slices.Clone(o.TradeIDs), known: true})
					if (o.Status == "live" || o.Status == "delayed") && len(f.track) < maxTracked {
						f.track[o.OrderID] = &orderTrack{trades: slices.Clone(o.TradeIDs)}
					}
				}
			}
			for i := range r.Fills {
				t := r.Fills[i]
				fills, fillTS = append(fills, t), append(fillTS, a.TS)
				touched[t.Mkt] = true
				evs = append(evs, fill(t.MakerOrder, "UPDATE", a.TS, &t))
				if j, ok := placed[t.TakerOrder]; ok {
					evs[j].matched += t.Size
					if tr := f.track[t.TakerOrder]; tr != nil {
						tr.matched += t.Size
					}
				} else {
					evs = append(evs, fill(t.TakerOrder, "UPDATE", a.TS, &t))
				}
			}
			for _, id := range r.Canceled {
				evs = append(evs, f.cancellation(id, a.TS))
			}
			if tc := r.TickChange; tc != nil {
				ticks = append(ticks, tickChange{*tc, a.TS})
				touched[tc.Mkt] = true
			}
		}
	}
	if len(evs) == 0 && len(ticks) == 0 {
		return
	}
	if f.s.StreamSessions() == 0 { // nobody listens: no read, nothing kept
		clear(f.sent)
		clear(f.track)
		f.pending = [2][]pendingTrade{}
		return
	}
	for _, e := range evs {
		hashes[e.hash] = true
	}
	orders := map[string]*orderCopy{}
	views := map[uint32]*marketView{}
	seq, err := f.s.viewSeq(func(m *clobengine.Machine) {
		for h := range hashes {
			o := m.Order(h)
			if o == nil {
				continue
			}
			mk := m.Market(o.Mkt)
			orders[h] = &orderCopy{o: *o, cond: mk.ConditionID, label: mk.Tokens[o.Outcome].Outcome, ticks: mk.Ticks}
			orders[h].o.Trades = append([]string(nil), o.Trades...)
			touched[o.Mkt] = true
		}
		for id := range touched {
			mk := m.Market(id)
			views[id] = viewMarket(mk, f.s.hub.followed(mk.Tokens[0].ID) || f.s.hub.followed(mk.Tokens[1].ID))
		}
	})
	if err != nil {
		return
	}
	// User channel: order events, then the fills' MATCHED trades.
	for _, e := range evs {
		oc := orders[e.hash]
		if oc == nil {
			continue
		}
		if e.known && e.status == "" { // a fill of a followed order
			e.status = clobengine.StatusLive
			if e.matched >= oc.o.Orig {
				e.status = clobengine.StatusMatched
				delete(f.track, e.hash)
			}
		}
		if len(f.userSessions(oc.o.APIKey)) == 0 {
			continue
		}
		f.pushUser(oc.o.APIKey, oc.cond, oc.frame(&e))
	}
	for i := range fills {
		t, v := &fills[i], views[fills[i].Mkt]
		watched := false
		for _, side := range []struct {
			key   string
			maker bool
		}{{t.TakerKey, false}, {t.MakerKey, true}} {
			if len(f.userSessions(side.key)) > 0 {
				watched = true
				f.pushUser(side.key, v.cond, tradeFrameOf(t, v, side.maker, "MATCHED", t.Time))
			}
		}
		if watched {
			f.wait(pendingTrade{due: f.s.opt.Chain.MinedAt(t.Time), step: 1, t: *t, v: v})
		}
	}
	// Market channel: last trade prices, then each touched market's book
	// (after a trade) or its level changes.
	ts := batch[len(batch)-1].TS
	for i := range fills {
		f.lastTrade(seq, &fills[i], views[fills[i].Mkt], fillTS[i])
	}
	traded := map[uint32]bool{}
	for i := range fills {
		traded[fills[i].Mkt] = true
	}
	for _, tc := range ticks { // then the book on the new grid
		f.tickSizeChange(seq, &tc, views[tc.Mkt])
		traded[tc.Mkt] = true
	}
	for id, v := range views {
		f.marketFrames(seq, v, traded[id], ts)
	}
}

// tickChange is a tick size change and the time of its command.
type tickChange struct {
	clobengine.TickChange
	ts int64
}

// tickSizeChange sends tick_size_change to the followers of each token.
func (f *fan) tickSizeChange(seq uint64, tc *tickChange, v *marketView) {
	for o := range 2 {
		if len(f.marketSessions(v, o)) == 0 {
			continue
		}
		b, _ := json.Marshal(tickSizeChangeFrame{EventType: "tick_size_change", AssetID: v.tokens[o], Market: v.cond,
			OldTickSize: clob.TickSize(tc.Old), NewTickSize: clob.TickSize(tc.New), Timestamp: strconv.FormatInt(tc.ts, 10)})
		f.pushMarket(seq, v, o, b)
	}
}

// marketSessions are the sessions following either token of v.
func (f *fan) marketSessions(v *marketView, o int) []*StreamSession {
	f.scratch = f.s.hub.subscribers(f.scratch[:0], f.s.hub.byAsset, v.tokens[o])
	return f.scratch
}

func (f *fan) pushMarket(seq uint64, v *marketView, o int, b []byte) {
	for _, c := range f.marketSessions(v, o) {
		c.pushMarket(v.tokens[o], seq, b)
	}
}

func (f *fan) lastTrade(seq uint64, t *clobengine.Trade, v *marketView, ts int64) {
	one := func(o int, token string, p int64, side uint8) {
		if len(f.marketSessions(v, o)) == 0 {
			return
		}
		b, _ := json.Marshal(lastTradeFrame{AssetID: token, EventType: "last_trade_price",
			FeeRateBps: strconv.FormatInt(t.TakerFeeBps, 10), Market: v.cond, Price: v.tradePrice(t, p),
			Side: clobengine.SideName(side), Size: amount.Micro(t.Size).String(), Timestamp: strconv.FormatInt(ts, 10),
			TransactionHash: clobengine.TxHash(t.ID)})
		f.pushMarket(seq, v, o, b)
	}
	one(int(t.TakerOut), t.TakerToken, t.Price, t.TakerSide)
	if t.MakerOut != t.TakerOut { // mint or merge: the other token traded too (as the engine's last trade)
		one(int(t.MakerOut), t.MakerToken, t.MakerPrice, t.TakerSide^1)
	}
}

// marketFrames pushes v's book after a trade (or after the fan-out lost
// frames, or when it has no earlier state of the market), else the levels
// that changed since the last push or the latest subscribe snapshot. The
// state pushed is kept for followed markets (bounded by markets ×
// streamDepth).
func (f *fan) marketFrames(seq uint64, v *marketView, traded bool, ts int64) {
	if !v.depth { // nobody followed it at the read: a later follower starts from its snapshot
		delete(f.sent, v.id)
		return
	}
	now := &sentBook{bids: levelMap(v.bids[0]), asks: levelMap(v.asks[0])}
	prev, seen := f.sent[v.id]
	if !seen {
		prev = f.s.hub.seed(v.id)
	}
	f.sent[v.id] = now
	sums := [2]bookSummary{v.summary(0, ts), v.summary(1, ts)}
	if traded || prev == nil {
		for o := range 2 {
			b, _ := json.Marshal(bookFrame{sums[o], "book"})
			f.pushMarket(seq, v, o, b)
		}
		return
	}
	var yes, no []priceChange
	bid0, ask0 := v.best(0)
	bid1, ask1 := v.best(1)
	diff := func(old, cur map[int64]int64, yesSide, noSide string) {
		for _, p := range changedPrices(old, cur) {
			size := amount.Micro(cur[p]).String()
			yes = append(yes, priceChange{AssetID: v.tokens[0], Price: v.price(p), Size: size, Side: yesSide,
				Hash: sums[0].Hash, BestBid: bid0, BestAsk: ask0})
			no = append(no, priceChange{AssetID: v.tokens[1], Price: v.price(v.ticks - p), Size: size, Side: noSide,
				Hash: sums[1].Hash, BestBid: bid1, BestAsk: ask1})
		}
	}
	diff(prev.bids, now.bids, "BUY", "SELL")
	diff(prev.asks, now.asks, "SELL", "BUY")
	if len(yes) == 0 {
		return
	}
	// Each token's followers get one message with that token's changes.
	for o, pcs := range [2][]priceChange{yes, no} {
		b, _ := json.Marshal(priceChangeFrame{Market: v.cond, PriceChanges: pcs, Timestamp: strconv.FormatInt(ts, 10),
			EventType: "price_change"})
		f.pushMarket(seq, v, o, b)
	}
}

func levelMap(ls []clobengine.Level) map[int64]int64 {
	m := make(map[int64]int64, len(ls))
	for _, l := range ls {
		m[l.Price] = l.Size
	}
	return m
}

// changedPrices lists, ascending, the prices whose size differs between
// old and cur (a level gone has size 0 in cur).
func changedPrices(old, cur map[int64]int64) []int64 {
	var out []int64
	for p, q := range cur {
		if old[p] != q {
			out = append(out, p)
		}
	}
	for p := range old {
		if _, ok := cur[p]; !ok {
			out = append(out, p)
		}
	}
	slices.Sort(out)
	return out
}

// wait queues a trade's next chain status; past maxPending the oldest
// waits are dropped (their sessions re-read /data/trades).
func (f *fan) wait(p pendingTrade) {
	q := &f.pending[p.step-1]
	if len(*q) >= maxPending {
		*q = (*q)[1:]
	}
	*q = append(*q, p)
}

// chain pushes the MINED and CONFIRMED frames that the simulated chain
// has made due (the statuses /data/trades reports, docs/clob.md "Trades").
func (f *fan) chain() {
	now, ch := f.s.now(), f.s.opt.Chain
	for k := range f.pending {
		q := f.pending[k]
		n := 0
		for n < len(q) && q[n].due <= now {
			n++
		}
		if n == 0 {
			continue
		}
		f.pending[k] = append([]pendingTrade(nil), q[n:]...)
		for _, p := range q[:n] {
			st, upd := "MINED", p.due
			if p.step == 2 {
				st = "CONFIRMED"
			}
			f.pushUser(p.t.TakerKey, p.v.cond, tradeFrameOf(&p.t, p.v, false, st, upd))
			f.pushUser(p.t.MakerKey, p.v.cond, tradeFrameOf(&p.t, p.v, true, st, upd))
			if p.step == 1 {
				p.step, p.due = 2, ch.ConfirmedAt(p.t.Time)
				f.wait(p)
			}
		}
	}
}

// cancellation is the CANCELLATION event of order id (cancelled or expired),
// with what the fan-out tracked of its fills.
func (f *fan) cancellation(id string, ts int64) orderEvent {
	e := orderEvent{hash: id, kind: "CANCELLATION", ts: ts, status: clobengine.StatusCanceled}
	if tr := f.track[id]; tr != nil {
		e.matched, e.trades, e.known = tr.matched, tr.trades, true
		delete(f.track, id)
	}
	return e
}
