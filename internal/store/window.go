package store

import "time"

// Window bounds, epoch seconds, both inclusive.
type Window struct{ Start, End int64 }

const day = 86400

// ThreeYears is the default look-back of the feeds (3 × 365 days).
const ThreeYears = 3 * 365 * day

// FeedWindow resolves the start/end rule of /v2/trades?user= and
// /v2/activity: start omitted/0 floors to three years back, start=1 is the
// full history, end omitted/0 is now plus one day.
func FeedWindow(start, end, now int64) Window {
	w := Window{Start: start, End: end}
	switch start {
	case 0:
		w.Start = now - ThreeYears
	case 1:
		w.Start = 0
	}
	if end == 0 {
		w.End = now + day
	}
	return w
}

// MarketFeedWindow is the fixed window of the condition/event trades feed.
func MarketFeedWindow(now int64) Window { return Window{Start: now - ThreeYears, End: now + day} }

// GlobalFeedWindow is the bare trades feed's window: the current and the
// previous calendar month (UTC), up to now plus one day.
func GlobalFeedWindow(now int64) Window {
	t := time.Unix(now, 0).UTC()
	first := time.Date(t.Year(), t.Month()-1, 1, 0, 0, 0, 0, time.UTC)
	return Window{Start: first.Unix(), End: now + day}
}

// DayFloor floors an epoch second to its UTC midnight.
func DayFloor(t int64) int64 {
	if t < 0 {
		return t - ((t%day)+day)%day
	}
	return t - t%day
}
