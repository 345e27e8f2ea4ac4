package catalogsql

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"strings"
	"sync"

	"pmx/internal/catalog/catalog"
)

// cache keeps decoded events (with their markets) and markets for one
// catalog generation. Decoding JSON documents dominates a listing's cost;
// the generation (catalog_meta, bumped by every write in its transaction,
// read in the same statement as a listing's ids) tells when the cache is
// stale, even if another Store on the same database wrote. Documents loaded
// after the generation was read can only be newer, so an entry is never
// older than its generation. Readers get shallow copies (see cachedByID).
type cache struct {
	mu      sync.RWMutex
	gen     int64
	events  map[int64]*catalog.Event
	markets map[int64]*catalog.Market
}

func (c *cache) reset(gen int64) {
	c.gen = gen
	c.events = map[int64]*catalog.Event{}
	c.markets = map[int64]*catalog.Market{}
}

// queryGenIDs runs "SELECT <id column> FROM ..." with the catalog
// generation prepended as a first column, through a prepared statement.
func (s *Store) queryGenIDs(ctx context.Context, query string, args ...any) (int64, []int64, error) {
	q := "SELECT (SELECT v FROM catalog_meta WHERE k = 'generation'), " + strings.TrimPrefix(query, "SELECT ")
	rows, err := s.query(ctx, q, args...)
	if err != nil {
		return 0, nil, err
	}
	defer rows.Close()
	var gen int64
	var ids []int64
	for rows.Next() {
		var id int64
		if err := rows.Scan(&gen, &id); err != nil {
			return 0, nil, err
		}
		ids = append(ids, id)
	}
	return gen, ids, rows.Err()
}

// maxStmts bounds the prepared-statement cache (listing queries vary with
// the filters given, but over a small set of shapes).
const maxStmts = 512

// query runs a read through a cached prepared statement: SQLite's parser
// was a tenth of a listing's CPU before.
func (s *Store) query(ctx context.Context, q string, args ...any) (*sql.Rows, error) {
	s.stmtMu.Lock()
	st, ok := s.stmts[q]
	s.stmtMu.Unlock()
	if !ok {
		var err error
		st, err = s.db.PrepareContext(ctx, q)
		if err != nil {
			return nil, err
		}
		s.stmtMu.Lock()
		prev, raced := s.stmts[q]
		full := len(s.stmts) >= maxStmts
		if !raced && !full {
			s.stmts[q] = st
		}
		s.stmtMu.Unlock()
		switch {
		case raced:
			st.Close()
			st = prev
		case full:
			st.Close()
			return s.db.QueryContext(ctx, q, args...)
		}
	}
	return st.QueryContext(ctx, args...)
}

// cachedByID returns the entries with ids, in ids' order (absent ones
// skipped), from the cache's map pick(c), loading the missing ones with load.
// The cache only moves forward: a reader that saw an older generation than
// the cache holds bypasses it and stores nothing. Readers get shallow copies:
// callers replace fields and slices but never write through them
// (catalog.Store's contract), so cached entries stay intact.
func cachedByID[T any](c *cache, gen int64, ids []int64, pick func(*cache) map[int64]*T,
	load func(missing []int64) (map[int64]*T, error)) ([]T, error) {
	c.mu.Lock()
	if gen > c.gen {
		c.reset(gen)
	}
	c.mu.Unlock()
	found := make([]*T, len(ids))
	var missing []int64
	c.mu.RLock()
	for i, id := range ids {
		if v, ok := pick(c)[id]; ok && gen == c.gen {
			found[i] = v
		} else {
			missing = append(missing, id)
		}
	}
	c.mu.RUnlock()
	if len(missing) > 0 {
		loaded, err := load(missing)
		if err != nil {
			return nil, err
		}
		c.mu.Lock()
		if c.gen == gen {
			m := pick(c)
			for id, v := range loaded {
				m[id] = v
			}
		}
		c.mu.Unlock()
		for i, id := range ids {
			if found[i] == nil {
				found[i] = loaded[id]
			}
		}
	}
	out := make([]T, 0, len(ids))
	for _, v := range found {
		if v != nil {
			out = append(out, *v)
		}
	}
	return out, nil
}

func cachedEvents(c *cache) map[int64]*catalog.Event   { return c.events }
func cachedMarkets(c *cache) map[int64]*catalog.Market { return c.markets }

// eventsByID loads events in ids' order through the cache.
// Rev is gen+1 so it is never 0 (0 means unversioned to the handler).
func (s *Store) eventsByID(ctx context.Context, tx execer, gen int64, ids []int64) ([]catalog.Event, error) {
	return cachedByID(&s.cache, gen, ids, cachedEvents, func(missing []int64) (map[int64]*catalog.Event, error) {
		loaded, err := loadEvents(ctx, tx, missing)
		for _, e := range loaded {
			e.Rev = gen + 1
			for i := range e.Markets {
				e.Markets[i].Rev = gen + 1
			}
		}
		return loaded, err
	})
}

// marketsByID loads markets in ids' order through the cache.
func (s *Store) marketsByID(ctx context.Context, tx execer, gen int64, ids []int64) ([]catalog.Market, error) {
	return cachedByID(&s.cache, gen, ids, cachedMarkets, func(missing []int64) (map[int64]*catalog.Market, error) {
		loaded := make(map[int64]*catalog.Market, len(missing))
		for start := 0; start < len(missing); start += 500 {
			chunk := toArgs(missing[start:min(start+500, len(missing))])
			err := eachDoc(ctx, tx, "market", `SELECT id, doc FROM catalog_markets WHERE id IN (`+placeholders(len(chunk))+`)`, chunk,
				func(id int64, m *catalog.Market) {
					m.Rev = gen + 1
					loaded[id] = m
				})
			if err != nil {
				return nil, err
			}
		}
		return loaded, nil
	})
}

// loadEvents decodes the events with these ids and attaches their markets.
func loadEvents(ctx context.Context, q execer, ids []int64) (map[int64]*catalog.Event, error) {
	out := make(map[int64]*catalog.Event, len(ids))
	for start := 0; start < len(ids); start += 500 {
		chunk := toArgs(ids[start:min(start+500, len(ids))])
		err := eachDoc(ctx, q, "event", `SELECT id, doc FROM catalog_events WHERE id IN (`+placeholders(len(chunk))+`)`, chunk,
			func(id int64, e *catalog.Event) { out[id] = e })
		if err != nil {
			return nil, err
		}
		err = eachDoc(ctx, q, "market of event", `SELECT event_id, doc FROM catalog_markets WHERE event_id IN (`+
			placeholders(len(chunk))+`) ORDER BY event_id, pos`, chunk,
			func(eid int64, m *catalog.Market) {
				if e := out[eid]; e != nil {
					e.Markets = append(e.Markets, *m)
				}
			})
		if err != nil {
			return nil, err
		}
	}
	return out, nil
}

// eachDoc runs a query whose rows are (id, doc), decodes each doc into a
// fresh T and hands it to fn; what names the row in a decoding error.
func eachDoc[T any](ctx context.Context, q execer, what, query string, args []any, fn func(id int64, v *T)) error {
	rows, err := q.QueryContext(ctx, query, args...)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var id int64
		var doc []byte
		if err := rows.Scan(&id, &doc); err != nil {
			return err
		}
		v := new(T)
		if err := json.Unmarshal(doc, v); err != nil {
			return fmt.Errorf("catalogsql: %s %d: %w", what, id, err)
		}
		fn(id, v)
	}
	return rows.Err()
}

// toArgs boxes values as query arguments.
func toArgs[T any](vals []T) []any {
	out := make([]any, len(vals))
	for i, v := range vals {
		out[i] = v
	}
	return out
}
