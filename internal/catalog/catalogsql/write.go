package catalogsql

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"pmx/internal/catalog/catalog"
	"pmx/internal/data/ledger"
)

// Store is the SQLite catalog.Store.
type Store struct {
	db    *sql.DB
	mu    sync.Mutex // serialises writers: an upsert reads then rewrites an event
	cache cache

	stmtMu sync.Mutex
	stmts  map[string]*sql.Stmt

	// gen counts finished writes (catalog.Generational): bumped after each
	// write transaction ends, so it moves only once the write is visible.
	// It is sound only while this Store is the database's one catalog
	// writer, as in pmx serve (cmd/pmx wires one Store per process).
	gen atomic.Uint64
}

// Generation implements catalog.Generational.
func (s *Store) Generation() uint64 { return s.gen.Load() }

var (
	_ catalog.Store        = (*Store)(nil)
	_ catalog.Generational = (*Store)(nil)
)

// New migrates db and returns the store.
func New(ctx context.Context, db *sql.DB) (*Store, error) {
	if err := migrateDB(ctx, db); err != nil {
		return nil, err
	}
	s := &Store{db: db, stmts: map[string]*sql.Stmt{}}
	s.cache.reset(-1)
	return s, nil
}

// ImportEvents upserts each event with its markets, tags and series. An
// event's markets, tag links and series links are replaced wholesale, so
// importing the same document again leaves the rows identical.
func (s *Store) ImportEvents(ctx context.Context, events []catalog.Event) error {
	return s.write(ctx, func(tx *sql.Tx) error {
		for i := range events {
			if err := writeEvent(ctx, tx, &events[i]); err != nil {
				return err
			}
		}
		return nil
	})
}

// UpsertFromLedgerMarket folds a `market` ledger event into the catalog
// (see catalog.MergeLedgerMarket); the data store's ingest calls it for
// every market line so demo markets are catalog markets.
func (s *Store) UpsertFromLedgerMarket(ctx context.Context, ev ledger.Event) error {
	return s.write(ctx, func(tx *sql.Tx) error {
		var existing *catalog.Event
		e, err := getEvent(ctx, tx, ev.EventID)
		switch {
		case err == nil:
			existing = &e
		case !errors.Is(err, catalog.ErrNotFound):
			return err
		}
		merged, err := catalog.MergeLedgerMarket(existing, ev)
		if err != nil {
			return err
		}
		return writeEvent(ctx, tx, &merged)
	})
}

// ResolveFromLedger closes the markets of `resolution` ledger events
// (catalog.ApplyResolution) in one transaction; a market the catalog does
// not hold is no error.
func (s *Store) ResolveFromLedger(ctx context.Context, evs []ledger.Event) error {
	return s.write(ctx, func(tx *sql.Tx) error {
		for _, ev := range evs {
			var eventID int64
			err := tx.QueryRowContext(ctx, "SELECT event_id FROM catalog_markets WHERE condition_id = ? LIMIT 1", ev.ConditionID).Scan(&eventID)
			if errors.Is(err, sql.ErrNoRows) {
				continue
			}
			if err != nil {
				return err
			}
			e, err := getEvent(ctx, tx, eventID)
			if err != nil {
				return err
			}
			if catalog.ApplyResolution(&e, ev) {
				if err := writeEvent(ctx, tx, &e); err != nil {
					return err
				}
			}
		}
		return nil
	})
}

// write runs fn in one transaction, serialised with other writers, and
// bumps the stored generation in it; the in-memory generation moves after
// the commit (or rollback), so it never announces an invisible write.
func (s *Store) write(ctx context.Context, fn func(tx *sql.Tx) error) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	defer s.gen.Add(1) // runs after the commit (or rollback) below
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if err := fn(tx); err != nil {
		return err
	}
	if err := bump(ctx, tx); err != nil {
		return err
	}
	return tx.Commit()
}

type execer interface {
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

func key(s *string) string {
	if s == nil {
		return ""
	}
	return catalog.DateKey(*s)
}

func nullStr(s *string) any {
	if s == nil {
		return nil
	}
	return *s
}

func writeEvent(ctx context.Context, tx execer, e *catalog.Event) error {
	id, err := catalog.ParseID(string(e.ID))
	if err != nil {
		return err
	}
	markets := e.Markets
	bare := *e
	bare.Markets = []catalog.Market{}
	doc, err := json.Marshal(&bare)
	if err != nil {
		return err
	}
	title := ""
	if e.Title != nil {
		title = *e.Title
	}
	if _, err := tx.ExecContext(ctx, `INSERT INTO catalog_events
		(id, slug, title, active, closed, archived, featured, cyom, start_key, end_key, created_key, doc)
		VALUES (?,?,?,?,?,?,?,?,?,?,?,?)
		ON CONFLICT(id) DO UPDATE SET slug=excluded.slug, title=excluded.title, active=excluded.active,
		closed=excluded.closed, archived=excluded.archived, featured=excluded.featured, cyom=excluded.cyom,
		start_key=excluded.start_key, end_key=excluded.end_key, created_key=excluded.created_key, doc=excluded.doc`,
		id, nullStr(e.Slug), title, b2i(e.Active), b2i(e.Closed), b2i(e.Archived), b2i(e.Featured), b2i(e.Cyom),
		key(e.StartDate), key(e.EndDate), key(e.CreatedAt), doc); err != nil {
		return fmt.Errorf("catalogsql: event %d: %w", id, err)
	}
	// Replace the event's markets and links.
	for _, q := range []string{
		`DELETE FROM catalog_market_tokens WHERE market_id IN (SELECT id FROM catalog_markets WHERE event_id = ?)`,
		`DELETE FROM catalog_market_tags WHERE market_id IN (SELECT id FROM catalog_markets WHERE event_id = ?)`,
		`DELETE FROM catalog_markets WHERE event_id = ?`,
		`DELETE FROM catalog_event_tags WHERE event_id = ?`,
		`DELETE FROM catalog_event_series WHERE event_id = ?`,
	} {
		if _, err := tx.ExecContext(ctx, q, id); err != nil {
			return err
		}
	}
	for pos := range markets {
		if err := writeMarket(ctx, tx, id, pos, &markets[pos]); err != nil {
			return err
		}
	}
	if err := linkTags(ctx, tx, `INSERT OR IGNORE INTO catalog_event_tags (event_id, tag_id) VALUES (?,?)`, id, e.Tags); err != nil {
		return err
	}
	for _, se := range e.Series {
		sid, err := catalog.ParseID(string(se.ID))
		if err != nil {
			return err
		}
		se.Events = []catalog.EventRef{} // filled in at read time
		doc, err := json.Marshal(&se)
		if err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, `INSERT INTO catalog_series (id, slug, closed, doc) VALUES (?,?,?,?)
			ON CONFLICT(id) DO UPDATE SET slug=excluded.slug, closed=excluded.closed, doc=excluded.doc`,
			sid, nullStr(se.Slug), b2i(se.Closed), doc); err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, `INSERT OR IGNORE INTO catalog_event_series (event_id, series_id) VALUES (?,?)`, id, sid); err != nil {
			return err
		}
	}
	return nil
}

func writeMarket(ctx context.Context, tx execer, eventID int64, pos int, m *catalog.Market) error {
	id, err := catalog.ParseID(string(m.ID))
	if err != nil {
		return err
	}
	doc, err := json.Marshal(m)
	if err != nil {
		return err
	}
	// Two condition ids on one market id is a collision (a derived id, or a
	// bad import): refuse it rather than lose a market.
	var prev sql.NullString
	switch err := tx.QueryRowContext(ctx, `SELECT condition_id FROM catalog_markets WHERE id = ?`, id).Scan(&prev); {
	case errors.Is(err, sql.ErrNoRows):
	case err != nil:
		return err
	case prev.Valid && m.ConditionID != nil && prev.String != *m.ConditionID:
		return fmt.Errorf("%w: market id %d already belongs to condition %s, not %s", catalog.ErrConflict, id, prev.String, *m.ConditionID)
	}
	// A market id moving to another event: drop its old row's links first.
	for _, q := range []string{
		`DELETE FROM catalog_market_tokens WHERE market_id = ?`,
		`DELETE FROM catalog_market_tags WHERE market_id = ?`,
	} {
		if _, err := tx.ExecContext(ctx, q, id); err != nil {
			return err
		}
	}
	if _, err := tx.ExecContext(ctx, `INSERT INTO catalog_markets
		(id, event_id, pos, condition_id, slug, question_id, market_maker_address, active, closed, start_key, end_key, created_key, doc)
		VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?)
		ON CONFLICT(id) DO UPDATE SET event_id=excluded.event_id, pos=excluded.pos, condition_id=excluded.condition_id,
		slug=excluded.slug, question_id=excluded.question_id, market_maker_address=excluded.market_maker_address,
		active=excluded.active, closed=excluded.closed, start_key=excluded.start_key, end_key=excluded.end_key,
		created_key=excluded.created_key, doc=excluded.doc`,
		id, eventID, pos, nullStr(m.ConditionID), nullStr(m.Slug), nullStr(m.QuestionID), strings.ToLower(m.MarketMakerAddress),
		b2i(m.Active), b2i(m.Closed), key(m.StartDate), key(m.EndDate), key(m.CreatedAt), doc); err != nil {
		return fmt.Errorf("catalogsql: market %d: %w", id, err)
	}
	for _, tok := range m.TokenIDs() {
		if _, err := tx.ExecContext(ctx, `INSERT OR REPLACE INTO catalog_market_tokens (token_id, market_id) VALUES (?,?)`, tok, id); err != nil {
			return err
		}
	}
	return linkTags(ctx, tx, `INSERT OR IGNORE INTO catalog_market_tags (market_id, tag_id) VALUES (?,?)`, id, m.Tags)
}

// linkTags upserts tags and links each to owner id with the (owner, tag)
// insert statement link.
func linkTags(ctx context.Context, tx execer, link string, id int64, tags []catalog.Tag) error {
	for _, t := range tags {
		tid, err := writeTag(ctx, tx, t)
		if err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, link, id, tid); err != nil {
			return err
		}
	}
	return nil
}

// writeTag upserts a tag. A nested tag may be abbreviated (production nests
// {id,label,slug} in places), so fields it leaves null keep stored values.
func writeTag(ctx context.Context, tx execer, t catalog.Tag) (int64, error) {
	id, err := catalog.ParseID(string(t.ID))
	if err != nil {
		return 0, err
	}
	var old []byte
	err = tx.QueryRowContext(ctx, `SELECT doc FROM catalog_tags WHERE id = ?`, id).Scan(&old)
	switch {
	case err == nil:
		var prev catalog.Tag
		if json.Unmarshal(old, &prev) == nil {
			t = mergeTag(prev, t)
		}
	case !errors.Is(err, sql.ErrNoRows):
		return 0, err
	}
	doc, err := json.Marshal(&t)
	if err != nil {
		return 0, err
	}
	_, err = tx.ExecContext(ctx, `INSERT INTO catalog_tags (id, slug, is_carousel, doc) VALUES (?,?,?,?)
		ON CONFLICT(id) DO UPDATE SET slug=excluded.slug, is_carousel=excluded.is_carousel, doc=excluded.doc`,
		id, nullStr(t.Slug), b2i(t.IsCarousel), doc)
	return id, err
}

func mergeTag(prev, t catalog.Tag) catalog.Tag {
	keep := func(dst **string, old *string) {
		if *dst == nil {
			*dst = old
		}
	}
	keep(&t.Label, prev.Label)
	keep(&t.Slug, prev.Slug)
	keep(&t.PublishedAt, prev.PublishedAt)
	keep(&t.CreatedAt, prev.CreatedAt)
	keep(&t.UpdatedAt, prev.UpdatedAt)
	if t.CreatedBy == nil {
		t.CreatedBy = prev.CreatedBy
	}
	if t.UpdatedBy == nil {
		t.UpdatedBy = prev.UpdatedBy
	}
	return t
}

func itoa(v int64) string { return strconv.FormatInt(v, 10) }

// bump advances the catalog generation inside the writing transaction.
func bump(ctx context.Context, tx execer) error {
	_, err := tx.ExecContext(ctx, `UPDATE catalog_meta SET v = v + 1 WHERE k = 'generation'`)
	return err
}
