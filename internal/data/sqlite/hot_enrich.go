package sqlite

import "strings"

// enricher yields a row's market columns: *catalog computes them
// (catalog.enrich), *hotEnrich serves them precomputed.
type enricher interface {
	enrich(mid, tid int64) enrichment
}

// hotEnrich is catalog.enrich precomputed for every (market, token) pair of
// one catalog, with each pair's strings packed into one allocation: a page
// reads ~10 strings per row, and as separate heap objects every one was a
// cache miss when the JSON encoder read it. Immutable once built; publish
// builds one per catalog.
type hotEnrich struct {
	cat *catalog
	m   map[[2]int64]enrichment
}

func newHotEnrich(cat *catalog) *hotEnrich {
	h := &hotEnrich{cat: cat, m: make(map[[2]int64]enrichment, len(cat.byTid)+len(cat.byMid))}
	for _, t := range cat.byTid {
		h.add(t.mid, t.tid)
	}
	for _, m := range cat.byMid {
		h.add(m.mid, 0)
	}
	return h
}

// next is the table for cat, the catalog published after h's: h's pairs
// when no market's texts changed in between (cat.textsGen: only market,
// combo-market, resolution and builder batches move it, and only market
// events add markets and tokens), else a new build. A batch of trades then
// does not rebuild a table as large as the catalog.
func (h *hotEnrich) next(cat *catalog) *hotEnrich {
	if h != nil && h.cat.textsGen == cat.textsGen {
		return &hotEnrich{cat: cat, m: h.m}
	}
	return newHotEnrich(cat)
}

func (h *hotEnrich) add(mid, tid int64) {
	e := h.cat.enrich(mid, tid)
	parts := []*string{&e.cond, &e.token, &e.title, &e.slug, &e.icon, &e.eventSlug, &e.outcome}
	var b strings.Builder
	for _, p := range parts {
		b.WriteString(*p)
	}
	all, off := b.String(), 0
	for _, p := range parts {
		n := len(*p)
		*p, off = all[off:off+n], off+n
	}
	h.m[[2]int64{mid, tid}] = e
}

// enrich is catalog.enrich for the catalog h was built from.
func (h *hotEnrich) enrich(mid, tid int64) enrichment {
	if e, ok := h.m[[2]int64{mid, tid}]; ok {
		return e
	}
	return h.cat.enrich(mid, tid)
}
