// Package ingest applies ledger events to every store that derives from them:
// the data store (positions, feeds, boards) and the catalog (a `market` event
// is also a minimal catalog market), so a market found in /v2/positions can be
// looked up in the catalog and vice versa.
package ingest

import (
	"context"
	"errors"
	"fmt"

	"pmx/internal/catalog/catalog"
	"pmx/internal/data/ledger"
	"pmx/internal/data/store"
)

// DataStore applies a batch atomically (store.Store).
type DataStore interface {
	Apply(ctx context.Context, events []ledger.Event) (int, error)
}

// Catalog upserts a ledger market as a catalog market (idempotent) and
// imports catalog documents (catalogsql.Store).
type Catalog interface {
	UpsertFromLedgerMarket(ctx context.Context, ev ledger.Event) error
	ImportEvents(ctx context.Context, events []catalog.Event) error
}

// Pipeline applies to the data store first (the batch's atomic unit), then
// mirrors its market events into the catalog. The catalog upsert is
// idempotent, so re-ingesting a file repairs a catalog that missed markets
// after a crash between the two steps.
type Pipeline struct {
	Data    DataStore
	Catalog Catalog // nil: data store only
}

// Apply applies events and reports how many the data store applied.
func (p *Pipeline) Apply(ctx context.Context, events []ledger.Event) (int, error) {
	n, err := p.Data.Apply(ctx, events)
	if err != nil || p.Catalog == nil {
		return n, err
	}
	var resolved []ledger.Event
	for i := range events {
		switch events[i].Kind {
		case ledger.KindMarket:
			if err := p.Catalog.UpsertFromLedgerMarket(ctx, events[i]); err != nil {
				return n, err
			}
		case ledger.KindResolution:
			resolved = append(resolved, events[i])
		}
	}
	if r, ok := p.Catalog.(Resolver); ok && len(resolved) > 0 {
		if err := r.ResolveFromLedger(ctx, resolved); err != nil { // one catalog transaction per batch
			return n, err
		}
	}
	return n, nil
}

// Resolver is a Catalog that closes resolved markets (catalogsql.Store):
// closed, outcomePrices = the payouts.
type Resolver interface {
	ResolveFromLedger(ctx context.Context, evs []ledger.Event) error
}

// ImportEvents imports catalog documents as markets of the venue: the
// markets with an order book (a conditionId and clobTokenIds) are applied
// to the data store as `market` ledger events first (catalog.LedgerMarkets;
// one atomic batch), then the documents go to the catalog. So a trade on an
// imported token is applied, served by the data service with the catalog's
// names, and moves the catalog's live figures. The market events are not
// mirrored back into the catalog (the document is richer). As with Apply,
// a failure between the two steps is repaired by importing again.
func (p *Pipeline) ImportEvents(ctx context.Context, events []catalog.Event) error {
	if p.Catalog == nil {
		return errors.New("ingest: no catalog")
	}
	markets, err := catalog.LedgerMarkets(events)
	if err != nil {
		return err
	}
	if len(markets) > 0 {
		if _, err := p.Data.Apply(ctx, markets); err != nil {
			var rej *store.RejectedError
			if errors.As(err, &rej) && rej.Event >= 1 && rej.Event <= len(markets) {
				// The data store refused a market on its merits (outcome
				// count or a token of another market): the document
				// contradicts the venue.
				return fmt.Errorf("%w: market %s: %v", catalog.ErrConflict, markets[rej.Event-1].ConditionID, rej.Err)
			}
			return err
		}
	}
	return p.Catalog.ImportEvents(ctx, events)
}
