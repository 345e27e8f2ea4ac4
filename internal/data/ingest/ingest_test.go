package ingest

import (
	"context"
	"errors"
	"testing"

	"pmx/internal/catalog/catalog"
	"pmx/internal/data/ledger"
)

type fakeData struct{ err error }

func (f fakeData) Apply(_ context.Context, ev []ledger.Event) (int, error) { return len(ev), f.err }

type fakeCatalog struct{ got []string }

func (f *fakeCatalog) ImportEvents(context.Context, []catalog.Event) error { return nil }

func (f *fakeCatalog) UpsertFromLedgerMarket(_ context.Context, ev ledger.Event) error {
	f.got = append(f.got, ev.ConditionID)
	return nil
}

// resolvingCatalog also closes resolved markets.
type resolvingCatalog struct {
	fakeCatalog
	resolved [][]string
}

func (f *resolvingCatalog) ResolveFromLedger(_ context.Context, evs []ledger.Event) error {
	var conds []string
	for _, e := range evs {
		conds = append(conds, e.ConditionID)
	}
	f.resolved = append(f.resolved, conds)
	return nil
}

func TestResolutionsCloseTheirCatalogMarketsInOneCall(t *testing.T) {
	cat := &resolvingCatalog{}
	p := &Pipeline{Data: fakeData{}, Catalog: cat}
	evs := []ledger.Event{{Kind: ledger.KindResolution, ConditionID: "a"}, {Kind: ledger.KindTrade}, {Kind: ledger.KindResolution, ConditionID: "b"}}
	if _, err := p.Apply(context.Background(), evs); err != nil {
		t.Fatal(err)
	}
	if len(cat.resolved) != 1 || len(cat.resolved[0]) != 2 || cat.resolved[0][0] != "a" || cat.resolved[0][1] != "b" {
		t.Fatalf("catalog resolved %v", cat.resolved)
	}
	if _, err := (&Pipeline{Data: fakeData{}, Catalog: cat}).Apply(context.Background(), evs[1:2]); err != nil || len(cat.resolved) != 1 {
		t.Fatalf("a batch without resolutions called the catalog: %v %v", err, cat.resolved)
	}
}

func TestMarketsAreMirroredIntoTheCatalogAfterTheDataStore(t *testing.T) {
	cat := &fakeCatalog{}
	p := &Pipeline{Data: fakeData{}, Catalog: cat}
	evs := []ledger.Event{{Kind: ledger.KindMarket, ConditionID: "a"}, {Kind: ledger.KindTrade}, {Kind: ledger.KindMarket, ConditionID: "b"}}
	if n, err := p.Apply(context.Background(), evs); err != nil || n != 3 {
		t.Fatal(n, err)
	}
	if len(cat.got) != 2 || cat.got[0] != "a" || cat.got[1] != "b" {
		t.Fatalf("catalog got %v", cat.got)
	}
}

func TestARejectedBatchTouchesNoCatalog(t *testing.T) {
	cat := &fakeCatalog{}
	p := &Pipeline{Data: fakeData{err: errors.New("bad")}, Catalog: cat}
	if _, err := p.Apply(context.Background(), []ledger.Event{{Kind: ledger.KindMarket}}); err == nil {
		t.Fatal("want error")
	}
	if len(cat.got) != 0 {
		t.Fatal("catalog touched by a rejected batch")
	}
}
