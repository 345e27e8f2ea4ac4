package dataapi

import (
	"net/http"
	"strconv"

	"pmx/internal/amount"
	"pmx/internal/data/store"
)

// /v2/prices-history (data-api-v2.md §2.14). The series is built from the
// token's fills: one point per bucket that holds a fill (the bucket's last
// price, timestamp = bucket start, resolution_seconds = width), then a
// terminal point at the newest fill (its own time, resolution 0), then for a
// resolved market a settlement point at the payout one bucket edge past the
// last bucket (clamped to an explicit end). Points order by (timestamp
// ascending, resolution_seconds descending); the keyset cursor carries the
// last point's (timestamp, resolution_seconds) as (ts, sq).

const (
	pricesDefaultLimit   int32 = 10_000
	pricesMaxLimit       int32 = 10_000
	pricesMaxWindow            = 15 * 86400 // explicit windows reach at most 15 days back from now
	pricesMaxPoints            = 2_500      // auto grain keeps a series under this many buckets
	pricesFineCap              = 30 * 86400 // max/all on a grain finer than 3 h keeps a 30-day window
	minBucket, maxBucket       = 60, 86400
)

// PricePoint is a /v2/prices-history row.
type PricePoint struct {
	Timestamp         int64        `json:"timestamp"`
	Price             amount.Micro `json:"price"`
	ResolutionSeconds int64        `json:"resolution_seconds"`
}

var intervalSeconds = map[string]int64{"1h": 3600, "6h": 6 * 3600, "1d": 86400, "1w": 7 * 86400, "1m": 30 * 86400}

// intervalBucket is the default width per interval and the floor an
// explicit width is raised to.
func intervalBucket(interval string, explicit int64) int64 {
	def, floor := int64(60), int64(minBucket)
	switch interval {
	case "1w":
		def, floor = 300, 300
	case "1m":
		def, floor = 1800, 600
	case "max", "all":
		def, floor = 43200, 600
	}
	if explicit == 0 {
		return def
	}
	return max(explicit, floor)
}

// autoBucket is the finest tier grain keeping a window of width seconds
// under pricesMaxPoints buckets; a window wider than 12 h never gets 60.
func autoBucket(width int64) int64 {
	for _, g := range []int64{60, 300, 1800, 10800} {
		if g == 60 && width > 12*3600 {
			continue
		}
		if (width+g-1)/g <= pricesMaxPoints {
			return g
		}
	}
	return 43200
}

// priceWindow is a parsed request: ticks in [from, to), bucket width, and
// the explicit end (0 = none) a settlement point is clamped to.
type priceWindow struct {
	from, to, bucket, end int64
	asOf                  int64 // > 0: the as_of form
}

func positiveInt(q *Query, name string) (int64, bool, error) {
	v, ok, err := q.Int64(name)
	if err != nil || !ok {
		return 0, false, err
	}
	if v <= 0 {
		return 0, false, Invalidf(name, "%s must be a positive epoch second", name)
	}
	return v, true, nil
}

func parsePriceWindow(q *Query, now int64) (priceWindow, error) {
	var pw priceWindow
	start, hasStart, err := positiveInt(q, "start")
	if err != nil {
		return pw, err
	}
	end, hasEnd, err := positiveInt(q, "end")
	if err != nil {
		return pw, err
	}
	asOf, hasAsOf, err := positiveInt(q, "as_of")
	if err != nil {
		return pw, err
	}
	interval, err := q.Enum(EnumPricesHistoryInterval, "")
	if err != nil {
		return pw, err
	}
	bucket, hasBucket, err := q.Int64("bucket_seconds")
	if err != nil {
		return pw, err
	}
	if hasBucket && (bucket < minBucket || bucket > maxBucket) {
		return pw, Invalidf("bucket_seconds", "bucket_seconds must be between %d and %d", minBucket, maxBucket)
	}
	if hasEnd && !hasStart {
		return pw, Invalid("end", "end requires start")
	}
	forms := 0
	for _, b := range []bool{hasStart, interval != "", hasAsOf} {
		if b {
			forms++
		}
	}
	switch {
	case forms == 0:
		return pw, Invalid("", "provide one of 'start', 'interval' or 'as_of'")
	case forms > 1:
		return pw, Invalid("", "'start', 'interval' and 'as_of' are mutually exclusive")
	case hasAsOf && hasBucket:
		return pw, Invalid("bucket_seconds", "bucket_seconds does not apply to as_of")
	}
	switch {
	case hasAsOf:
		pw.asOf, pw.to = asOf, asOf+1
	case hasStart:
		pw.from, pw.to = start, now+1
		if hasEnd {
			if end <= start {
				return pw, Invalid("end", "end must be after start")
			}
			pw.to, pw.end = end, end
		}
		pw.from = max(pw.from, now-pricesMaxWindow) // the cap, re-applied on every page
		pw.bucket = bucket
		if !hasBucket {
			pw.bucket = autoBucket(max(pw.to-pw.from, 1))
		}
	default:
		pw.to = now + 1
		pw.bucket = intervalBucket(interval, bucket)
		if d, ok := intervalSeconds[interval]; ok {
			pw.from = now - d
		} else if pw.bucket < 10800 { // max/all on a fine grain
			pw.from = now - pricesFineCap
		}
	}
	return pw, nil
}

// priceSeries builds the served series from ticks (oldest first).
func priceSeries(pt store.PriceTicks, pw priceWindow) []PricePoint {
	var out []PricePoint
	b := pw.bucket
	for _, t := range pt.Ticks {
		start := t.Timestamp - t.Timestamp%b
		if n := len(out); n > 0 && out[n-1].Timestamp == start {
			out[n-1].Price = t.Price // the bucket's last fill
			continue
		}
		out = append(out, PricePoint{Timestamp: start, Price: t.Price, ResolutionSeconds: b})
	}
	if len(out) == 0 {
		return nil
	}
	lastBucket := out[len(out)-1].Timestamp
	last := pt.Ticks[len(pt.Ticks)-1]
	out = append(out, PricePoint{Timestamp: last.Timestamp, Price: last.Price})
	if pt.Resolved && pt.ResolvedAt < pw.to {
		ts := lastBucket + b
		if pw.end > 0 && ts > pw.end {
			ts = pw.end
		}
		out = append(out, PricePoint{Timestamp: ts, Price: pt.Payout})
	}
	return out
}

// afterPoint reports whether p comes after the anchor (ts, res).
func afterPoint(p PricePoint, ts, res int64) bool {
	return p.Timestamp > ts || (p.Timestamp == ts && p.ResolutionSeconds < res)
}

func (s *Service) pricesHistory(w http.ResponseWriter, r *http.Request) error {
	q, err := ParseRequest(r)
	if err != nil {
		return err
	}
	raw, err := q.Get("token_id")
	if err != nil {
		return err
	}
	if raw == "" {
		return Required("token_id")
	}
	token, ok := TokenID(raw)
	if !ok {
		return Invalidf("token_id", "invalid token id: %s", clip(raw))
	}
	pw, err := parsePriceWindow(q, s.now())
	if err != nil {
		return err
	}
	// With a cursor: its page size and offset, and the last point served
	// (ts, resolution seconds); without, limit from the query.
	var ks *Keyset
	var res int64
	limit, offset := int32(0), int32(0)
	if c, err := q.Cursor(); err != nil {
		return err
	} else if c != "" {
		k, err := s.cursors.DecodeKeyset("prices_history", c, pricesMaxLimit)
		if err != nil {
			return err
		}
		if res, err = strconv.ParseInt(k.Seq, 10, 64); err != nil {
			return errInvalidCursor()
		}
		ks, limit, offset = &k, k.Limit, k.Offset
	} else if limit, err = q.Limit(pricesDefaultLimit, pricesMaxLimit); err != nil {
		return err
	}
	pt, err := s.store.PriceTicks(r.Context(), store.PriceTicksParams{TokenID: token, From: pw.from, To: pw.to,
		Last: pw.asOf > 0})
	if err != nil {
		return err
	}
	var points []PricePoint
	if pw.asOf > 0 {
		if len(pt.Ticks) > 0 {
			points = []PricePoint{{Timestamp: pt.Ticks[0].Timestamp, Price: pt.Ticks[0].Price}}
		}
	} else {
		points = priceSeries(pt, pw)
	}
	if ks != nil {
		i := 0
		for i < len(points) && !afterPoint(points[i], ks.TS, res) {
			i++
		}
		points = points[i:]
	}
	next := ""
	if len(points) > int(limit) {
		points = points[:limit]
		last := points[len(points)-1]
		next, err = s.cursors.Encode("prices_history", Keyset{Limit: limit, Offset: offset + limit,
			TS: last.Timestamp, Seq: strconv.FormatInt(last.ResolutionSeconds, 10)})
		if err != nil {
			return Internal(err)
		}
	}
	WritePage(w, r, points, Pagination{Limit: limit, Offset: offset, NextCursor: next})
	return nil
}
