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

// builderAgg accumulates one builder's fills (in a window or a bucket).
type builderAgg struct {
	code   string
	volume amount.Micro
	makers map[int64]struct{}
}

// scanBuilderFills calls fn for every market fill routed by a builder with
// timestamp ≥ since: its builder code, time, size, and maker wallet. It reads
// the taker rows through the (ts) partial index and each maker row at seq+1.
func (db *DB) scanBuilderFills(ctx context.Context, since int64, fn func(code string, ts int64, size amount.Micro, maker int64)) error {
	q, err := db.r.QueryContext(ctx, `SELECT t.builder, t.ts, t.size, m.wid FROM activity t
		JOIN activity m ON m.seq = t.seq + 1
		WHERE t.type = 0 AND t.taker = 1 AND t.ts >= ? AND t.builder IS NOT NULL`, since)
	if err != nil {
		return err
	}
	defer q.Close()
	for q.Next() {
		var code string
		var ts, maker int64
		var size amount.Micro
		if err := q.Scan(&code, &ts, &size, &maker); err != nil {
			return err
		}
		fn(code, ts, size, maker)
	}
	return q.Err()
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

// add counts one fill on both sides (board volume is both-sides shares, so a
// builder's volume is the sum of the board volumes of the fills it routed).
func (a *builderAgg) add(size amount.Micro, maker int64) {
	a.volume += 2 * size
	a.makers[maker] = struct{}{}
}

// BuildersLeaderboard implements store.Boards: one row per builder with a
// routed fill in the window.
func (db *DB) BuildersLeaderboard(ctx context.Context, p store.BuildersLeaderboardParams) (store.OffsetPage[store.BuilderStanding], error) {
	start := store.WindowStart(p.Period, p.Now)
	rows, err := cached(ctx, db, fmt.Sprintf("bl|%d", start), func(*catalog) ([]store.BuilderStanding, error) {
		aggs := map[string]*builderAgg{}
		err := db.scanBuilderFills(ctx, start, func(code string, _ int64, size amount.Micro, maker int64) {
			a := aggs[code]
			if a == nil {
				a = &builderAgg{code: code, makers: map[int64]struct{}{}}
				aggs[code] = a
			}
			a.add(size, maker)
		})
		if err != nil {
			return nil, err
		}
		infos, err := db.builderInfos(ctx)
		if err != nil {
			return nil, err
		}
		list := make([]*builderAgg, 0, len(aggs))
		for _, a := range aggs {
			list = append(list, a)
		}
		ranks := rankBuilders(list)
		out := make([]store.BuilderStanding, len(list))
		for i, a := range list {
			b := named(infos, a.code)
			out[i] = store.BuilderStanding{Rank: ranks[i], BuilderName: b.name, BuilderCode: a.code,
				ProfileImage: b.image, Verified: b.verified, Volume: a.volume, ActiveUsers: int64(len(a.makers))}
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
		type key struct {
			bucket int64
			code   string
		}
		aggs := map[key]*builderAgg{}
		byBucket := map[int64][]*builderAgg{}
		err := db.scanBuilderFills(ctx, first.Unix(), func(code string, ts int64, size amount.Micro, maker int64) {
			k := key{bucketOf(p.Interval, ts).Unix(), code}
			a := aggs[k]
			if a == nil {
				a = &builderAgg{code: code, makers: map[int64]struct{}{}}
				aggs[k] = a
				byBucket[k.bucket] = append(byBucket[k.bucket], a)
			}
			a.add(size, maker)
		})
		if err != nil {
			return nil, err
		}
		infos, err := db.builderInfos(ctx)
		if err != nil {
			return nil, err
		}
		buckets := make([]int64, 0, len(byBucket))
		for b := range byBucket {
			buckets = append(buckets, b)
		}
		sort.Slice(buckets, func(i, j int) bool { return buckets[i] > buckets[j] })
		out := []store.BuilderVolumePoint{}
		for _, bk := range buckets {
			list := byBucket[bk]
			ranks := rankBuilders(list)
			date := time.Unix(bk, 0).UTC().Format(time.DateOnly)
			for i, a := range list {
				b := named(infos, a.code)
				out = append(out, store.BuilderVolumePoint{Date: date, Rank: ranks[i], BuilderName: b.name,
					BuilderCode: a.code, ProfileImage: b.image, Verified: b.verified, Volume: a.volume,
					ActiveUsers: int64(len(a.makers))})
			}
		}
		return out, nil
	})
}
