package catalogsql

import (
	"context"
	"fmt"
	"strings"

	"pmx/internal/catalog/catalog"
)

// where accumulates SQL conditions and their arguments.
type where struct {
	conds []string
	args  []any
}

func (w *where) add(cond string, args ...any) {
	w.conds = append(w.conds, cond)
	w.args = append(w.args, args...)
}

func (w *where) sql() string {
	if len(w.conds) == 0 {
		return ""
	}
	return " WHERE " + strings.Join(w.conds, " AND ")
}

func placeholders(n int) string {
	return strings.TrimSuffix(strings.Repeat("?,", n), ",")
}

func inList[T any](w *where, col string, vals []T) {
	if len(vals) == 0 {
		return
	}
	w.add(col+" IN ("+placeholders(len(vals))+")", toArgs(vals)...)
}

func boolEq(w *where, col string, b *bool) {
	if b != nil {
		w.add(col+" = ?", b2i(*b))
	}
}

func dateRange(w *where, col, min, max string) {
	if min != "" {
		w.add(col+" <> '' AND "+col+" >= ?", min)
	}
	if max != "" {
		w.add(col+" <> '' AND "+col+" <= ?", max)
	}
}

// orderCol maps a sort key to its column (with alias prefix p).
func orderCol(p, order string) string {
	switch order {
	case catalog.OrderStartDate:
		return p + "start_key"
	case catalog.OrderEndDate:
		return p + "end_key"
	case catalog.OrderCreatedAt:
		return p + "created_key"
	case catalog.OrderSlug:
		return "COALESCE(" + p + "slug, '')"
	}
	return p + "id"
}

// page adds the keyset condition and returns ORDER BY / LIMIT / OFFSET.
// Invariant: every order ends with id, so rows are totally ordered and a
// keyset walk never skips or repeats a row that did not change.
func page(w *where, p string, pg catalog.Page) string {
	col := orderCol(p, pg.Order)
	dir, cmp := "DESC", "<"
	if pg.Ascending {
		dir, cmp = "ASC", ">"
	}
	if c := pg.After; c != nil {
		if col == p+"id" {
			w.add(p+"id "+cmp+" ?", c.ID)
		} else {
			w.add("("+col+" "+cmp+" ? OR ("+col+" = ? AND "+p+"id "+cmp+" ?))", c.Key, c.Key, c.ID)
		}
	}
	s := " ORDER BY " + col + " " + dir
	if col != p+"id" {
		s += ", " + p + "id " + dir
	}
	if pg.Limit > 0 {
		s += fmt.Sprintf(" LIMIT %d", pg.Limit)
		if pg.Offset > 0 {
			s += fmt.Sprintf(" OFFSET %d", pg.Offset)
		}
	} else if pg.Offset > 0 {
		s += fmt.Sprintf(" LIMIT -1 OFFSET %d", pg.Offset)
	}
	return s
}

// tagSet is the SQL for "tag ids matching the filter", with related tags
// (tags sharing an event with it) when asked.
func tagSet(tagID *int64, tagSlug string, related bool) (string, []any) {
	var base string
	var args []any
	switch {
	case tagID != nil:
		base, args = "SELECT CAST(? AS INTEGER)", []any{*tagID} // typed: PostgreSQL infers text for a bare ?
	case tagSlug != "":
		base, args = "SELECT id FROM catalog_tags WHERE slug = ?", []any{tagSlug}
	default:
		return "", nil
	}
	if !related {
		return base, args
	}
	return base + ` UNION SELECT b.tag_id FROM catalog_event_tags a JOIN catalog_event_tags b
		ON b.event_id = a.event_id WHERE a.tag_id IN (` + base + `)`, append(args, args...)
}

// ListEvents implements catalog.Store.
func (s *Store) ListEvents(ctx context.Context, f catalog.EventFilter) ([]catalog.Event, error) {
	var w where
	inList(&w, "e.id", f.IDs)
	inList(&w, "e.slug", f.Slugs)
	if set, args := tagSet(f.TagID, f.TagSlug, f.RelatedTags); set != "" {
		w.add("e.id IN (SELECT event_id FROM catalog_event_tags WHERE tag_id IN ("+set+"))", args...)
	}
	if len(f.ExcludeTagIDs) > 0 {
		w.add("e.id NOT IN (SELECT event_id FROM catalog_event_tags WHERE tag_id IN ("+
			placeholders(len(f.ExcludeTagIDs))+"))", toArgs(f.ExcludeTagIDs)...)
	}
	if f.SeriesID != nil {
		w.add("e.id IN (SELECT event_id FROM catalog_event_series WHERE series_id = ?)", *f.SeriesID)
	}
	boolEq(&w, "e.active", f.Active)
	boolEq(&w, "e.closed", f.Closed)
	boolEq(&w, "e.archived", f.Archived)
	boolEq(&w, "e.featured", f.Featured)
	boolEq(&w, "e.cyom", f.Cyom)
	if f.TitleSearch != "" {
		w.add("instr(lower(e.title), lower(?)) > 0", f.TitleSearch)
	}
	dateRange(&w, "e.start_key", f.StartDateMin, f.StartDateMax)
	dateRange(&w, "e.end_key", f.EndDateMin, f.EndDateMax)
	tail := page(&w, "e.", f.Page)
	return s.eventQuery(ctx, "SELECT e.id FROM catalog_events e"+w.sql()+tail, w.args...)
}

// eventQuery runs an id query and loads the events. The generation is read
// in the same statement as the ids (one snapshot); documents loaded after
// it can only be as new or newer, which the cache tolerates (see cache).
func (s *Store) eventQuery(ctx context.Context, query string, args ...any) ([]catalog.Event, error) {
	gen, ids, err := s.queryGenIDs(ctx, query, args...)
	if err != nil || len(ids) == 0 {
		return []catalog.Event{}, err
	}
	return s.eventsByID(ctx, s.db, gen, ids)
}

// marketQuery is eventQuery for markets.
func (s *Store) marketQuery(ctx context.Context, query string, args ...any) ([]catalog.Market, error) {
	gen, ids, err := s.queryGenIDs(ctx, query, args...)
	if err != nil || len(ids) == 0 {
		return []catalog.Market{}, err
	}
	return s.marketsByID(ctx, s.db, gen, ids)
}

// getEvent reads one event without the cache (the write path).
func getEvent(ctx context.Context, q execer, id int64) (catalog.Event, error) {
	m, err := loadEvents(ctx, q, []int64{id})
	if err != nil {
		return catalog.Event{}, err
	}
	e, ok := m[id]
	if !ok {
		return catalog.Event{}, catalog.ErrNotFound
	}
	return *e, nil
}

// GetEvent implements catalog.Store.
func (s *Store) GetEvent(ctx context.Context, id int64) (catalog.Event, error) {
	return one(s.eventQuery(ctx, "SELECT id FROM catalog_events WHERE id = ?", id))
}

// GetEventBySlug implements catalog.Store.
func (s *Store) GetEventBySlug(ctx context.Context, slug string) (catalog.Event, error) {
	return one(s.eventQuery(ctx, "SELECT id FROM catalog_events WHERE slug = ? ORDER BY id LIMIT 1", slug))
}

// ListMarkets implements catalog.Store.
func (s *Store) ListMarkets(ctx context.Context, f catalog.MarketFilter) ([]catalog.Market, error) {
	var w where
	inList(&w, "m.id", f.IDs)
	inList(&w, "m.slug", f.Slugs)
	inList(&w, "m.condition_id", f.ConditionIDs)
	inList(&w, "m.question_id", f.QuestionIDs)
	inList(&w, "m.market_maker_address", f.MarketMakerAddress)
	inList(&w, "m.event_id", f.EventIDs)
	if len(f.ClobTokenIDs) > 0 {
		w.add("m.id IN (SELECT market_id FROM catalog_market_tokens WHERE token_id IN ("+
			placeholders(len(f.ClobTokenIDs))+"))", toArgs(f.ClobTokenIDs)...)
	}
	if set, args := tagSet(f.TagID, "", f.RelatedTags); set != "" {
		w.add("(m.id IN (SELECT market_id FROM catalog_market_tags WHERE tag_id IN ("+set+
			")) OR m.event_id IN (SELECT event_id FROM catalog_event_tags WHERE tag_id IN ("+set+")))",
			append(args, args...)...)
	}
	boolEq(&w, "m.active", f.Active)
	boolEq(&w, "m.closed", f.Closed)
	dateRange(&w, "m.start_key", f.StartDateMin, f.StartDateMax)
	dateRange(&w, "m.end_key", f.EndDateMin, f.EndDateMax)
	tail := page(&w, "m.", f.Page)
	return s.marketQuery(ctx, "SELECT m.id FROM catalog_markets m"+w.sql()+tail, w.args...)
}

func one[T any](list []T, err error) (T, error) {
	var zero T
	if err != nil {
		return zero, err
	}
	if len(list) == 0 {
		return zero, catalog.ErrNotFound
	}
	return list[0], nil
}

// GetMarket implements catalog.Store.
func (s *Store) GetMarket(ctx context.Context, id int64) (catalog.Market, error) {
	return one(s.marketQuery(ctx, "SELECT id FROM catalog_markets WHERE id = ?", id))
}

// GetMarketBySlug implements catalog.Store.
func (s *Store) GetMarketBySlug(ctx context.Context, slug string) (catalog.Market, error) {
	return one(s.marketQuery(ctx, "SELECT id FROM catalog_markets WHERE slug = ? ORDER BY id LIMIT 1", slug))
}

func tags(ctx context.Context, q execer, query string, args ...any) ([]catalog.Tag, error) {
	var out []catalog.Tag
	err := eachDoc(ctx, q, "tag", query, args, func(_ int64, t *catalog.Tag) { out = append(out, *t) })
	if err != nil {
		return nil, err
	}
	return out, nil
}

// ListTags implements catalog.Store.
func (s *Store) ListTags(ctx context.Context, f catalog.TagFilter) ([]catalog.Tag, error) {
	var w where
	inList(&w, "t.id", f.IDs)
	boolEq(&w, "t.is_carousel", f.IsCarousel)
	pg := f.Page
	if pg.Order != catalog.OrderID && pg.Order != catalog.OrderSlug {
		pg.Order = catalog.OrderID
	}
	tail := page(&w, "t.", pg)
	return tags(ctx, s.db, "SELECT t.id, t.doc FROM catalog_tags t"+w.sql()+tail, w.args...)
}

// GetTag implements catalog.Store.
func (s *Store) GetTag(ctx context.Context, id int64) (catalog.Tag, error) {
	return one(tags(ctx, s.db, "SELECT id, doc FROM catalog_tags WHERE id = ?", id))
}

// GetTagBySlug implements catalog.Store.
func (s *Store) GetTagBySlug(ctx context.Context, slug string) (catalog.Tag, error) {
	return one(tags(ctx, s.db, "SELECT id, doc FROM catalog_tags WHERE slug = ? ORDER BY id LIMIT 1", slug))
}

// RelatedTags implements catalog.Store: tags sharing events with tagID,
// most shared first, ties by id. The related-tag id is "<tag>-<related>".
func (s *Store) RelatedTags(ctx context.Context, tagID int64, status string) ([]catalog.RelatedTag, error) {
	cond := ""
	switch status {
	case "active":
		cond = " AND e.closed = 0"
	case "closed":
		cond = " AND e.closed = 1"
	}
	rows, err := s.db.QueryContext(ctx, `SELECT b.tag_id, COUNT(*) AS n
		FROM catalog_event_tags a
		JOIN catalog_event_tags b ON b.event_id = a.event_id AND b.tag_id <> a.tag_id
		JOIN catalog_events e ON e.id = a.event_id
		WHERE a.tag_id = ?`+cond+`
		GROUP BY b.tag_id ORDER BY n DESC, b.tag_id ASC`, tagID)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := []catalog.RelatedTag{}
	for rows.Next() {
		var rel, n int64
		if err := rows.Scan(&rel, &n); err != nil {
			return nil, err
		}
		out = append(out, catalog.RelatedTag{
			ID: itoa(tagID) + "-" + itoa(rel), TagID: tagID, RelatedTagID: rel, Rank: int64(len(out) + 1),
		})
	}
	return out, rows.Err()
}

// ListSeries implements catalog.Store.
func (s *Store) ListSeries(ctx context.Context, f catalog.SeriesFilter) ([]catalog.Series, error) {
	var w where
	inList(&w, "s.slug", f.Slugs)
	boolEq(&w, "s.closed", f.Closed)
	pg := f.Page
	if pg.Order != catalog.OrderID && pg.Order != catalog.OrderSlug {
		pg.Order = catalog.OrderID
	}
	tail := page(&w, "s.", pg)
	return s.series(ctx, "SELECT s.id, s.doc FROM catalog_series s"+w.sql()+tail, w.args...)
}

// GetSeries implements catalog.Store.
func (s *Store) GetSeries(ctx context.Context, id int64) (catalog.Series, error) {
	return one(s.series(ctx, "SELECT id, doc FROM catalog_series WHERE id = ?", id))
}

// series loads series documents and fills in their events, abbreviated.
func (s *Store) series(ctx context.Context, query string, args ...any) ([]catalog.Series, error) {
	var out []catalog.Series
	var ids []int64
	err := eachDoc(ctx, s.db, "series", query, args, func(id int64, se *catalog.Series) {
		out = append(out, *se)
		ids = append(ids, id)
	})
	if err != nil {
		return nil, err
	}
	for i, id := range ids {
		refs, err := s.seriesEvents(ctx, id)
		if err != nil {
			return nil, err
		}
		out[i].Events = refs
	}
	return out, nil
}

func (s *Store) seriesEvents(ctx context.Context, seriesID int64) ([]catalog.EventRef, error) {
	refs := []catalog.EventRef{}
	err := eachDoc(ctx, s.db, "event", `SELECT e.id, e.doc FROM catalog_event_series es
		JOIN catalog_events e ON e.id = es.event_id WHERE es.series_id = ? ORDER BY e.id`, []any{seriesID},
		func(_ int64, ref *catalog.EventRef) { refs = append(refs, *ref) })
	if err != nil {
		return nil, err
	}
	return refs, nil
}
