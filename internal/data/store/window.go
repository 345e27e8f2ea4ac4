package store

import "time"

// Window is an inclusive [Start, End] range in epoch seconds; 0 on a side
// means unbounded.
type Window struct{ Start, End int64 }

const day = 86400

// MarketFeedWindow is the fixed window of the condition/event trades feed:
// three calendar years back to now plus one day.
func MarketFeedWindow(now int64) Window {
	return Window{Start: time.Unix(now, 0).UTC().AddDate(-3, 0, 0).Unix(), End: now + day}
}

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
