package sqlite

import (
	"context"
	"sort"
	"sync"

	"pmx/internal/amount"
	"pmx/internal/data/store"
)

// genCache keeps what the market routes read, for one catalog generation:
// each requested token's full price-tick history, each requested market's
// ranked holders and every token's outstanding shares. Apply publishes a new catalog (with an empty
// cache) after its commit, so a generation's cache never misses committed
// data, and stale generations are dropped with their catalog. Memory is
// bounded by the fills of the requested tokens (24 bytes a tick, a fill
// counting for both sides of a binary market) and the positions of the
// requested markets (two ranked copies each), plus one supply figure per
// token.
type genCache struct {
	mu      sync.Mutex
	ticks   map[int64]*tickEntry    // by token tid
	holders map[int64]*holdersEntry // by market mid
	supply  supplyEntry             // every token's outstanding shares
}

// supplyEntry is Σ positive balances per token tid; read-only once ready.
type supplyEntry struct {
	mu    sync.Mutex
	ready bool
	byTid map[int64]amount.Micro
}

type tickEntry struct {
	mu    sync.Mutex
	ready bool
	ticks []store.Tick // read-only once ready; ordered by (ts, seq)
}

// holdersEntry ranks a market's holders per token (amount descending, then
// address), netted and gross; read-only once ready.
type holdersEntry struct {
	mu         sync.Mutex
	ready      bool
	net, gross map[int64][]holding
}

func genEntry[E any](c *genCache, m *map[int64]*E, key int64) *E {
	c.mu.Lock()
	defer c.mu.Unlock()
	if *m == nil {
		*m = map[int64]*E{}
	}
	e := (*m)[key]
	if e == nil {
		e = new(E)
		(*m)[key] = e
	}
	return e
}

// tokenTicks returns every fill of token t as its price, through the cache.
// comp is the complement token's tid (−1 for none): its fills count at 1 − p.
func (db *DB) tokenTicks(ctx context.Context, cat *catalog, t *token, comp int64) ([]store.Tick, error) {
	e := genEntry(&cat.cache, &cat.cache.ticks, t.tid)
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
