package clobsvc

import (
	"errors"
	"sync"
	"sync/atomic"
)

// The CLOB WebSocket's service side (docs/clob.md "WebSocket"): sessions,
// their subscriptions and the index the fan-out (streamfan.go) pushes
// through. clobws owns the sockets; a session is what the service sees of
// one connection.

// Stream limits.
const (
	StreamQueue     = 1024 // frames queued per session before it is closed as a slow consumer
	MaxStreamAssets = 1000 // asset ids one market connection follows
	MaxStreamConds  = 1000 // condition ids one user connection filters by
)

// Stream errors (clobws answers them; none reaches the engine).
var (
	ErrStreamLimit  = errors.New("too many subscriptions")
	ErrStreamClosed = errors.New("session closed")
)

// StreamSession is one WebSocket connection: the market channel (asset
// ids) or the user channel (an API key and an optional market filter).
type StreamSession struct {
	s    *Service
	user bool
	out  chan []byte
	kill func(reason string, shutdown bool) // the transport closes the socket

	mu     sync.Mutex
	assets map[string]uint64 // market channel: asset id -> engine seq of its snapshot
	key    string            // user channel: the authenticated API key
	conds  map[string]bool   // user channel: market filter (empty: every market)
	closed bool
}

// streamHub indexes sessions by asset id and by API key, so a frame
// reaches its sessions without a scan of every connection.
//
// Lock order: StreamSession.mu, then streamHub.mu (subscribe and auth
// update the index under the session's lock); the fan-out copies the
// subscribers and releases the index before it takes a session's lock.
type streamHub struct {
	mu       sync.RWMutex
	sessions map[*StreamSession]struct{}
	byAsset  map[string]map[*StreamSession]struct{}
	byKey    map[string]map[*StreamSession]struct{}
	down     bool
	drops    atomic.Uint64 // sessions closed as slow consumers
	// seeds are the books (YES terms) of the latest subscribe snapshots, per
	// market: the fan-out's starting point for a market it did not follow.
	seeds map[uint32]*sentBook
}

func (h *streamHub) index(m map[string]map[*StreamSession]struct{}, k string, c *StreamSession, on bool) {
	set := m[k]
	if on {
		if set == nil {
			set = map[*StreamSession]struct{}{}
			m[k] = set
		}
		set[c] = struct{}{}
		return
	}
	delete(set, c)
	if len(set) == 0 {
		delete(m, k)
	}
}

// followed reports whether any market session follows token.
func (h *streamHub) followed(token string) bool {
	h.mu.RLock()
	defer h.mu.RUnlock()
	return len(h.byAsset[token]) > 0
}

// seed takes the subscribe snapshot's book of market id, if any.
func (h *streamHub) seed(id uint32) *sentBook {
	h.mu.Lock()
	defer h.mu.Unlock()
	b := h.seeds[id]
	delete(h.seeds, id)
	return b
}

// subscribers appends the sessions indexed under k.
func (h *streamHub) subscribers(dst []*StreamSession, m map[string]map[*StreamSession]struct{}, k string) []*StreamSession {
	h.mu.RLock()
	for c := range m[k] {
		dst = append(dst, c)
	}
	h.mu.RUnlock()
	return dst
}

// NewStreamSession registers a session of the market (user false) or user
// channel. kill is called at most once, from any goroutine, when the
// service ends the session: a full queue or shutdown. The caller must
// Close it when the connection ends.
func (s *Service) NewStreamSession(user bool, kill func(reason string, shutdown bool)) *StreamSession {
	c := &StreamSession{s: s, user: user, out: make(chan []byte, s.opt.StreamQueue), kill: kill,
		assets: map[string]uint64{}, conds: map[string]bool{}}
	h := &s.hub
	h.mu.Lock()
	if h.down {
		c.closed = true
		go kill("server shutting down", true)
	} else {
		h.sessions[c] = struct{}{}
	}
	h.mu.Unlock()
	return c
}

// StreamSessions is the number of open sessions.
func (s *Service) StreamSessions() int {
	s.hub.mu.RLock()
	defer s.hub.mu.RUnlock()
	return len(s.hub.sessions)
}

// StreamDrops is the number of sessions closed as slow consumers.
func (s *Service) StreamDrops() uint64 { return s.hub.drops.Load() }

// Out is the session's frames, in order.
func (c *StreamSession) Out() <-chan []byte { return c.out }

// Close unregisters the session.
func (c *StreamSession) Close() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.closed = true
	h := &c.s.hub
	h.mu.Lock()
	for a := range c.assets {
		h.index(h.byAsset, a, c, false)
	}
	if c.key != "" {
		h.index(h.byKey, c.key, c, false)
	}
	delete(h.sessions, c)
	h.mu.Unlock()
}

// enqueueLocked queues one frame; a full queue ends the session (the
// engine and the fan-out never wait for a client). Caller holds c.mu.
func (c *StreamSession) enqueueLocked(b []byte) {
	if c.closed {
		return
	}
	select {
	case c.out <- b:
	default:
		c.closed = true
		c.s.hub.drops.Add(1)
		go c.kill("slow consumer: send queue full", false)
	}
}

// Reply queues one frame (PONG, an error text).
func (c *StreamSession) Reply(b []byte) {
	c.mu.Lock()
	c.enqueueLocked(b)
	c.mu.Unlock()
}

// SubscribeAssets adds (on) or removes asset ids on a market session. New
// ids get their book snapshot, one message (a JSON array of book frames,
// as production sends the initial dump) for the ids this venue trades;
// unknown ids are followed silently, as production does.
func (c *StreamSession) SubscribeAssets(ids []string, on bool) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		return ErrStreamClosed
	}
	h := &c.s.hub
	if !on {
		h.mu.Lock()
		for _, id := range ids {
			if _, ok := c.assets[id]; ok {
				delete(c.assets, id)
				h.index(h.byAsset, id, c, false)
			}
		}
		h.mu.Unlock()
		return nil
	}
	var fresh []string
	for _, id := range ids {
		if _, ok := c.assets[id]; !ok && !contains(fresh, id) {
			fresh = append(fresh, id)
		}
	}
	if len(c.assets)+len(fresh) > MaxStreamAssets {
		return ErrStreamLimit
	}
	if len(fresh) == 0 {
		return nil
	}
	// Index first, then read the snapshot: a frame the fan-out read before
	// the snapshot carries an older engine seq and is dropped (pushMarket).
	h.mu.Lock()
	for _, id := range fresh {
		c.assets[id] = 0
		h.index(h.byAsset, id, c, true)
	}
	h.mu.Unlock()
	b, seq, views, err := c.s.bookDump(fresh)
	if err != nil {
		return err
	}
	h.mu.Lock()
	for id, v := range views {
		h.seeds[id] = &sentBook{bids: levelMap(v.bids[0]), asks: levelMap(v.asks[0])}
	}
	h.mu.Unlock()
	for _, id := range fresh {
		c.assets[id] = seq
	}
	if b != nil {
		c.enqueueLocked(b)
	}
	return nil
}

// AuthUser binds a user session to an API key (its credentials checked by
// the caller) and its market filter; a second auth replaces the first.
func (c *StreamSession) AuthUser(key string, conds []string) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		return ErrStreamClosed
	}
	if len(conds) > MaxStreamConds {
		return ErrStreamLimit
	}
	h := &c.s.hub
	h.mu.Lock()
	if c.key != "" {
		h.index(h.byKey, c.key, c, false)
	}
	c.key = key
	h.index(h.byKey, key, c, true)
	h.mu.Unlock()
	c.conds = map[string]bool{}
	for _, m := range conds {
		c.conds[m] = true
	}
	return nil
}

// UserKey is the session's API key, or "" before auth.
func (c *StreamSession) UserKey() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.key
}

// FilterMarkets adds (on) or removes condition ids from a user session's
// filter. Removing the last one leaves no filter: every market, as
// production's subscription without markets.
func (c *StreamSession) FilterMarkets(conds []string, on bool) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, m := range conds {
		if on && !c.conds[m] && len(c.conds) >= MaxStreamConds {
			return ErrStreamLimit
		}
		if on {
			c.conds[m] = true
		} else {
			delete(c.conds, m)
		}
	}
	return nil
}

// pushMarket queues a market frame for asset read at engine seq, unless
// the session's snapshot of asset is newer.
func (c *StreamSession) pushMarket(asset string, seq uint64, b []byte) {
	c.mu.Lock()
	if at, ok := c.assets[asset]; ok && seq >= at {
		c.enqueueLocked(b)
	}
	c.mu.Unlock()
}

// pushUser queues a user frame of market cond for key.
func (c *StreamSession) pushUser(key, cond string, b []byte) {
	c.mu.Lock()
	if c.key == key && (len(c.conds) == 0 || c.conds[cond]) {
		c.enqueueLocked(b)
	}
	c.mu.Unlock()
}

// closeStreams ends every session (shutdown) and refuses new ones.
func (s *Service) closeStreams() {
	h := &s.hub
	h.mu.Lock()
	h.down = true
	all := make([]*StreamSession, 0, len(h.sessions))
	for c := range h.sessions {
		all = append(all, c)
	}
	h.mu.Unlock()
	for _, c := range all {
		c.mu.Lock()
		if !c.closed {
			c.closed = true
			go c.kill("server shutting down", true)
		}
		c.mu.Unlock()
	}
}

func contains(xs []string, x string) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}
