package main

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"path/filepath"
	"testing"
	"time"

	"pmx/internal/catalog/catalog"
)

// TestLinkDemoSeriesChangesOnlySeries: filing the demo's events under their
// series rewrites them through the catalog import, which must leave every
// other field (markets included) as it was; linking again changes nothing.
func TestLinkDemoSeriesChangesOnlySeries(t *testing.T) {
	ctx := context.Background()
	st, err := openStores(ctx, filepath.Join(t.TempDir(), "pmx.db"), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	now := time.Date(2026, 11, 25, 20, 17, 3, 0, time.UTC).Unix()
	if _, err := applyDemo(ctx, st.pipeline, 3, 0.01, now, io.Discard, slog.New(slog.DiscardHandler), nil); err != nil {
		t.Fatal(err)
	}
	snapshot := func(clear bool) (string, int) {
		evs, err := st.catalog.ListEvents(ctx, catalog.EventFilter{Page: catalog.Page{Order: catalog.OrderID}})
		if err != nil {
			t.Fatal(err)
		}
		linked := 0
		for i := range evs {
			if len(evs[i].Series) > 0 {
				linked++
			}
			if clear {
				evs[i].Series, evs[i].SeriesSlug = nil, nil
			}
		}
		b, _ := json.Marshal(evs)
		return string(b), linked
	}
	before, n := snapshot(true)
	if n != 0 {
		t.Fatalf("%d events in a series before linking", n)
	}
	for range 2 {
		if err := linkDemoSeries(ctx, st.catalog, now); err != nil {
			t.Fatal(err)
		}
		after, linked := snapshot(true)
		if linked == 0 {
			t.Fatal("no event was linked to a series")
		}
		if after != before {
			t.Fatal("linking series changed other fields of the events")
		}
	}
}
