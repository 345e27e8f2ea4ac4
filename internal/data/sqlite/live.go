package sqlite

import (
	"context"
	"database/sql"
	"sync"

	"pmx/internal/amount"
	gamma "pmx/internal/catalog/catalog"
)

var (
	_ gamma.LiveFields       = (*DB)(nil)
	_ gamma.LiveGenerational = (*DB)(nil)
)

// LiveGeneration implements gamma.LiveGenerational: Live's answers are a
// function of (published catalog, minute), and each distinct pair gets its
// own liveCache with a fresh, increasing number. A pair never comes back
// (catalogs are new pointers; a clock that goes back gets a new cache), so
// equal numbers mean equal answers.
func (db *DB) LiveGeneration() uint64 {
	return db.liveCache(db.cat.Load(), db.clock().Unix()/60).gen
}

// Live serves the catalog's live market fields from the data store, so the
// catalog never freezes them at import: volume (all-time USDC), 24-hour
// volume, the last trade price (outcome 0's mark), outcome prices (marks, or
// payouts once resolved) and open interest (outstanding complete sets: the
// supply of outcome 0, one USDC each). Liquidity and best bid/ask belong to
// the order book, not the ledger, and are left to the stored values.
//
// Results are cached per market until the store publishes a new catalog
// (every Apply that changes markets or marks) or the minute turns (the 24-hour
// window moves), so listings cost map lookups, not queries.
func (db *DB) Live(ctx context.Context, conditionIDs []string) (map[string]gamma.Live, error) {
	cat := db.cat.Load()
	now := db.clock().Unix()
	out := make(map[string]gamma.Live, len(conditionIDs))
	lc := db.liveCache(cat, now/60)
	for _, id := range conditionIDs {
		m := cat.byCond[id]
		if m == nil || m.isCombo || len(m.tokens) == 0 {
			continue
		}
		if l, ok := lc.get(id); ok {
			out[id] = l
			continue
		}
		l := gamma.Live{}
		vol := m.volumeUSDC
		l.Volume = &vol
		var v24, oi sql.NullInt64
		if err := db.r.QueryRowContext(ctx,
			`SELECT SUM(usdc) FROM activity WHERE mid = ? AND ts >= ? AND type = 0 AND taker = 1`,
			m.mid, now-86400).Scan(&v24); err != nil {
			return nil, err
		}
		v := amount.Micro(v24.Int64)
		l.Volume24hr = &v
		if t0 := m.tokens[0]; t0 != nil {
			// mid first: positions are indexed by market, not by token.
			if err := db.r.QueryRowContext(ctx, `SELECT SUM(size) FROM positions WHERE mid = ? AND tid = ? AND size > 0`, m.mid, t0.tid).Scan(&oi); err != nil {
				return nil, err
			}
			o := amount.Micro(oi.Int64)
			l.OpenInterest = &o
			if t0.priced || m.resolved {
				p := cat.mark(t0)
				l.LastTradePrice = &p
			}
		}
		prices := make([]amount.Micro, len(m.tokens))
		known := m.resolved
		for i, t := range m.tokens {
			if t != nil {
				prices[i] = cat.mark(t)
				known = known || t.priced
			}
		}
		if known {
			l.OutcomePrices = prices
		}
		out[id] = l
		lc.put(id, l)
	}
	return out, nil
}

// liveCache holds computed live fields for one (catalog, minute).
type liveCache struct {
	gen    uint64 // from DB.liveGen, unique per cache
	cat    *catalog
	minute int64
	mu     sync.RWMutex
	m      map[string]gamma.Live
}

func (c *liveCache) get(id string) (gamma.Live, bool) {
	c.mu.RLock()
	defer c.mu.RUnlock()
	l, ok := c.m[id]
	return l, ok
}

func (c *liveCache) put(id string, l gamma.Live) {
	c.mu.Lock()
	c.m[id] = l
	c.mu.Unlock()
}

func (db *DB) liveCache(cat *catalog, minute int64) *liveCache {
	if c := db.live.Load(); c != nil && c.cat == cat && c.minute == minute {
		return c
	}
	c := &liveCache{gen: db.liveGen.Add(1), cat: cat, minute: minute, m: map[string]gamma.Live{}}
	db.live.Store(c)
	return c
}
