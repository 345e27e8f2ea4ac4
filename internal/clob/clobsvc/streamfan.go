package clobsvc

import (
	"encoding/json"
	"slices"
	"strconv"
	"time"

	"pmx/internal/amount"
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
	sent    map[uint32]*sentBook // last book state pushed per market (YES terms)
	pending [2][]pendingTrade    // waiting for MINED, for CONFIRMED: each in due order
	scratch []*StreamSession
}

// sentBook is a market's YES-token levels as last pushed: price -> size.
type sentBook struct{ bids, asks map[int64]int64 }

func (s *Service) startStream(e *engine.Engine[clobengine.Result]) {
	f := &fan{s: s, sent: map[uint32]*sentBook{}}
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

type orderEvent struct {
	hash string
	kind string // PLACEMENT, UPDATE, CANCELLATION
	ts   int64
}

// batch turns one apply batch into frames.
func (f *fan) batch(batch []engine.Applied[clobengine.Result]) {
	var evs []orderEvent
	var fills []clobengine.Trade
	var fillTS []int64
	touched := map[uint32]bool{}
	hashes := map[string]bool{}
	for _, a := range batch {
		for _, r := range a.Events {
			placed := map[string]bool{}
			for _, o := range r.Orders {
				if o.Err == nil && o.Status != "" {
					placed[o.OrderID] = true
					evs = append(evs, orderEvent{o.OrderID, "PLACEMENT", a.TS})
				}
			}
			for i := range r.Fills {
				t := r.Fills[i]
				fills, fillTS = append(fills, t), append(fillTS, a.TS)
				touched[t.Mkt] = true
				evs = append(evs, orderEvent{t.MakerOrder, "UPDATE", a.TS})
				if !placed[t.TakerOrder] {
					evs = append(evs, orderEvent{t.TakerOrder, "UPDATE", a.TS})
				}
			}
			for _, id := range r.Canceled {
				evs = append(evs, orderEvent{id, "CANCELLATION", a.TS})
			}
		}
	}
	if len(evs) == 0 {
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
			orders[h] = &orderCopy{o: *o, cond: mk.ConditionID, label: mk.Tokens[o.Outcome].Outcome, ticks: mk.Ticks, exists: true}
			orders[h].o.Trades = append([]string(nil), o.Trades...)
			touched[o.Mkt] = true
		}
		for id := range touched {
			views[id] = viewMarket(m.Market(id))
		}
	})
	if err != nil {
		return
	}
	// User channel: order events, then the fills' MATCHED trades.
	for _, e := range evs {
		oc := orders[e.hash]
		if oc == nil || len(f.userSessions(oc.o.APIKey)) == 0 {
			continue
		}
		f.pushUser(oc.o.APIKey, oc.cond, oc.frame(e.kind, e.ts))
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
			f.wait(pendingTrade{due: t.Time + f.s.opt.ChainDelay.Milliseconds(), step: 1, t: *t, v: v})
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
	for id, v := range views {
		f.marketFrames(seq, v, traded[id], ts)
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
			FeeRateBps: strconv.FormatInt(t.TakerFeeBps, 10), Market: v.cond, Price: v.price(p),
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
// frames), else the levels that changed since the last push. The state
// pushed is kept for every market, followed or not (bounded by markets ×
// streamDepth), so a subscriber's snapshot and the next change agree.
func (f *fan) marketFrames(seq uint64, v *marketView, traded bool, ts int64) {
	now := &sentBook{bids: levelMap(v.bids[0]), asks: levelMap(v.asks[0])}
	prev, seen := f.sent[v.id]
	f.sent[v.id] = now
	if len(f.marketSessions(v, 0)) == 0 && len(f.marketSessions(v, 1)) == 0 {
		return
	}
	sums := [2]bookSummary{v.summary(0, ts), v.summary(1, ts)}
	if traded || (seen && prev == nil) {
		for o := range 2 {
			b, _ := json.Marshal(bookFrame{sums[o], "book"})
			f.pushMarket(seq, v, o, b)
		}
		return
	}
	if prev == nil {
		prev = &sentBook{}
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
	now, step := f.s.now(), f.s.opt.ChainDelay.Milliseconds()
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
			st := "MINED"
			if p.step == 2 {
				st = "CONFIRMED"
			}
			upd := p.t.Time + int64(p.step)*step
			f.pushUser(p.t.TakerKey, p.v.cond, tradeFrameOf(&p.t, p.v, false, st, upd))
			f.pushUser(p.t.MakerKey, p.v.cond, tradeFrameOf(&p.t, p.v, true, st, upd))
			if p.step == 1 {
				p.step, p.due = 2, p.t.Time+2*step
				f.wait(p)
			}
		}
	}
}
