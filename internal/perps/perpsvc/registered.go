package perpsvc

import (
	"sync"
	"time"

	"pmx/internal/perps/perps"
)

// GET /v1/info/registered: registration is permanent, so only a negative
// answer may go stale; the contract lets it be cached up to 10 s. The cache
// spares the engine repeated lookups of unknown addresses (a client polling
// for its own registration, or a scan), and a registration is seen at once:
// every command that can register an account bumps a generation after it
// was applied, and a negative answer is only served while the generation it
// was read under is current. The generation is read before the engine
// lookup, so a lookup that raced a registration is never served later.

// RegisteredNegativeTTL is how long a negative answer is served.
const RegisteredNegativeTTL = 10 * time.Second

// registeredCacheMax bounds the cached negatives; a full cache starts over.
const registeredCacheMax = 1 << 16

type regCache struct {
	mu  sync.Mutex
	gen uint64               // registrations possibly applied
	neg map[string]time.Time // address → when its negative was read (under gen)
	at  uint64               // gen the entries of neg were read under
}

// get reports a fresh cached negative for addr and the generation to read
// a miss under.
func (c *regCache) get(addr string, now time.Time) (hit bool, gen uint64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.at == c.gen {
		if t, ok := c.neg[addr]; ok && now.Sub(t) < RegisteredNegativeTTL {
			return true, c.gen
		}
	}
	return false, c.gen
}

// put caches a negative for addr read under gen (dropped if a registration
// came since).
func (c *regCache) put(addr string, gen uint64, now time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if gen != c.gen {
		return
	}
	if c.at != c.gen || len(c.neg) >= registeredCacheMax || c.neg == nil {
		c.neg, c.at = make(map[string]time.Time), c.gen
	}
	c.neg[addr] = now
}

// bump invalidates every cached negative.
func (c *regCache) bump() {
	c.mu.Lock()
	c.gen++
	c.neg = nil
	c.mu.Unlock()
}

// registers reports whether a command of this kind can create an account.
func registers(kind string) bool {
	switch kind {
	case perps.KCreateProxy, perps.KDeposit, perps.KTransfer, perps.KLeverage, perps.KAutoCancel:
		return true
	}
	return false
}

// Registered answers whether addr (lower-case hex) has an account.
func (s *Service) Registered(addr string) (bool, error) {
	now := s.now()
	hit, gen := s.reg.get(addr, now)
	if hit {
		return false, nil
	}
	var ok bool
	if err := s.View(func(m *perps.Machine) { ok = m.Registered(addr) }); err != nil {
		return false, err
	}
	if !ok {
		s.reg.put(addr, gen, now)
	}
	return ok, nil
}
