package sqlite_test

import (
	"testing"
	"time"
)

func TestPhaseTiming(t *testing.T) {
	evs := synth(1, 300, 5000, 20000)
	t0 := time.Now()
	db, _ := openDB(t)
	t.Logf("open %v", time.Since(t0))
	t0 = time.Now()
	if _, err := db.Apply(ctx, evs[:5300]); err != nil {
		t.Fatal(err)
	}
	t.Logf("markets+profiles %v", time.Since(t0))
	t0 = time.Now()
	if _, err := db.Apply(ctx, evs[5300:]); err != nil {
		t.Fatal(err)
	}
	t.Logf("rest %d %v", len(evs)-5300, time.Since(t0))
}
