package sqlite

import (
	"testing"
	"time"

	"pmx/internal/data/store"
)

// bucketStart (the per-fill fast path) agrees with bucketOf (calendar
// arithmetic) for every width, across week, month and year boundaries.
func TestBucketStartMatchesCalendar(t *testing.T) {
	from := time.Date(2024, 12, 25, 0, 0, 0, 0, time.UTC).Unix()
	for ts := from; ts < from+400*86400; ts += 86400/3 + 7 {
		for _, iv := range []string{store.PeriodDay, store.PeriodWeek, store.PeriodMonth, store.PeriodAll} {
			want := bucketOf(iv, ts)
			if got := bucketStart(iv, ts); got != want.Unix() {
				t.Fatalf("%s %v: bucketStart %v, bucketOf %v", iv, time.Unix(ts, 0).UTC(), time.Unix(got, 0).UTC(), want)
			}
			if iv == store.PeriodWeek && want.Weekday() != time.Monday {
				t.Fatalf("week bucket %v is a %v", want, want.Weekday())
			}
		}
	}
}

func TestBoardCacheBuildsOncePerGeneration(t *testing.T) {
	var c boardCache
	builds := 0
	build := func() (any, error) { builds++; return builds, nil }
	ctx := t.Context()
	for _, step := range []struct {
		gen    int64
		key    string
		want   int
		builds int
	}{
		{1, "a", 1, 1}, {1, "a", 1, 1}, {1, "b", 2, 2}, {1, "a", 1, 2},
		{2, "a", 3, 3}, // a new generation drops every board
		{1, "a", 4, 4}, // an older reader builds privately, caching nothing
		{2, "a", 3, 4},
	} {
		v, err := c.get(ctx, step.gen, step.key, build)
		if err != nil || v.(int) != step.want || builds != step.builds {
			t.Fatalf("gen %d key %s: got %v (%v), %d builds; want %d, %d builds", step.gen, step.key, v, err, builds, step.want, step.builds)
		}
	}
}
