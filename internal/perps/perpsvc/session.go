package perpsvc

import (
	"strconv"
	"strings"
	"sync"
)

// WebSocket limits (perps.md §7, §8).
const (
	SessionQueue = 1024 // frames queued per session before it is closed as a slow consumer
	MaxSubs      = 100
	bookLevels   = 20
)

// privateChannels are accepted after auth. orders and fills push on change,
// portfolio and balances every 5 s, funding at each settlement (one charge
// per push); the others are acknowledged so the
// official client's session recipe works, and stay silent until their
// features exist.
var privateChannels = map[string]bool{"orders": true, "fills": true, "portfolio": true, "balances": true,
	"funding": true, "deposits": true, "withdrawals": true, "tpsl": true, "notifications": true}

// Session is one WebSocket connection as the service sees it: its
// authentication, subscriptions, per-channel sequence numbers and queue of
// encoded frames. The transport writes Out() to the socket; Pause (nil)
// frames ask it to wait before the next write (see BeginPost).
type Session struct {
	s    *Service
	out  chan []byte
	kill func(reason string, shutdown bool) // the transport closes the socket

	mu       sync.Mutex
	acct     string
	subs     map[string]bool
	seq      map[string]uint64
	lastSq   uint64
	inflight int      // trading posts being executed: their pushes wait for the ack
	held     [][]byte // pushes held while inflight > 0
	closed   bool
}

// NewSession registers a session. kill is called (at most once, from any
// goroutine) when the service ends it: a full queue (slow consumer) or
// shutdown. The caller must Close it when the connection ends.
func (s *Service) NewSession(kill func(reason string, shutdown bool)) *Session {
	c := &Session{s: s, out: make(chan []byte, SessionQueue), kill: kill, subs: map[string]bool{},
		seq: map[string]uint64{}}
	s.hub.add(c)
	return c
}

// Out is the session's frames, in order; nil is a pause marker.
func (c *Session) Out() <-chan []byte { return c.out }

// Close unregisters the session and its subscriptions.
func (c *Session) Close() {
	c.mu.Lock()
	c.closed = true
	c.s.hub.remove(c, c.acct, c.subs)
	c.mu.Unlock()
}

func (c *Session) end(reason string, shutdown bool) {
	if c.kill != nil {
		go c.kill(reason, shutdown)
	}
}

// enqueueLocked queues one frame; a full queue ends the session (the engine
// and the fan-out never wait for a client). Caller holds c.mu.
func (c *Session) enqueueLocked(b []byte) {
	if c.closed {
		return
	}
	select {
	case c.out <- b:
	default:
		c.closed = true
		c.end("slow consumer: send queue full", false)
	}
}

// Reply queues one frame.
func (c *Session) Reply(b []byte) {
	c.mu.Lock()
	c.enqueueLocked(b)
	c.mu.Unlock()
}

// LastSq is the number of pushes sent on this session so far.
func (c *Session) LastSq() uint64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.lastSq
}

// BeginPost holds the session's private pushes until EndPost queues a
// trading post's ack, so the ack precedes (and is a separate message from)
// the order's first push.
func (c *Session) BeginPost() {
	c.mu.Lock()
	c.inflight++
	c.mu.Unlock()
}

// EndPost queues ack, then a pause marker (the writer keeps pushes off the
// wire for the ack gap after it: also those the fan-out delivers later
// than the ack), then the held pushes.
func (c *Session) EndPost(ack []byte) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.enqueueLocked(ack)
	c.inflight--
	if c.inflight == 0 {
		c.enqueueLocked(nil)
		for _, h := range c.held {
			c.enqueueLocked(h)
		}
		c.held = nil
	}
}

// Auth authenticates the session as the account of an active proxy. A
// failed attempt drops any earlier authentication and its private
// subscriptions: a session is never left acting on credentials its last
// auth did not prove.
func (c *Session) Auth(proxy, secret string) error {
	acct, ok := c.s.Authenticate(proxy, secret)
	c.mu.Lock()
	defer c.mu.Unlock()
	old := c.acct
	priv := map[string]bool{}
	for ch := range c.subs {
		if privateChannels[ch] {
			priv[ch] = true
		}
	}
	c.s.hub.remove(c, old, priv)
	if !ok {
		c.acct = ""
		for ch := range priv {
			delete(c.subs, ch)
		}
		return E(CodeUnauthorized, "")
	}
	c.acct = acct
	c.s.hub.addSubs(c, acct, priv)
	return nil
}

// Account is the authenticated account, or "".
func (c *Session) Account() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.acct
}

// Subscribe adds (on) or removes channels; one result per channel, nil for
// ok.
func (c *Session) Subscribe(chs []string, on bool) []error {
	out := make([]error, 0, len(chs))
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, ch := range chs {
		switch {
		case !on:
			if c.subs[ch] {
				delete(c.subs, ch)
				c.s.hub.remove(c, c.acct, map[string]bool{ch: true})
			}
			out = append(out, nil)
		case privateChannels[ch] && c.acct == "":
			out = append(out, E(CodeUnauthorized, ""))
		case !privateChannels[ch] && !ValidPublicChannel(ch):
			out = append(out, E(CodeInvalidChannel, ch))
		case !c.subs[ch] && len(c.subs) >= MaxSubs:
			out = append(out, E(CodeSubscriptionLimit, ""))
		default:
			if !c.subs[ch] {
				c.subs[ch] = true
				c.s.hub.addSubs(c, c.acct, map[string]bool{ch: true})
			}
			out = append(out, nil)
		}
	}
	return out
}

// ValidPublicChannel reports whether ch names a public channel.
func ValidPublicChannel(ch string) bool {
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

// push sends data on ch if the session subscribes to it (and, for private
// channels, is authenticated as acct). sq increases by exactly 1 per
// channel. data is pre-encoded JSON (encoded once per update, not once per
// session).
func (c *Session) push(ch, acct string, ts, ets int64, data []byte) {
	c.pushAs(ch, "", acct, ts, ets, data)
}

// pushAs is push for a frame labelled ch that a subscription to alias (the
// "::all" form of a public channel) also receives.
func (c *Session) pushAs(ch, alias, acct string, ts, ets int64, data []byte) {
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
	b = strconv.AppendInt(b, ts, 10)
	b = append(b, `,"ets":`...)
	b = strconv.AppendInt(b, ets, 10)
	b = append(b, `,"sq":`...)
	b = strconv.AppendUint(b, c.seq[ch], 10)
	b = append(b, `,"data":`...)
	b = append(b, data...)
	b = append(b, '}')
	if c.inflight > 0 && acct != "" {
		if len(c.held) >= SessionQueue {
			c.closed = true
			c.end("slow consumer: send queue full", false)
			return
		}
		c.held = append(c.held, b)
		return
	}
	c.enqueueLocked(b)
}
