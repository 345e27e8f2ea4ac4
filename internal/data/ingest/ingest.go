// Package ingest applies ledger events to every store that derives from them:
// the data store (positions, feeds, boards) and the catalog (a `market` event
// is also a minimal catalog market), so a market found in /v2/positions can be
// looked up in the catalog and vice versa.
package ingest

import (
	"context"

	"pmx/internal/data/ledger"
)

// DataStore applies a batch atomically (store.Store).
type DataStore interface {
	Apply(ctx context.Context, events []ledger.Event) (int, error)
}

// Catalog upserts a ledger market as a catalog market (idempotent).
type Catalog interface {
	UpsertFromLedgerMarket(ctx context.Context, ev ledger.Event) error
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
	for i := range events {
		if events[i].Kind == ledger.KindMarket {
			if err := p.Catalog.UpsertFromLedgerMarket(ctx, events[i]); err != nil {
				return n, err
			}
		}
	}
	return n, nil
}
