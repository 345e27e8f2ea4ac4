package sqlite_test

import (
	"sync"
	"sync/atomic"
	"testing"

	"pmx/internal/data/store"
)

// TestConcurrentReadsDuringApply runs queries while batches are applied; with
// -race it checks the catalog publication and the read pool. Every page must
// stay internally consistent (has_more ⇔ next).
func TestConcurrentReadsDuringApply(t *testing.T) {
	db, _ := openDB(t)
	evs := synth(11, 20, 30, 2000)
	mustApply(t, db, evs[:100]...)
	var done atomic.Bool
	var wg sync.WaitGroup
	for g := 0; g < 4; g++ {
		wg.Add(1)
		go func(g int) {
			defer wg.Done()
			for i := 0; !done.Load(); i++ {
				u := addr(1 + (i+g)%30)
				pg, err := db.Positions(ctx, store.PositionsParams{User: u, Limit: 5})
				if err != nil || pg.HasMore != (pg.Next != nil) {
					t.Error(err, pg.HasMore)
					return
				}
				tr, err := db.Trades(ctx, store.TradesParams{IncludeMaker: true, Now: smallNow, Limit: 5})
				if err != nil || tr.HasMore != (tr.Next != nil) {
					t.Error(err)
					return
				}
				if _, err := db.Value(ctx, store.ValueParams{User: u}); err != nil {
					t.Error(err)
					return
				}
			}
		}(g)
	}
	for i := 100; i < len(evs); i += 300 {
		mustApply(t, db, evs[i:min(i+300, len(evs))]...)
	}
	done.Store(true)
	wg.Wait()
	wm, err := db.Watermark(ctx)
	if err != nil || wm.Applied != int64(len(evs)) {
		t.Fatalf("watermark %+v %v (want %d applied)", wm, err, len(evs))
	}
}
