package sqlite

import (
	"context"
	"fmt"
	"sort"
	"time"

	"pmx/internal/amount"
	"pmx/internal/store"
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

// bucketExpr is the SQL date (YYYY-MM-DD, UTC) of the calendar bucket of a
// fill's t.ts: its day, its ISO week's Monday (epoch day 0 was a Thursday),
// its month's or its year's first day; "" for one bucket (the leaderboard).
var bucketExpr = map[string]string{
	"":                `''`,
	store.PeriodDay:   `date(t.ts, 'unixepoch')`,
	store.PeriodWeek:  `date((t.ts / 86400 - (t.ts / 86400 + 3) % 7) * 86400, 'unixepoch')`,
	store.PeriodMonth: `strftime('%Y-%m-01', t.ts, 'unixepoch')`,
	store.PeriodAll:   `strftime('%Y-01-01', t.ts, 'unixepoch')`,
}

// builderFills aggregates the market fills routed by a builder with
// timestamp ≥ since, per (builder, bucket of interval): volume (both sides:
// 2 × size, so a builder's volume is the sum of the board volumes of the
// fills it routed) and distinct makers. It reads the taker rows through the
// (ts) partial index and each maker row at seq+1; SQLite aggregates, so only
// one row per (builder, bucket) crosses into Go.
func (db *DB) builderFills(ctx context.Context, since int64, interval string) (map[string][]*builderAgg, error) {
	q, err := db.r.QueryContext(ctx, `SELECT t.builder, `+bucketExpr[interval]+` AS b, 2 * SUM(t.size),
		COUNT(DISTINCT m.wid) FROM activity t JOIN activity m ON m.seq = t.seq + 1
		WHERE t.type = 0 AND t.taker = 1 AND t.ts >= ? AND t.builder IS NOT NULL GROUP BY t.builder, b`, since)
	if err != nil {
		return nil, err
	}
	defer q.Close()
	out := map[string][]*builderAgg{}
	for q.Next() {
		var a builderAgg
		var bucket string
		if err := q.Scan(&a.code, &bucket, &a.volume, &a.makers); err != nil {
			return nil, err
		}
		out[bucket] = append(out[bucket], &a)
	}
	return out, q.Err()
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
			out[i] = store.BuilderStanding{Rank: ranks[i], BuilderName: b.name, BuilderCode: a.code,
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
				out = append(out, store.BuilderVolumePoint{Date: bk, Rank: ranks[i], BuilderName: b.name,
					BuilderCode: a.code, ProfileImage: b.image, Verified: b.verified, Volume: a.volume,
					ActiveUsers: a.makers})
			}
		}
		return out, nil
	})
}
