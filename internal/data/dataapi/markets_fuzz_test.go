package dataapi

import (
	"encoding/binary"
	"errors"
	"testing"

	"pmx/internal/amount"
	"pmx/internal/data/store"
)

// TestAutoBucket: the spec's examples of the server-chosen grain.
func TestAutoBucket(t *testing.T) {
	for _, c := range []struct{ width, want int64 }{
		{3600, 60}, {12 * 3600, 60}, {12*3600 + 1, 300}, {86400, 300}, {3 * 86400, 300}, {7 * 86400, 300},
		{15 * 86400, 1800}, {90 * 86400, 10800}, {900 * 86400, 43200},
	} {
		if got := autoBucket(c.width); got != c.want {
			t.Errorf("autoBucket(%d) = %d, want %d", c.width, got, c.want)
		}
	}
}

// FuzzPriceWindow: any query either parses to a usable window or is a 400.
func FuzzPriceWindow(f *testing.F) {
	for _, s := range []string{"start=1789920000", "start=1789920000&end=1789930000&bucket_seconds=60",
		"interval=max&bucket_seconds=600", "interval=1w", "as_of=5", "start=0", "interval=", "end=5",
		"start=1&interval=1d", "bucket_seconds=86400&start=9223372036854775807", "as_of=9223372036854775807"} {
		f.Add(s)
	}
	const now = 1_790_000_000
	f.Fuzz(func(t *testing.T, raw string) {
		q, err := ParseQuery("/v2/prices-history", raw)
		if err != nil {
			return
		}
		pw, err := parsePriceWindow(q, now)
		if err != nil {
			var e *Error
			if !errors.As(err, &e) || e.Code != CodeInvalidRequest {
				t.Fatalf("%q: %v", raw, err)
			}
			return
		}
		if pw.asOf > 0 {
			if pw.to != pw.asOf+1 {
				t.Fatalf("%q: %+v", raw, pw)
			}
			return
		}
		if pw.bucket < minBucket || pw.bucket > maxBucket || pw.from < 0 || pw.to > now+1 {
			t.Fatalf("%q: %+v", raw, pw)
		}
		if pw.end != 0 && pw.to != pw.end {
			t.Fatalf("%q: %+v", raw, pw)
		}
	})
}

// FuzzPriceSeries: for any ticks, the series is strictly ordered by the
// cursor's key (timestamp ascending, resolution descending), so keyset pages
// neither skip nor repeat; buckets are aligned and the last bucket point
// carries the terminal tick's price.
func FuzzPriceSeries(f *testing.F) {
	f.Add([]byte{0, 10, 1, 0, 60, 2, 0, 61, 3}, uint16(60), true)
	f.Add([]byte{1, 0, 9, 1, 0, 9}, uint16(300), false)
	f.Fuzz(func(t *testing.T, data []byte, b uint16, resolved bool) {
		bucket := int64(b)%(maxBucket-minBucket+1) + minBucket
		var pt store.PriceTicks
		ts := int64(1_789_000_000)
		for len(data) >= 3 {
			ts += int64(binary.BigEndian.Uint16(data[:2]))
			pt.Ticks = append(pt.Ticks, store.Tick{Timestamp: ts, Price: amount.Micro(data[2]) * 1000})
			data = data[3:]
		}
		pt.Resolved, pt.Payout, pt.ResolvedAt = resolved, amount.One, ts
		pw := priceWindow{from: 0, to: ts + 1, bucket: bucket}
		s := priceSeries(pt, pw)
		if len(pt.Ticks) == 0 {
			if len(s) != 0 {
				t.Fatal("points without ticks")
			}
			return
		}
		for i := 1; i < len(s); i++ {
			if !afterPoint(s[i], s[i-1].Timestamp, s[i-1].ResolutionSeconds) {
				t.Fatalf("not ordered at %d: %+v", i, s)
			}
		}
		last := pt.Ticks[len(pt.Ticks)-1]
		n := len(s) - 1
		if resolved {
			n--
		}
		if s[n].Timestamp != last.Timestamp || s[n].Price != last.Price || s[n].ResolutionSeconds != 0 {
			t.Fatalf("terminal point %+v, last tick %+v", s[n], last)
		}
		for _, p := range s[:n] {
			if p.ResolutionSeconds != bucket || p.Timestamp%bucket != 0 {
				t.Fatalf("bucket point %+v on grid %d", p, bucket)
			}
		}
		if s[n-1].Price != last.Price {
			t.Fatalf("last bucket closes at %s, last tick %s", s[n-1].Price, last.Price)
		}
	})
}
