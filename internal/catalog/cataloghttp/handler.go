package cataloghttp

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"pmx/internal/catalog/catalog"
)

// Options configure the catalog handler.
type Options struct {
	// Live supplies live market figures; nil serves stored values.
	Live catalog.LiveFields
	// Limit, when set, wraps each route in the shared IP limiter for the
	// named scopes (see Scopes and Limits); nil means no limiting here.
	Limit func(scopes []string, next http.Handler) http.Handler
	// Log receives internal errors; nil uses slog.Default().
	Log *slog.Logger
	// ResponseCacheBytes bounds the whole-response cache (respcache.go),
	// used when the Store is Generational and Live is LiveGenerational:
	// 0 means DefaultResponseCacheBytes, negative turns it off.
	ResponseCacheBytes int
}

// Rate-limit scopes of the catalog routes (interface.md "Limits"), for a
// caller that limits per route through Options.Limit. The allowances
// themselves live in one place, ratelimit.CatalogDefaults, which pmx serve
// applies per listener by path.
const (
	ScopeGeneral = "catalog"         // every catalog route: 4,000 / 10 s
	ScopeEvents  = "catalog-events"  // /events...: 500 / 10 s
	ScopeMarkets = "catalog-markets" // /markets...: 300 / 10 s
	ScopeListing = "catalog-listing" // /events, /markets listings (and keyset): 900 / 10 s
	ScopeTags    = "catalog-tags"    // /tags...: 200 / 10 s
)

// Listing sizes. Keyset limits above the maximum are clamped, as production
// does (gamma-OBSERVED.md); limit/offset listings refuse them.
const (
	DefaultLimit       = 20
	MaxLimit           = 500
	MaxKeysetLimit     = 100
	defaultKeysetLimit = 20
)

// Handler serves the catalog routes.
type Handler struct {
	store  catalog.Store
	live   catalog.LiveFields
	log    *slog.Logger
	routes map[string]http.Handler
	cache  renderCache
	resp   *respCache // nil: every request renders
}

// NewHandler returns the catalog service's http.Handler.
func NewHandler(store catalog.Store, opts Options) *Handler {
	h := &Handler{store: store, live: opts.Live, log: opts.Log}
	if h.live == nil {
		h.live = catalog.NoLive{}
	}
	if h.log == nil {
		h.log = slog.Default()
	}
	routes := map[string]struct {
		fn     func(http.ResponseWriter, *http.Request, []string)
		scopes []string
	}{
		"events":         {h.listEvents, []string{ScopeGeneral, ScopeEvents, ScopeListing}},
		"events/keyset":  {h.keysetEvents, []string{ScopeGeneral, ScopeEvents, ScopeListing}},
		"event":          {h.getEvent, []string{ScopeGeneral, ScopeEvents}},
		"markets":        {h.listMarkets, []string{ScopeGeneral, ScopeMarkets, ScopeListing}},
		"markets/keyset": {h.keysetMarkets, []string{ScopeGeneral, ScopeMarkets, ScopeListing}},
		"market":         {h.getMarket, []string{ScopeGeneral, ScopeMarkets}},
		"tags":           {h.listTags, []string{ScopeGeneral, ScopeTags}},
		"tag":            {h.getTag, []string{ScopeGeneral, ScopeTags}},
		"series":         {h.listSeries, []string{ScopeGeneral}},
		"series/one":     {h.getSeries, []string{ScopeGeneral}},
		"notfound":       {h.notFoundRoute, []string{ScopeGeneral}},
	}
	h.resp = newRespCache(store, h.live, opts.ResponseCacheBytes)
	h.routes = make(map[string]http.Handler, len(routes))
	for name, rt := range routes {
		fn := rt.fn
		render := func(w http.ResponseWriter, r *http.Request) { fn(w, r, segments(r.URL)) }
		var hh http.Handler = http.HandlerFunc(render)
		if h.resp != nil && name != "notfound" {
			hh = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { h.resp.serve(w, r, render) })
		}
		if opts.Limit != nil {
			hh = opts.Limit(rt.scopes, hh)
		}
		h.routes[name] = hh
	}
	return h
}

// segments splits the escaped path, then unescapes each segment, so a slug
// containing an encoded '/' stays one segment.
func segments(u *url.URL) []string {
	path := strings.Trim(u.EscapedPath(), "/")
	if path == "" {
		return nil
	}
	parts := strings.Split(path, "/")
	for i, p := range parts {
		if q, err := url.PathUnescape(p); err == nil {
			parts[i] = q
		}
	}
	return parts
}

// ServeHTTP routes by path segments (ServeMux patterns would conflict on
// /events/slug/{slug} versus /events/{id}/tags).
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		w.Header().Set("Allow", "GET, HEAD")
		writeError(w, http.StatusMethodNotAllowed, "validation error", "method not allowed")
		return
	}
	h.routes[route(segments(r.URL))].ServeHTTP(w, r)
}

// route names the handler for a path; the handler re-reads the segments.
func route(s []string) string {
	if len(s) == 0 {
		return "notfound"
	}
	switch s[0] {
	case "events", "markets":
		switch {
		case len(s) == 1:
			return s[0]
		case len(s) == 2 && s[1] == "keyset":
			return s[0] + "/keyset"
		case len(s) == 2 && s[1] == "slug":
			return "notfound"
		case len(s) == 3 && s[1] == "slug",
			len(s) == 2,
			len(s) == 3 && s[2] == "tags":
			return strings.TrimSuffix(s[0], "s")
		}
	case "tags":
		if len(s) == 1 {
			return "tags"
		}
		return "tag"
	case "series":
		switch len(s) {
		case 1:
			return "series"
		case 2:
			return "series/one"
		}
	}
	return "notfound"
}

func (h *Handler) notFoundRoute(w http.ResponseWriter, _ *http.Request, _ []string) {
	writeError(w, http.StatusNotFound, "not found error", "route not found")
}

// pathID reads an {id} path segment: a non-integer is a 400.
func pathID(w http.ResponseWriter, s string) (int64, bool) {
	id, err := catalog.ParseID(s)
	if err != nil {
		writeError(w, http.StatusBadRequest, "validation error", err.Error())
		return 0, false
	}
	return id, true
}

func (h *Handler) getEvent(w http.ResponseWriter, r *http.Request, s []string) {
	var e catalog.Event
	var err error
	if s[1] == "slug" {
		e, err = h.store.GetEventBySlug(r.Context(), s[2])
	} else {
		id, ok := pathID(w, s[1])
		if !ok {
			return
		}
		e, err = h.store.GetEvent(r.Context(), id)
	}
	if !h.ok(w, err, "event") {
		return
	}
	if len(s) == 3 && s[2] == "tags" && s[1] != "slug" {
		writeJSON(w, e.Tags)
		return
	}
	p := &params{q: r.URL.Query()}
	withMarkets := p.boolean("include_markets")
	if p.err != nil {
		writeParamError(w, p.err)
		return
	}
	evs := []catalog.Event{e}
	live, err := h.applyLiveEvents(r.Context(), evs, false)
	if !h.ok(w, err, "") {
		return
	}
	h.writeEvents(w, evs, live, 'o', "", withMarkets == nil || *withMarkets)
}

func (h *Handler) getMarket(w http.ResponseWriter, r *http.Request, s []string) {
	var m catalog.Market
	var err error
	if s[1] == "slug" {
		m, err = h.store.GetMarketBySlug(r.Context(), s[2])
	} else {
		id, ok := pathID(w, s[1])
		if !ok {
			return
		}
		m, err = h.store.GetMarket(r.Context(), id)
	}
	if !h.ok(w, err, "market") {
		return
	}
	if len(s) == 3 && s[2] == "tags" && s[1] != "slug" {
		writeJSON(w, m.Tags)
		return
	}
	ms := []catalog.Market{m}
	live, err := h.applyLiveMarkets(r.Context(), ms, false)
	if !h.ok(w, err, "") {
		return
	}
	h.writeMarkets(w, ms, live, 'o', "")
}

func (h *Handler) getTag(w http.ResponseWriter, r *http.Request, s []string) {
	// /tags/{id}, /tags/slug/{slug}, then optionally /related-tags[/tags].
	var rest []string
	var t catalog.Tag
	var err error
	if s[1] == "slug" {
		if len(s) < 3 {
			h.notFoundRoute(w, r, s)
			return
		}
		t, err = h.store.GetTagBySlug(r.Context(), s[2])
		rest = s[3:]
	} else {
		id, ok := pathID(w, s[1])
		if !ok {
			return
		}
		t, err = h.store.GetTag(r.Context(), id)
		rest = s[2:]
	}
	switch {
	case len(rest) == 0:
		if h.ok(w, err, "tag") {
			writeJSON(w, t)
		}
		return
	case rest[0] != "related-tags" || len(rest) > 2 || (len(rest) == 2 && rest[1] != "tags"):
		h.notFoundRoute(w, r, s)
		return
	}
	if !h.ok(w, err, "tag") {
		return
	}
	p := &params{q: r.URL.Query()}
	status := p.str("status")
	switch status {
	case "":
		status = "all"
	case "active", "closed", "all":
	default:
		p.fail(badParam("status must be active, closed or all, got %q", status))
	}
	p.boolean("omit_empty") // accepted; related tags are never empty here
	if p.err != nil {
		writeParamError(w, p.err)
		return
	}
	tagID, _ := catalog.ParseID(string(t.ID))
	rel, err := h.store.RelatedTags(r.Context(), tagID, status)
	if !h.ok(w, err, "") {
		return
	}
	if len(rest) == 1 {
		writeJSON(w, orEmpty(rel))
		return
	}
	if len(rel) == 0 { // an empty IDs filter would select every tag
		writeJSON(w, []catalog.Tag{})
		return
	}
	// One read for every related tag, answered in rank order.
	ids := make([]int64, len(rel))
	for i, rt := range rel {
		ids[i] = rt.RelatedTagID
	}
	found, err := h.store.ListTags(r.Context(), catalog.TagFilter{IDs: ids})
	if !h.ok(w, err, "") {
		return
	}
	byID := make(map[int64]catalog.Tag, len(found))
	for _, t := range found {
		id, _ := catalog.ParseID(string(t.ID)) // stored tags have valid ids
		byID[id] = t
	}
	tags := make([]catalog.Tag, 0, len(rel))
	for _, rt := range rel {
		if t, ok := byID[rt.RelatedTagID]; ok {
			tags = append(tags, t)
		}
	}
	writeJSON(w, tags)
}

func (h *Handler) getSeries(w http.ResponseWriter, r *http.Request, s []string) {
	id, ok := pathID(w, s[1])
	if !ok {
		return
	}
	se, err := h.store.GetSeries(r.Context(), id)
	if h.ok(w, err, "series") {
		writeJSON(w, se)
	}
}

// ok writes the error response for err (404 naming what, or 500) and
// reports whether the caller may go on.
func (h *Handler) ok(w http.ResponseWriter, err error, what string) bool {
	if err == nil {
		return true
	}
	switch {
	case errors.Is(err, catalog.ErrNotFound) && what != "":
		writeError(w, http.StatusNotFound, "not found error", what+" not found")
	case errors.Is(err, context.Canceled):
		// client went away; nothing useful to write
	default:
		h.log.Error("catalog: internal error", "err", err)
		writeError(w, http.StatusInternalServerError, "internal error", "internal error")
	}
	return false
}

// fetchLive asks the data store for every market on the page at once.
func (h *Handler) fetchLive(ctx context.Context, conds []string) (map[string]catalog.Live, error) {
	if len(conds) == 0 {
		return nil, nil
	}
	return h.live.Live(ctx, conds)
}

// applyLiveEvents fetches live figures for evs' markets and, when apply is
// set (filters or orders need them now), overwrites the events' fields;
// otherwise rendering applies them only on a render-cache miss.
func (h *Handler) applyLiveEvents(ctx context.Context, evs []catalog.Event, apply bool) (map[string]catalog.Live, error) {
	var conds []string
	for i := range evs {
		for j := range evs[i].Markets {
			if c := evs[i].Markets[j].ConditionID; c != nil {
				conds = append(conds, *c)
			}
		}
	}
	live, err := h.fetchLive(ctx, conds)
	if err != nil || !apply {
		return live, err
	}
	for i := range evs {
		catalog.ApplyEventLive(&evs[i], live)
	}
	return live, nil
}

// applyLiveMarkets is applyLiveEvents for markets.
func (h *Handler) applyLiveMarkets(ctx context.Context, ms []catalog.Market, apply bool) (map[string]catalog.Live, error) {
	conds := make([]string, 0, len(ms))
	for i := range ms {
		if c := ms[i].ConditionID; c != nil {
			conds = append(conds, *c)
		}
	}
	live, err := h.fetchLive(ctx, conds)
	if err != nil || !apply {
		return live, err
	}
	for i := range ms {
		catalog.ApplyMarketLive(&ms[i], live)
	}
	return live, nil
}

type errorBody struct {
	Type  string `json:"type"`
	Error string `json:"error"`
}

func writeError(w http.ResponseWriter, status int, typ, msg string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(errorBody{Type: typ, Error: msg})
}

func writeParamError(w http.ResponseWriter, err error) {
	status := http.StatusBadRequest
	var pe *paramError
	if errors.As(err, &pe) {
		status = pe.status
	}
	writeError(w, status, "validation error", err.Error())
}

func writeJSON(w http.ResponseWriter, v any) {
	b, err := json.Marshal(v)
	if err != nil {
		writeError(w, http.StatusInternalServerError, "internal error", "internal error")
		return
	}
	b = append(b, '\n')
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Content-Length", strconv.Itoa(len(b)))
	_, _ = w.Write(b)
}

// orEmpty answers a nil list as [] (production never answers null).
func orEmpty[S ~[]E, E any](s S) S {
	if s == nil {
		return S{}
	}
	return s
}
