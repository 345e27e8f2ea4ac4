package perpshttp

import (
	"context"
	"encoding/json"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/coder/websocket"

	"pmx/internal/exchange/engine"
	"pmx/internal/perps/perps"
	"pmx/internal/perps/perpsauth"
)

// WebSocket limits (perps.md §7, §8).
const (
	// ackGap separates a trading post's ack from the pushes it caused: the
	// official client registers its wait for the order's first push only
	// after it has processed the ack, so both must not reach it in one read.
	ackGap = 25 * time.Millisecond

	wsQueue      = 1024 // frames queued per connection before it is closed as a slow consumer
	wsMaxSubs    = 100
	wsBookLevels = 20
)

// privateChannels are accepted after auth. orders and fills push on change,
// portfolio and balances every 5 s; the others are acknowledged so the
// official client's session recipe works, and stay silent until their
// features exist.
var privateChannels = map[string]bool{"orders": true, "fills": true, "portfolio": true, "balances": true,
	"funding": true, "deposits": true, "withdrawals": true, "tpsl": true, "notifications": true}

type hub struct {
	mu    sync.RWMutex
	conns map[*wsConn]struct{}
}

type wsConn struct {
	s      *Server
	c      *websocket.Conn
	ip     string
	out    chan []byte
	cancel context.CancelFunc

	mu       sync.Mutex
	acct     string
	subs     map[string]bool
	seq      map[string]uint64
	lastSq   uint64
	inflight int      // trading posts being executed: their pushes wait for the ack
	held     [][]byte // pushes held while inflight > 0
	closed   bool
	hint     perpsauth.Hint // who signs on this connection (see perpsauth.Hint)
}

func (s *Server) wsHandler(w http.ResponseWriter, r *http.Request) {
	c, err := websocket.Accept(w, r, &websocket.AcceptOptions{InsecureSkipVerify: true})
	if err != nil {
		return
	}
	c.SetReadLimit(MaxBody)
	ctx, cancel := context.WithCancel(context.Background())
	conn := &wsConn{s: s, c: c, ip: clientIP(r), out: make(chan []byte, wsQueue), cancel: cancel,
		subs: map[string]bool{}, seq: map[string]uint64{}}
	s.hub.mu.Lock()
	s.hub.conns[conn] = struct{}{}
	s.hub.mu.Unlock()
	defer func() {
		s.hub.mu.Lock()
		delete(s.hub.conns, conn)
		s.hub.mu.Unlock()
		cancel()
	}()
	go conn.writer(ctx)
	// Idle close: a timer reset by every inbound message (a Read deadline
	// would tear the connection down without a close reason).
	idle := time.AfterFunc(s.opt.WSIdle, func() { c.Close(websocket.StatusPolicyViolation, "idle timeout") })
	defer idle.Stop()
	for {
		_, data, err := c.Read(ctx)
		if err != nil {
			c.Close(websocket.StatusNormalClosure, "")
			return
		}
		idle.Reset(s.opt.WSIdle)
		if len(data) > 0 && data[0] == '[' { // SDKs may batch frames in one message
			var frames []json.RawMessage
			if json.Unmarshal(data, &frames) != nil {
				conn.reply(nil, errBody{Status: "err", Error: "invalid_request"})
				continue
			}
			for _, f := range frames {
				conn.handle(f)
			}
			continue
		}
		conn.handle(data)
	}
}

func (c *wsConn) writer(ctx context.Context) {
	for {
		select {
		case <-ctx.Done():
			return
		case b := <-c.out:
			if b == nil { // pause marker: see ackGap
				time.Sleep(ackGap)
				continue
			}
			wctx, cancel := context.WithTimeout(ctx, 10*time.Second)
			err := c.c.Write(wctx, websocket.MessageText, b)
			cancel()
			if err != nil {
				c.cancel()
				return
			}
		}
	}
}

// enqueue queues one frame; a full queue closes the connection (the engine
// and the fan-out never wait for a client). Caller holds c.mu.
func (c *wsConn) enqueueLocked(b []byte) {
	if c.closed {
		return
	}
	select {
	case c.out <- b:
	default:
		c.closed = true
		go c.c.Close(websocket.StatusPolicyViolation, "slow consumer: send queue full")
	}
}

type wsFrame struct {
	ID  *int64          `json:"id"`
	Req string          `json:"req"`
	Op  json.RawMessage `json:"op"`
	Chs []string        `json:"chs"`
}

type wsReply struct {
	ID   *int64 `json:"id,omitempty"`
	Data any    `json:"data"`
}

func (c *wsConn) reply(id *int64, data any) {
	b, _ := json.Marshal(wsReply{ID: id, Data: data})
	c.mu.Lock()
	c.enqueueLocked(b)
	c.mu.Unlock()
}

func (c *wsConn) handle(raw []byte) {
	s := c.s
	var f wsFrame
	if err := json.Unmarshal(raw, &f); err != nil {
		c.reply(nil, errBody{Status: "err", Error: "invalid_request"})
		return
	}
	var op struct {
		Type string          `json:"type"`
		Args json.RawMessage `json:"args"`
	}
	if f.Req == "post" {
		_ = json.Unmarshal(f.Op, &op)
	}
	weight := 1
	isTrade := f.Req == "post" && op.Type != "ping" && op.Type != "auth"
	if isTrade && op.Type != "cancelAll" {
		weight += perpsauth.ArgCount(f.Op) / 20
	}
	if ok, _ := s.wsMsgs.take(c.ip, weight, s.now()); !ok {
		if isTrade && op.Type != "cancelAll" || f.Req != "post" {
			c.reply(f.ID, []errBody{{Status: "err", Error: "message_rate_limited"}})
		} else {
			c.reply(f.ID, errBody{Status: "err", Error: "message_rate_limited"})
		}
		return
	}
	switch f.Req {
	case "sub", "unsub":
		if f.Chs == nil || f.Op != nil { // e.g. "chs" nested in an "op": say so, not an empty answer
			c.reply(f.ID, []errBody{{Status: "err", Error: "invalid_request: " + strconv.Quote(f.Req) +
				` takes "chs", a list of channel names, beside "req" and no "op"`}})
			return
		}
		c.reply(f.ID, c.subscribe(f.Chs, f.Req == "sub"))
	case "post":
		switch op.Type {
		case "ping":
			c.mu.Lock()
			sq := c.lastSq
			c.mu.Unlock()
			c.reply(f.ID, map[string]any{"status": "ok", "ts": s.now().UnixMilli(), "sq": sq})
		case "auth":
			c.reply(f.ID, c.auth(op.Args))
		case "createOrders", "modifyOrders", "modifyOrdersCOID", "cancelOrders", "cancelOrdersCOID", "cancelAll":
			req, err := perpsauth.ParseRequest(raw)
			if err != nil {
				c.reply(f.ID, errResult(op.Type != "cancelAll", 400, err.Error()).body)
				return
			}
			// Hold this connection's pushes until the ack is queued, so the
			// ack precedes (and is a separate message from) the order's first push.
			c.mu.Lock()
			c.inflight++
			c.mu.Unlock()
			res := s.execTrade(op.Type, req, &c.hint)
			b, _ := json.Marshal(wsReply{ID: f.ID, Data: res.body})
			c.mu.Lock()
			c.enqueueLocked(b)
			c.inflight--
			if c.inflight == 0 && len(c.held) > 0 {
				c.enqueueLocked(nil)
				for _, h := range c.held {
					c.enqueueLocked(h)
				}
				c.held = nil
			}
			c.mu.Unlock()
		default:
			c.reply(f.ID, errBody{Status: "err", Error: "invalid_request: unknown op type " + strconv.Quote(op.Type)})
		}
	default:
		c.reply(f.ID, errBody{Status: "err", Error: "invalid_request: unknown req"})
	}
}

func (c *wsConn) auth(args json.RawMessage) errBody {
	var a struct {
		Proxy  string `json:"proxy"`
		Secret string `json:"secret"`
	}
	if json.Unmarshal(args, &a) != nil {
		return errBody{Status: "err", Error: "invalid_request"}
	}
	r, _ := http.NewRequest("GET", "/", nil)
	r.Header.Set("SVC-PROXY", a.Proxy)
	r.Header.Set("SVC-SECRET", a.Secret)
	acct, ok := c.s.headerAuth(r)
	if !ok {
		return errBody{Status: "err", Error: "unauthorized"}
	}
	c.mu.Lock()
	c.acct = acct
	c.mu.Unlock()
	return errBody{Status: "ok"}
}

func validPublic(ch string) bool {
	name, id, ok := strings.Cut(ch, "::")
	if ok && validMarketChannel(name, id) {
		return true
	}
	if !ok || (name != "trades" && name != "bbo" && name != "book") {
		return false
	}
	_, err := strconv.ParseUint(id, 10, 32)
	return err == nil
}

func (c *wsConn) subscribe(chs []string, on bool) []errBody {
	out := make([]errBody, 0, len(chs))
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, ch := range chs {
		switch {
		case !on:
			delete(c.subs, ch)
			out = append(out, errBody{Status: "ok"})
		case privateChannels[ch] && c.acct == "":
			out = append(out, errBody{Status: "err", Error: "unauthorized"})
		case !privateChannels[ch] && !validPublic(ch):
			out = append(out, errBody{Status: "err", Error: "invalid channel: " + ch})
		case !c.subs[ch] && len(c.subs) >= wsMaxSubs:
			out = append(out, errBody{Status: "err", Error: "subscription limit reached"})
		default:
			c.subs[ch] = true
			out = append(out, errBody{Status: "ok"})
		}
	}
	return out
}

// push sends data on ch if the connection subscribes to it (and, for private
// channels, is authenticated as acct). sq increases by exactly 1 per channel.
// data is pre-encoded JSON (encoded once per update, not once per connection).
func (c *wsConn) push(ch, acct string, ets int64, data []byte) { c.pushAs(ch, "", acct, ets, data) }

// pushAs is push for a frame labelled ch that a subscription to alias (the
// "::all" form of a public channel) also receives.
func (c *wsConn) pushAs(ch, alias, acct string, ets int64, data []byte) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !(c.subs[ch] || alias != "" && c.subs[alias]) || (acct != "" && c.acct != acct) {
		return
	}
	c.seq[ch]++
	c.lastSq++
	b := make([]byte, 0, len(data)+len(ch)+80)
	b = append(b, `{"ch":`...)
	b = strconv.AppendQuote(b, ch)
	b = append(b, `,"ts":`...)
	b = strconv.AppendInt(b, c.s.now().UnixMilli(), 10)
	b = append(b, `,"ets":`...)
	b = strconv.AppendInt(b, ets, 10)
	b = append(b, `,"sq":`...)
	b = strconv.AppendUint(b, c.seq[ch], 10)
	b = append(b, `,"data":`...)
	b = append(b, data...)
	b = append(b, '}')
	if c.inflight > 0 && acct != "" {
		if len(c.held) >= wsQueue {
			c.closed = true
			go c.c.Close(websocket.StatusPolicyViolation, "slow consumer: send queue full")
			return
		}
		c.held = append(c.held, b)
		return
	}
	c.enqueueLocked(b)
}

func (s *Server) conns() []*wsConn {
	s.hub.mu.RLock()
	out := make([]*wsConn, 0, len(s.hub.conns))
	for c := range s.hub.conns {
		out = append(out, c)
	}
	s.hub.mu.RUnlock()
	return out
}

type wsTrade struct {
	TID        uint64 `json:"tid"`
	IID        uint32 `json:"iid"`
	Side       string `json:"side"`
	P          string `json:"p"`
	Qty        string `json:"qty"`
	Settlement bool   `json:"settlement"`
	TS         int64  `json:"ts"`
	Hash       string `json:"hash"`
}

type wsBBO struct {
	IID uint32 `json:"iid"`
	BP  string `json:"bp,omitempty"`
	BQ  string `json:"bq,omitempty"`
	AP  string `json:"ap,omitempty"`
	AQ  string `json:"aq,omitempty"`
}

// fanout follows the engine and pushes every applied command's updates. The
// engine never waits for it; if it falls behind it is cut off and resubscribes
// (pushes of the missed commands are lost; clients re-read over REST).
func (s *Server) fanout(stop <-chan struct{}) {
	defer close(s.fanDone)
	for {
		sub := s.eng.Subscribe(4096)
		for batch := range sub.C {
			conns := s.conns()
			if len(conns) == 0 {
				continue
			}
			for _, ap := range batch {
				for i := range ap.Events {
					s.dispatch(conns, &ap.Events[i], ap.TS)
				}
			}
		}
		if !sub.Lagged() {
			return // engine closed
		}
		select {
		case <-stop:
			return
		default:
		}
		s.log.Warn("perps websocket fan-out lagged; resubscribing")
	}
}

func (s *Server) dispatch(conns []*wsConn, ev *perps.Event, ets int64) {
	for _, o := range ev.Orders {
		data, _ := json.Marshal(o)
		for _, c := range conns {
			c.push("orders", o.Account, ets, data)
		}
	}
	for i := 0; i < len(ev.Fills); {
		j := i
		var fs []perps.FillWire
		for ; j < len(ev.Fills) && ev.Fills[j].Account == ev.Fills[i].Account; j++ {
			fs = append(fs, ev.Fills[j].Fill)
		}
		data, _ := json.Marshal(fs)
		for _, c := range conns {
			c.push("fills", ev.Fills[i].Account, ets, data)
		}
		i = j
	}
	for i := 0; i < len(ev.Trades); {
		j := i
		var ts []wsTrade
		for ; j < len(ev.Trades) && ev.Trades[j].ID == ev.Trades[i].ID; j++ {
			t := ev.Trades[j]
			ts = append(ts, wsTrade{TID: t.TradeID, IID: t.ID, Side: t.Side, P: t.Price, Qty: t.Quantity, TS: t.Timestamp, Hash: t.Hash})
		}
		ch := "trades::" + strconv.FormatUint(uint64(ev.Trades[i].ID), 10)
		data, _ := json.Marshal(ts)
		for _, c := range conns {
			c.push(ch, "", ets, data)
		}
		i = j
	}
	for _, b := range ev.BBOs {
		ch := "bbo::" + strconv.FormatUint(uint64(b.ID), 10)
		data, _ := json.Marshal(wsBBO{IID: b.ID, BP: b.BidPrice, BQ: b.BidQty, AP: b.AskPrice, AQ: b.AskQty})
		for _, c := range conns {
			c.push(ch, "", ets, data)
		}
	}
}

// pushAccounts sends portfolio and balances snapshots to the authenticated
// connections subscribed to them (perps.md §8.6: every 5 s).
func (s *Server) pushAccounts(conns []*wsConn) {
	want := map[string]bool{}
	for _, c := range conns {
		c.mu.Lock()
		if c.acct != "" && (c.subs["portfolio"] || c.subs["balances"]) {
			want[c.acct] = true
		}
		c.mu.Unlock()
	}
	if len(want) == 0 {
		return
	}
	now := s.now().UnixMilli()
	ports, bals := map[string][]byte{}, map[string][]byte{}
	err := s.eng.View(func(mm engine.Machine[perps.Event], _ uint64) {
		m := mm.(*perps.Machine)
		for a := range want {
			ports[a], _ = json.Marshal(m.PortfolioOf(a, now))
			bals[a], _ = json.Marshal(m.BalancesOf(a)[0])
		}
	})
	if err != nil {
		return
	}
	for _, c := range conns {
		c.mu.Lock()
		a := c.acct
		c.mu.Unlock()
		if a != "" && ports[a] != nil {
			c.push("portfolio", a, now, ports[a])
			c.push("balances", a, now, bals[a])
		}
	}
}

// bookTicker pushes full book snapshots (top 20) every 100 ms to book::{iid}
// subscribers (perps.md §8.5), and account snapshots every 5 s.
func (s *Server) bookTicker(stop <-chan struct{}) {
	t := time.NewTicker(100 * time.Millisecond)
	defer t.Stop()
	for tick := 1; ; tick++ {
		select {
		case <-stop:
			return
		case <-t.C:
		}
		conns := s.conns()
		if tick%50 == 0 { // every 5 s
			s.pushAccounts(conns)
		}
		s.pushMarket(conns, tick)
		want := map[uint32]bool{}
		for _, c := range conns {
			c.mu.Lock()
			for ch := range c.subs {
				if id, ok := strings.CutPrefix(ch, "book::"); ok {
					if n, err := strconv.ParseUint(id, 10, 32); err == nil {
						want[uint32(n)] = true
					}
				}
			}
			c.mu.Unlock()
		}
		if len(want) == 0 {
			continue
		}
		books := map[uint32]perps.BookWire{}
		now := s.now().UnixMilli()
		err := s.eng.View(func(mm engine.Machine[perps.Event], _ uint64) {
			m := mm.(*perps.Machine)
			for id := range want {
				books[id] = m.Book(id, wsBookLevels, now)
			}
		})
		if err != nil {
			return
		}
		for id, b := range books {
			ch := "book::" + strconv.FormatUint(uint64(id), 10)
			data, _ := json.Marshal(map[string][][2]string{"b": b.Bids, "a": b.Asks})
			for _, c := range conns {
				c.push(ch, "", 0, data)
			}
		}
	}
}
