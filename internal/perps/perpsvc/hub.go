package perpsvc

import (
	"strings"
	"sync"
)

// hub indexes sessions by what they subscribe to, so an update reaches its
// subscribers without a scan of every session. A public channel is keyed by
// its name; a private one by name and account ("orders|0xabc…"), so an
// account's update finds exactly its own sessions.
//
// Lock order: Session.mu, then hub.mu (Subscribe and Auth update the index
// under the session's lock); the fan-out never holds hub.mu while it takes a
// session's lock (it copies the subscribers first).
type hub struct {
	mu       sync.RWMutex
	sessions map[*Session]struct{}
	index    map[string]map[*Session]struct{}
}

func (h *hub) init() {
	h.sessions = map[*Session]struct{}{}
	h.index = map[string]map[*Session]struct{}{}
}

func indexKey(ch, acct string) string {
	if privateChannels[ch] {
		return ch + "|" + acct
	}
	return ch
}

func (h *hub) add(c *Session) {
	h.mu.Lock()
	h.sessions[c] = struct{}{}
	h.mu.Unlock()
}

// addSubs indexes c under chs (c.mu held).
func (h *hub) addSubs(c *Session, acct string, chs map[string]bool) {
	h.mu.Lock()
	for ch := range chs {
		k := indexKey(ch, acct)
		set := h.index[k]
		if set == nil {
			set = map[*Session]struct{}{}
			h.index[k] = set
		}
		set[c] = struct{}{}
	}
	h.mu.Unlock()
}

// remove drops c's index entries for chs; with every channel of c (Close),
// c itself too (c.mu held).
func (h *hub) remove(c *Session, acct string, chs map[string]bool) {
	h.mu.Lock()
	for ch := range chs {
		k := indexKey(ch, acct)
		if set := h.index[k]; set != nil {
			delete(set, c)
			if len(set) == 0 {
				delete(h.index, k)
			}
		}
	}
	if c.closed {
		delete(h.sessions, c)
	}
	h.mu.Unlock()
}

// subscribers appends to dst the sessions subscribed to any of keys, each
// once.
func (h *hub) subscribers(dst []*Session, keys ...string) []*Session {
	h.mu.RLock()
	defer h.mu.RUnlock()
	for i, k := range keys {
	next:
		for c := range h.index[k] {
			for _, prev := range keys[:i] {
				if _, dup := h.index[prev][c]; dup {
					continue next
				}
			}
			dst = append(dst, c)
		}
	}
	return dst
}

// channels lists the subscribed index keys that start with prefix.
func (h *hub) channels(prefix string) []string {
	h.mu.RLock()
	defer h.mu.RUnlock()
	var out []string
	for k := range h.index {
		if strings.HasPrefix(k, prefix) {
			out = append(out, k)
		}
	}
	return out
}

func (h *hub) all() []*Session {
	h.mu.RLock()
	defer h.mu.RUnlock()
	out := make([]*Session, 0, len(h.sessions))
	for c := range h.sessions {
		out = append(out, c)
	}
	return out
}

func (h *hub) empty() bool {
	h.mu.RLock()
	defer h.mu.RUnlock()
	return len(h.index) == 0
}
