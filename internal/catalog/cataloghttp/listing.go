package cataloghttp

import (
	"math/big"
	"net/http"
	"slices"
	"strconv"
	"strings"

	"pmx/internal/catalog/catalog"
)

// pageParams reads limit/offset/order/ascending. For keyset routes offset is
// refused (422, as production) and after_cursor is read instead; keyset
// orders are stable keys only, since a live key moves under a walk.
func pageParams(p *params, keyset bool, liveOK bool) (catalog.Page, liveQuery) {
	var pg catalog.Page
	var lq liveQuery
	if keyset {
		if p.q.Has("offset") {
			p.fail(&paramError{status: http.StatusUnprocessableEntity,
				msg: "offset is not supported on keyset listings; continue with after_cursor"})
		}
		pg.Limit = min(p.integer("limit", defaultKeysetLimit, 1), MaxKeysetLimit)
		pg.Ascending = true
	} else {
		pg.Limit = p.integer("limit", DefaultLimit, 0)
		if pg.Limit == 0 {
			pg.Limit = DefaultLimit
		}
		if pg.Limit > MaxLimit {
			p.fail(badParam("limit must be at most %d, got %d", MaxLimit, pg.Limit))
		}
		pg.Offset = p.integer("offset", 0, 0)
	}
	if a := p.boolean("ascending"); a != nil {
		pg.Ascending = *a
	}
	pg.Order = catalog.OrderID
	if o := p.str("order"); o != "" {
		// production accepts a comma list; the first key decides here.
		first := p.list("order")[0]
		if k, ok := staticOrders[first]; ok {
			pg.Order = k
		} else if k, ok := liveOrders[first]; ok && liveOK && !keyset {
			lq.order = k
		} else {
			p.fail(badParam("order %q is not supported here", first))
		}
	}
	if keyset {
		if c := p.str("after_cursor"); c != "" {
			cur, err := catalog.DecodeCursor(c)
			if err != nil {
				p.fail(badParam("after_cursor: %v", err))
			} else if cur.Order != pg.Order || cur.Ascending != pg.Ascending {
				p.fail(badParam("after_cursor was issued for another order; restate the same order and ascending"))
			} else {
				pg.After = &cur
			}
		}
	}
	lq.ascending = pg.Ascending
	lq.limit, lq.offset = pg.Limit, pg.Offset
	return pg, lq
}

func (h *Handler) eventFilter(p *params, keyset bool) (catalog.EventFilter, liveQuery) {
	var f catalog.EventFilter
	f.IDs = p.ids("id")
	f.Slugs = p.list("slug")
	f.TagID = p.id("tag_id")
	f.TagSlug = p.str("tag_slug")
	if rt := p.boolean("related_tags"); rt != nil {
		f.RelatedTags = *rt
	}
	f.ExcludeTagIDs = p.ids("exclude_tag_id")
	f.SeriesID = p.id("series_id")
	f.Active = p.boolean("active")
	f.Closed = p.boolean("closed")
	f.Archived = p.boolean("archived")
	f.Featured = p.boolean("featured")
	f.Cyom = p.boolean("cyom")
	f.TitleSearch = p.str("title_search")
	f.StartDateMin, f.StartDateMax = p.date("start_date_min"), p.date("start_date_max")
	f.EndDateMin, f.EndDateMax = p.date("end_date_min"), p.date("end_date_max")
	var lq liveQuery
	f.Page, lq = pageParams(p, keyset, true)
	lq.volMin, lq.volMax = p.decimal("volume_min"), p.decimal("volume_max")
	lq.liqMin, lq.liqMax = p.decimal("liquidity_min"), p.decimal("liquidity_max")
	return f, lq
}

func (h *Handler) listEvents(w http.ResponseWriter, r *http.Request, _ []string) {
	h.serveEvents(w, r, false)
}

func (h *Handler) keysetEvents(w http.ResponseWriter, r *http.Request, _ []string) {
	h.serveEvents(w, r, true)
}

func (h *Handler) serveEvents(w http.ResponseWriter, r *http.Request, keyset bool) {
	p := &params{q: r.URL.Query()}
	f, lq := h.eventFilter(p, keyset)
	im := p.boolean("include_markets")
	withMarkets := im == nil || *im
	if p.err != nil {
		writeParamError(w, p.err)
		return
	}
	post := lq.active()
	if post {
		f.Limit, f.Offset = 0, 0 // the handler windows after live filtering
	} else if keyset {
		f.Limit++ // one extra row tells whether a next page exists
	}
	evs, err := h.store.ListEvents(r.Context(), f)
	if !h.ok(w, err, "") {
		return
	}
	live, err := h.applyLiveEvents(r.Context(), evs, post)
	if !h.ok(w, err, "") {
		return
	}
	if post {
		evs = postLive(evs, lq, keyset, func(e *catalog.Event) catalog.Str { return e.ID }, eventLive)
	}
	if !keyset {
		h.writeEvents(w, evs, live, 'a', "", withMarkets)
		return
	}
	next := ""
	if len(evs) > lq.limit {
		evs = evs[:lq.limit]
		last := &evs[lq.limit-1]
		next = cursorFor(f.Page, string(last.ID), eventKey(last, f.Order))
	}
	h.writeEvents(w, evs, live, 'k', next, withMarkets)
}

// postLive filters rows on their live volume and liquidity, orders them on
// a live figure when asked (live reads a row's figure by live* key), then
// windows. For keyset it keeps one extra row so the caller can tell whether
// more follow.
func postLive[T any](rows []T, lq liveQuery, keyset bool, id func(*T) catalog.Str, live func(*T, string) *catalog.Num) []T {
	out := rows[:0]
	for i := range rows {
		r := &rows[i]
		if inRange(numRat(live(r, liveVolume)), lq.volMin, lq.volMax) &&
			inRange(numRat(live(r, liveLiquidity)), lq.liqMin, lq.liqMax) {
			out = append(out, *r)
		}
	}
	if lq.order == "" {
		return window(out, lq, keyset)
	}
	// Sort and window positions, not the (large) rows; gather the page.
	keys := make([]*big.Rat, len(out))
	ids := make([]string, len(out))
	perm := make([]int, len(out))
	for i := range out {
		keys[i], ids[i], perm[i] = numRat(live(&out[i], lq.order)), string(id(&out[i])), i
	}
	slices.SortStableFunc(perm, func(a, b int) int {
		return cmpLive(keys[a], keys[b], ids[a], ids[b], lq.ascending)
	})
	perm = window(perm, lq, keyset)
	page := make([]T, len(perm))
	for k, i := range perm {
		page[k] = out[i]
	}
	return page
}

func window[T any](rows []T, lq liveQuery, keyset bool) []T {
	if keyset {
		return rows[:min(len(rows), lq.limit+1)]
	}
	if lq.offset >= len(rows) {
		return rows[:0]
	}
	rows = rows[lq.offset:]
	return rows[:min(len(rows), lq.limit)]
}

// cmpLive orders unknown values last whatever the direction, ties by id.
func cmpLive(a, b *big.Rat, ida, idb string, asc bool) int {
	switch {
	case a == nil && b == nil:
	case a == nil:
		return 1
	case b == nil:
		return -1
	default:
		if c := a.Cmp(b); c != 0 {
			if !asc {
				c = -c
			}
			return c
		}
	}
	x, _ := strconv.ParseInt(ida, 10, 64)
	y, _ := strconv.ParseInt(idb, 10, 64)
	c := 0
	switch {
	case x < y:
		c = -1
	case x > y:
		c = 1
	}
	if !asc {
		c = -c // ties follow the direction, as the store's id tiebreak does
	}
	return c
}

func eventLive(e *catalog.Event, key string) *catalog.Num {
	switch key {
	case liveVolume:
		return e.Volume
	case liveVolume24hr:
		return e.Volume24hr
	case liveLiquidity:
		return e.Liquidity
	case liveOpenInterest:
		return e.OpenInterest
	}
	return nil
}

func marketLive(m *catalog.Market, key string) *catalog.Num {
	switch key {
	case liveVolume:
		return m.VolumeNum
	case liveVolume24hr:
		return m.Volume24hr
	case liveLiquidity:
		return m.LiquidityNum
	case liveOpenInterest:
		return m.OpenInterest
	}
	return nil
}

func cursorFor(pg catalog.Page, id, key string) string {
	n, _ := strconv.ParseInt(id, 10, 64)
	return catalog.Cursor{Order: pg.Order, Ascending: pg.Ascending, Key: key, ID: n}.Encode()
}

func eventKey(e *catalog.Event, order string) string {
	switch order {
	case catalog.OrderStartDate:
		return dateOf(e.StartDate)
	case catalog.OrderEndDate:
		return dateOf(e.EndDate)
	case catalog.OrderCreatedAt:
		return dateOf(e.CreatedAt)
	case catalog.OrderSlug:
		return text(e.Slug)
	}
	return ""
}

func marketKey(m *catalog.Market, order string) string {
	switch order {
	case catalog.OrderStartDate:
		return dateOf(m.StartDate)
	case catalog.OrderEndDate:
		return dateOf(m.EndDate)
	case catalog.OrderCreatedAt:
		return dateOf(m.CreatedAt)
	case catalog.OrderSlug:
		return text(m.Slug)
	}
	return ""
}

func dateOf(s *string) string {
	if s == nil {
		return ""
	}
	return catalog.DateKey(*s)
}

// text is *s, or "" when s is nil.
func text[T ~string](s *T) string {
	if s == nil {
		return ""
	}
	return string(*s)
}

func (h *Handler) marketFilter(p *params, keyset bool) (catalog.MarketFilter, liveQuery) {
	var f catalog.MarketFilter
	f.IDs = p.ids("id")
	f.Slugs = p.list("slug")
	f.ClobTokenIDs = p.list("clob_token_ids")
	f.ConditionIDs = p.list("condition_ids")
	for i, c := range f.ConditionIDs {
		f.ConditionIDs[i] = strings.ToLower(c)
	}
	f.QuestionIDs = p.list("question_ids")
	f.MarketMakerAddress = p.list("market_maker_address")
	for i, c := range f.MarketMakerAddress {
		f.MarketMakerAddress[i] = strings.ToLower(c)
	}
	f.TagID = p.id("tag_id")
	if rt := p.boolean("related_tags"); rt != nil {
		f.RelatedTags = *rt
	}
	f.Closed = p.boolean("closed")
	f.StartDateMin, f.StartDateMax = p.date("start_date_min"), p.date("start_date_max")
	f.EndDateMin, f.EndDateMax = p.date("end_date_min"), p.date("end_date_max")
	var lq liveQuery
	f.Page, lq = pageParams(p, keyset, true)
	lq.volMin, lq.volMax = p.decimal("volume_num_min"), p.decimal("volume_num_max")
	lq.liqMin, lq.liqMax = p.decimal("liquidity_num_min"), p.decimal("liquidity_num_max")
	return f, lq
}

func (h *Handler) listMarkets(w http.ResponseWriter, r *http.Request, _ []string) {
	h.serveMarkets(w, r, false)
}

func (h *Handler) keysetMarkets(w http.ResponseWriter, r *http.Request, _ []string) {
	h.serveMarkets(w, r, true)
}

func (h *Handler) serveMarkets(w http.ResponseWriter, r *http.Request, keyset bool) {
	p := &params{q: r.URL.Query()}
	f, lq := h.marketFilter(p, keyset)
	if p.err != nil {
		writeParamError(w, p.err)
		return
	}
	post := lq.active()
	if post {
		f.Limit, f.Offset = 0, 0
	} else if keyset {
		f.Limit++
	}
	ms, err := h.store.ListMarkets(r.Context(), f)
	if !h.ok(w, err, "") {
		return
	}
	live, err := h.applyLiveMarkets(r.Context(), ms, post)
	if !h.ok(w, err, "") {
		return
	}
	if post {
		ms = postLive(ms, lq, keyset, func(m *catalog.Market) catalog.Str { return m.ID }, marketLive)
	}
	if !keyset {
		h.writeMarkets(w, ms, live, 'a', "")
		return
	}
	next := ""
	if len(ms) > lq.limit {
		ms = ms[:lq.limit]
		last := &ms[lq.limit-1]
		next = cursorFor(f.Page, string(last.ID), marketKey(last, f.Order))
	}
	h.writeMarkets(w, ms, live, 'k', next)
}

func (h *Handler) listTags(w http.ResponseWriter, r *http.Request, _ []string) {
	p := &params{q: r.URL.Query()}
	var f catalog.TagFilter
	f.IsCarousel = p.boolean("is_carousel")
	p.boolean("include_template")
	f.Page, _ = pageParams(p, false, false)
	if p.err != nil {
		writeParamError(w, p.err)
		return
	}
	tags, err := h.store.ListTags(r.Context(), f)
	if h.ok(w, err, "") {
		writeJSON(w, orEmpty(tags))
	}
}

func (h *Handler) listSeries(w http.ResponseWriter, r *http.Request, _ []string) {
	p := &params{q: r.URL.Query()}
	var f catalog.SeriesFilter
	f.Slugs = p.list("slug")
	f.Closed = p.boolean("closed")
	f.Page, _ = pageParams(p, false, false)
	if p.err != nil {
		writeParamError(w, p.err)
		return
	}
	ss, err := h.store.ListSeries(r.Context(), f)
	if h.ok(w, err, "") {
		writeJSON(w, orEmpty(ss))
	}
}
