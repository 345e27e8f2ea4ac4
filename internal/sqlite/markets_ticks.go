package sqlite

import (
	"context"
	"sort"
	"sync"

	"pmx/internal/amount"
	"pmx/internal/store"
)

// tickCache keeps the full price-tick history of each token asked for, for
// one catalog generation: Apply publishes a new catalog (with an empty
// cache) after its commit, so a generation's cache never misses a committed
// fill, and stale generations are dropped with their catalog. Memory is
// bounded by the fills of the requested tokens (24 bytes a tick, a fill
// counting for both sides of a binary market).
type tickCache struct {
	mu sync.Mutex
	m  map[int64]*tickEntry
}

type tickEntry struct {
	mu    sync.Mutex
	ready bool
	ticks []store.Tick // read-only once ready; ordered by (ts, seq)
}

func (c *tickCache) entry(tid int64) *tickEntry {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.m == nil {
		c.m = map[int64]*tickEntry{}
	}
	e := c.m[tid]
	if e == nil {
		e = &tickEntry{}
		c.m[tid] = e
	}
	return e
}

// tokenTicks returns every fill of token t as its price, through the cache.
// comp is the complement token's tid (−1 for none): its fills count at 1 − p.
func (db *DB) tokenTicks(ctx context.Context, cat *catalog, t *token, comp int64) ([]store.Tick, error) {
	e := cat.ticks.entry(t.tid)
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.ready {
		return e.ticks, nil
	}
	rows, err := db.r.QueryContext(ctx, `SELECT seq, ts, tid, price FROM activity
		WHERE tid IN (?, ?) AND type = 0 AND taker = 1 ORDER BY ts, seq`, t.tid, comp)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []store.Tick
	for rows.Next() {
		var k store.Tick
		var tid int64
		if err := rows.Scan(&k.Seq, &k.Timestamp, &tid, &k.Price); err != nil {
			return nil, err
		}
		if tid != t.tid {
			k.Price = amount.One - k.Price
		}
		out = append(out, k)
	}
	if err := rows.Err(); err != nil {
		return nil, err // not cached: the next request retries
	}
	e.ticks, e.ready = out, true
	return out, nil
}

// window cuts ticks to From ≤ ts < To (binary search on the ordered slice).
func window(ticks []store.Tick, from, to int64) []store.Tick {
	lo := sort.Search(len(ticks), func(i int) bool { return ticks[i].Timestamp >= from })
	hi := sort.Search(len(ticks), func(i int) bool { return ticks[i].Timestamp >= to })
	if hi < lo {
		return nil
	}
	return ticks[lo:hi]
}
