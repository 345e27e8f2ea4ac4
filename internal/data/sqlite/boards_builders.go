package sqlite

import (
	"context"
	"fmt"
	"sort"
	"time"

	"pmx/internal/amount"
	"pmx/internal/data/store"
)

// builderInfo is a builder's display fields; the name falls back to the code
// when the ledger never named the builder.
type builderInfo struct {
	name, image string
	verified    bool
}

// builderAgg is one builder's fills in a window or a bucket.
type builderAgg struct {
	code   string
	volume amount.Micro
	makers int64 // distinct maker wallets
}

// builderFills aggregates the market fills routed by a builder with
// timestamp ≥ since, per (builder, bucket start of interval; "" = one
// bucket): volume = the shares its routed orders filled, each fill once
// (its taker row; docs/boards.md), and distinct maker wallets (maker rows).
// It is an index-only range scan of activity_builder_fills (both rows of a
// fill carry the code; combo fills carry none).
func (db *DB) builderFills(ctx context.Context, since int64, interval string) (map[string][]*builderAgg, error) {
	q, err := db.r.QueryContext(ctx, `SELECT builder, ts, taker, wid, size FROM activity
		WHERE type = 0 AND builder IS NOT NULL AND ts >= ?`, since)
	if err != nil {
		return nil, err
	}
	defer q.Close()
	type key struct {
		bucket int64
		code   string
	}
	type acc struct {
		agg    *builderAgg
		makers map[int64]struct{}
	}
	accs := map[key]*acc{}
	lastDay, lastBucket := int64(-1), int64(0)
	for q.Next() {
		var code string
		var ts, taker, wid int64
		var size amount.Micro
		if err := q.Scan(&code, &ts, &taker, &wid, &size); err != nil {
			return nil, err
		}
		if taker != rowMaker && taker != rowTaker {
			continue
		}
		k := key{code: code}
		if interval != "" {
			// Rows arrive in ts order (the index): consecutive fills share
			// a day, so the calendar arithmetic runs once per day.
			if d := store.DayFloor(ts); d != lastDay {
				lastDay, lastBucket = d, bucketStart(interval, d)
			}
			k.bucket = lastBucket
		}
		a := accs[k]
		if a == nil {
			a = &acc{agg: &builderAgg{code: code}, makers: map[int64]struct{}{}}
			accs[k] = a
		}
		if taker == rowTaker {
			a.agg.volume += size
		} else {
			a.makers[wid] = struct{}{}
		}
	}
	if err := q.Err(); err != nil {
		return nil, err
	}
	out := map[string][]*builderAgg{}
	for k, a := range accs {
		a.agg.makers = int64(len(a.makers))
		b := ""
		if interval != "" {
			b = time.Unix(k.bucket, 0).UTC().Format(time.DateOnly)
		}
		out[b] = append(out[b], a.agg)
	}
	return out, nil
}

// bucketStart is bucketOf in epoch seconds, without a time.Time for the
// day and week widths (the per-fill hot path).
func bucketStart(interval string, ts int64) int64 {
	d := store.DayFloor(ts)
	switch interval {
	case store.PeriodDay:
		return d
	case store.PeriodWeek:
		n := d / 86400
		return (n - ((n+3)%7+7)%7) * 86400 // epoch day 0 was a Thursday; weeks start on Monday
	}
	return bucketOf(interval, ts).Unix()
}

func (db *DB) builderInfos(ctx context.Context) (map[string]builderInfo, error) {
	q, err := db.r.QueryContext(ctx, `SELECT code, name, profile_image, verified FROM builders`)
	if err != nil {
		return nil, err
	}
	defer q.Close()
	out := map[string]builderInfo{}
	for q.Next() {
		var code string
		var b builderInfo
		if err := q.Scan(&code, &b.name, &b.image, &b.verified); err != nil {
			return nil, err
		}
		out[code] = b
	}
	return out, q.Err()
}

// rankBuilders orders aggregates by volume (then code) and returns their
// competition ranks.
func rankBuilders(aggs []*builderAgg) []int64 {
	sort.Slice(aggs, func(i, j int) bool {
		if aggs[i].volume != aggs[j].volume {
			return aggs[i].volume > aggs[j].volume
		}
		return aggs[i].code < aggs[j].code
	})
	ranks := make([]int64, len(aggs))
	for i := range aggs {
		ranks[i] = int64(i + 1)
		if i > 0 && aggs[i].volume == aggs[i-1].volume {
			ranks[i] = ranks[i-1]
		}
	}
	return ranks
}

// BuildersLeaderboard implements store.Boards: one row per builder with a
// routed fill in the window.
func (db *DB) BuildersLeaderboard(ctx context.Context, p store.BuildersLeaderboardParams) (store.OffsetPage[store.BuilderStanding], error) {
	start := store.WindowStart(p.Period, p.Now)
	rows, err := cached(ctx, db, fmt.Sprintf("bl|%d", start), func(*catalog) ([]store.BuilderStanding, error) {
		aggs, err := db.builderFills(ctx, start, "")
		if err != nil {
			return nil, err
		}
		infos, err := db.builderInfos(ctx)
		if err != nil {
			return nil, err
		}
		list := aggs[""]
		ranks := rankBuilders(list)
		out := make([]store.BuilderStanding, len(list))
		for i, a := range list {
			b := named(infos, a.code)
			out[i] = store.BuilderStanding{Rank: ranks[i], Builder: b.name, BuilderName: b.name, BuilderCode: a.code,
				ProfileImage: b.image, Verified: b.verified, Volume: a.volume, ActiveUsers: a.makers}
		}
		return out, nil
	})
	if err != nil {
		return store.OffsetPage[store.BuilderStanding]{}, err
	}
	return page(rows, p.Offset, p.Limit), nil
}

func named(infos map[string]builderInfo, code string) builderInfo {
	b := infos[code]
	if b.name == "" {
		b.name = code
	}
	return b
}

// bucketOf returns the UTC start of the calendar bucket holding ts: the
// day, the ISO week (Monday), the month, or the year (interval all).
func bucketOf(interval string, ts int64) time.Time {
	t := time.Unix(ts, 0).UTC()
	d := time.Date(t.Year(), t.Month(), t.Day(), 0, 0, 0, 0, time.UTC)
	switch interval {
	case store.PeriodWeek:
		return d.AddDate(0, 0, -((int(d.Weekday()) + 6) % 7))
	case store.PeriodMonth:
		return time.Date(t.Year(), t.Month(), 1, 0, 0, 0, 0, time.UTC)
	case store.PeriodAll:
		return time.Date(t.Year(), 1, 1, 0, 0, 0, 0, time.UTC)
	}
	return d
}

// bucketsBack is the start of the bucket n−1 buckets before the one of now.
func bucketsBack(interval string, now int64, n int) time.Time {
	b := bucketOf(interval, now)
	k := n - 1
	switch interval {
	case store.PeriodWeek:
		return b.AddDate(0, 0, -7*k)
	case store.PeriodMonth:
		return b.AddDate(0, -k, 0)
	case store.PeriodAll:
		return b.AddDate(-k, 0, 0)
	}
	return b.AddDate(0, 0, -k)
}

// BuildersVolume implements store.Boards: the Buckets most recent calendar
// buckets up to now's, newest first, every builder of a bucket ranked within
// it. A bucket is always served whole; buckets without fills have no rows.
func (db *DB) BuildersVolume(ctx context.Context, p store.BuildersVolumeParams) ([]store.BuilderVolumePoint, error) {
	n := max(p.Buckets, 1)
	first := bucketsBack(p.Interval, p.Now, n)
	return cached(ctx, db, fmt.Sprintf("bv|%s|%d|%d", p.Interval, first.Unix(), n), func(*catalog) ([]store.BuilderVolumePoint, error) {
		byBucket, err := db.builderFills(ctx, first.Unix(), p.Interval)
		if err != nil {
			return nil, err
		}
		infos, err := db.builderInfos(ctx)
		if err != nil {
			return nil, err
		}
		buckets := make([]string, 0, len(byBucket))
		for b := range byBucket {
			buckets = append(buckets, b)
		}
		sort.Slice(buckets, func(i, j int) bool { return buckets[i] > buckets[j] })
		out := []store.BuilderVolumePoint{}
		for _, bk := range buckets {
			list := byBucket[bk]
			ranks := rankBuilders(list)
			for i, a := range list {
				b := named(infos, a.code)
				out = append(out, store.BuilderVolumePoint{Date: bk, Rank: ranks[i], Builder: b.name, BuilderName: b.name,
					BuilderCode: a.code, ProfileImage: b.image, Verified: b.verified, Volume: a.volume,
					ActiveUsers: a.makers})
			}
		}
		return out, nil
	})
}
