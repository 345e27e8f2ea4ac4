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
// payouts once resolved), open interest (outstanding complete sets: the
// supply of outcome 0, one USDC each) and the one-hour and one-day price
// changes of outcome 0 (its mark minus priceAt the window's start).
// Liquidity and best bid/ask belong to the order book, not the ledger: the
// venue's CLOB supplies them (clobsvc.BookLive).
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
		if l.LastTradePrice != nil && len(m.tokens) == 2 && m.tokens[0] != nil && m.tokens[1] != nil {
			for _, w := range []struct {
				secs int64
				dst  **amount.Micro
			}{{86400, &l.OneDayPriceChange}, {3600, &l.OneHourPriceChange}} {
				ref, ok, err := db.priceAt(ctx, m.tokens[0].tid, m.tokens[1].tid, now-w.secs)
				if err != nil {
					return nil, err
				}
				if ok {
					d := *l.LastTradePrice - ref
					*w.dst = &d
				}
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

// priceAt is outcome 0's price at from (Unix s) on a binary market: the
// last trade of either outcome at or before it (a trade of outcome 1 at p
// puts outcome 0 at 1 − p, as the marks do), else the first trade after it
// (a market that began trading inside the window changes from its first
// price). ok is false when the market never traded.
func (db *DB) priceAt(ctx context.Context, tid0, tid1, from int64) (amount.Micro, bool, error) {
	const before = `SELECT ts, price FROM activity WHERE tid = ? AND type = 0 AND taker = 1 AND ts <= ? ORDER BY ts DESC LIMIT 1`
	const after = `SELECT ts, price FROM activity WHERE tid = ? AND type = 0 AND taker = 1 AND ts > ? ORDER BY ts LIMIT 1`
	for _, q := range []string{before, after} {
		var best amount.Micro
		bestTS, found := int64(0), false
		for i, tid := range []int64{tid0, tid1} {
			var ts, price int64
			err := db.r.QueryRowContext(ctx, q, tid, from).Scan(&ts, &price)
			if err == sql.ErrNoRows {
				continue
			}
			if err != nil {
				return 0, false, err
			}
			p := amount.Micro(price)
			if i == 1 {
				p = amount.One - p
			}
			if !found || (q == before && ts > bestTS) || (q == after && ts < bestTS) {
				best, bestTS, found = p, ts, true
			}
		}
		if found {
			return best, true, nil
		}
	}
	return 0, false, nil
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
