package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"sync"

	"pmx/internal/data/store"
)

// Boards are computed whole per (data generation, window, ...) and cached in
// memory: every request of a board between two Applies reads the same
// immutable result, and the first request after an Apply rebuilds it. The
// generation is the published catalog's gen: every committed Apply publishes
// a new catalog after its commit, so a generation never misses committed
// data (a board built just before a commit is replaced on the next request).

// boardCache memoises board results of one data generation. Concurrent
// requests for a missing key wait for one build (no thundering herd).
type boardCache struct {
	mu  sync.Mutex
	gen int64
	m   map[string]*cacheEntry
}

type cacheEntry struct {
	done chan struct{}
	val  any
	err  error
}

// maxCacheKeys bounds the memo: category is free text, so keys are too.
const maxCacheKeys = 512

// get returns the value for key at generation gen, building it once.
func (c *boardCache) get(ctx context.Context, gen int64, key string, build func() (any, error)) (any, error) {
	c.mu.Lock()
	if gen < c.gen { // a reader older than the cache: build privately
		c.mu.Unlock()
		return build()
	}
	if gen > c.gen || c.m == nil || len(c.m) >= maxCacheKeys {
		c.gen, c.m = gen, map[string]*cacheEntry{}
	}
	e := c.m[key]
	if e == nil {
		e = &cacheEntry{done: make(chan struct{})}
		c.m[key] = e
		c.mu.Unlock()
		e.val, e.err = build()
		close(e.done)
		if e.err != nil {
			c.mu.Lock()
			if c.m[key] == e {
				delete(c.m, key)
			}
			c.mu.Unlock()
		}
		return e.val, e.err
	}
	c.mu.Unlock()
	select {
	case <-e.done:
		return e.val, e.err
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// cached is get with the generation of the catalog published when the
// request began; the build gets that catalog. Apply commits before it
// publishes its catalog, so a build that raced a commit (new rows, old
// catalog) is cached under the old generation and the next request, seeing
// the new catalog, rebuilds.
func cached[T any](ctx context.Context, db *DB, key string, build func(cat *catalog) (T, error)) (T, error) {
	cat := db.cat.Load()
	v, err := db.boards.get(ctx, cat.gen, key, func() (any, error) { return build(cat) })
	if err != nil {
		var zero T
		return zero, err
	}
	return v.(T), nil
}

// profile is a wallet's display fields on the boards.
type profile struct {
	addr, name, image string
	verified          bool
}

// displayName is the board user_name: the profile name, else the
// pseudonym, else "".
func displayName(name, pseudonym string) string {
	if name != "" {
		return name
	}
	return pseudonym
}

// page slices rows[offset:offset+limit] with an exact HasMore.
func page[R any](rows []R, offset, limit int) store.OffsetPage[R] {
	if offset >= len(rows) {
		return store.OffsetPage[R]{Rows: []R{}}
	}
	end := min(offset+limit, len(rows))
	return store.OffsetPage[R]{Rows: rows[offset:end], HasMore: end < len(rows)}
}

// noRows maps sql.ErrNoRows to a nil error (a documented miss).
func noRows(err error) error {
	if errors.Is(err, sql.ErrNoRows) {
		return nil
	}
	return err
}
