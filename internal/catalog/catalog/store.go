package catalog

import (
	"context"
	"errors"
)

// ErrNotFound is returned by a Store for an unknown id or slug.
var ErrNotFound = errors.New("not found")

// ErrConflict is wrapped by a Store refusing a write that contradicts what
// it holds (one market id for two condition ids).
var ErrConflict = errors.New("conflict")

// Store is the catalog's persistence, implemented over SQLite by
// internal/catalog/catalogsql. Returned values are the caller's, but their slices
// and pointers may be shared with the store's cache: replace fields and
// slices, never write through them (the handler copies markets on write).
type Store interface {
	// ListEvents returns events (with markets) matching f, in f's order.
	ListEvents(ctx context.Context, f EventFilter) ([]Event, error)
	GetEvent(ctx context.Context, id int64) (Event, error)
	GetEventBySlug(ctx context.Context, slug string) (Event, error)

	// ListMarkets returns markets (with their parent event abbreviated).
	ListMarkets(ctx context.Context, f MarketFilter) ([]Market, error)
	GetMarket(ctx context.Context, id int64) (Market, error)
	GetMarketBySlug(ctx context.Context, slug string) (Market, error)

	ListTags(ctx context.Context, f TagFilter) ([]Tag, error)
	GetTag(ctx context.Context, id int64) (Tag, error)
	GetTagBySlug(ctx context.Context, slug string) (Tag, error)
	// RelatedTags ranks the tags that share events with tagID; status is
	// "active", "closed" or "all" (which events count).
	RelatedTags(ctx context.Context, tagID int64, status string) ([]RelatedTag, error)

	ListSeries(ctx context.Context, f SeriesFilter) ([]Series, error)
	GetSeries(ctx context.Context, id int64) (Series, error)

	// ImportEvents upserts events with everything nested in them. Importing
	// the same document twice leaves the store unchanged.
	ImportEvents(ctx context.Context, events []Event) error
}

// Page is the ordering and window of a listing. Order is a sort key (see
// the Order* constants); Limit 0 means no limit. After, when set, is the
// keyset position: only rows strictly after it in the order are returned.
type Page struct {
	Order     string
	Ascending bool
	Limit     int
	Offset    int
	After     *Cursor
}

// Sort keys the store orders by (stable columns only; live figures are
// sorted by the handler).
const (
	OrderID        = "id"
	OrderStartDate = "startDate"
	OrderEndDate   = "endDate"
	OrderCreatedAt = "createdAt"
	OrderSlug      = "slug"
)

// EventFilter selects events. Nil pointers and empty slices do not filter.
// Dates are sort keys (see DateKey).
type EventFilter struct {
	IDs           []int64
	Slugs         []string
	TagID         *int64
	TagSlug       string
	RelatedTags   bool // with TagID/TagSlug: also events carrying a related tag
	ExcludeTagIDs []int64
	SeriesID      *int64
	Active        *bool
	Closed        *bool
	Archived      *bool
	Featured      *bool
	Cyom          *bool
	TitleSearch   string
	StartDateMin  string
	StartDateMax  string
	EndDateMin    string
	EndDateMax    string
	Page
}

// MarketFilter selects markets.
type MarketFilter struct {
	IDs                []int64
	Slugs              []string
	ClobTokenIDs       []string
	ConditionIDs       []string
	QuestionIDs        []string
	MarketMakerAddress []string
	EventIDs           []int64
	TagID              *int64
	RelatedTags        bool
	Active             *bool // not a /markets filter in production; used internally
	Closed             *bool
	StartDateMin       string
	StartDateMax       string
	EndDateMin         string
	EndDateMax         string
	Page
}

// TagFilter selects tags.
type TagFilter struct {
	IDs        []int64
	IsCarousel *bool
	Page
}

// SeriesFilter selects series.
type SeriesFilter struct {
	Slugs  []string
	Closed *bool
	Page
}
