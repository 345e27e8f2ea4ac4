package demo

import (
	"pmx/internal/catalog/catalog"
)

// demoSeries are the recurring families the demo's categories run as: the
// catalog lists them under /series, each with its events.
var demoSeries = map[string]struct {
	id                     string
	title, slug, ticker    string
	recurrence, seriesType string
}{
	"crypto":    {"9101", "Crypto Prices", "crypto-prices", "crypto-prices", "daily", "single"},
	"weather":   {"9102", "Daily Temperature", "daily-temperature", "daily-temperature", "daily", "single"},
	"economics": {"9103", "US Macro", "us-macro", "us-macro", "monthly", "single"},
	"sports":    {"9104", "Match Winners", "match-winners", "match-winners", "weekly", "single"},
	"esports":   {"9105", "Esports Matches", "esports-matches", "esports-matches", "weekly", "single"},
}

// LinkSeries puts each event whose category recurs into its demo series
// and returns the events it changed (for catalog import). Events already in
// a series are left alone, so linking twice changes nothing.
func LinkSeries(events []catalog.Event, created string) []catalog.Event {
	var out []catalog.Event
	for _, e := range events {
		if e.Category == nil || len(e.Series) > 0 {
			continue
		}
		d, ok := demoSeries[*e.Category]
		if !ok {
			continue
		}
		title, slug, ticker, rec, typ, at := d.title, d.slug, d.ticker, d.recurrence, d.seriesType, created
		e.Series = []catalog.Series{{ID: catalog.Str(d.id), Title: &title, Slug: &slug, Ticker: &ticker,
			Recurrence: &rec, SeriesType: &typ, Active: true, CreatedAt: &at}}
		e.SeriesSlug = &slug
		out = append(out, e)
	}
	return out
}
