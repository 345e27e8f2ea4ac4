package dataapi

import (
	"time"

	"pmx/internal/data/store"
)

// Window is the store's inclusive [Start, End] range in epoch seconds; 0 on
// a side means unbounded.
type Window = store.Window

// FeedWindow reads `start`/`end` with the feeds' rule (/v2/trades?user= and
// /v2/activity, data-api-v2.md §1.6): start omitted or 0 floors to three
// calendar years before now; start=1 asks for full history (Start 0); end
// omitted or 0 is now plus one day. Negative bounds and start > end are 400.
func (q *Query) FeedWindow(now time.Time) (Window, error) {
	start, end, err := bounds(q, "start", "end")
	if err != nil {
		return Window{}, err
	}
	switch start {
	case 0:
		start = now.AddDate(-3, 0, 0).Unix()
	case 1:
		start = 0
	}
	if end == 0 {
		end = now.Add(24 * time.Hour).Unix()
	}
	if start > end {
		return Window{}, Invalid("start", "start must not be after end")
	}
	return Window{Start: start, End: end}, nil
}

// bounds parses a pair of optional epoch-second bounds named lo and hi
// (start/end, updated_after/updated_before); negatives are 400.
func bounds(q *Query, lo, hi string) (int64, int64, error) {
	var out [2]int64
	for i, name := range []string{lo, hi} {
		v, _, err := q.Int64(name)
		if err != nil {
			return 0, 0, err
		}
		if v < 0 {
			return 0, 0, Invalidf(name, "%s must be a non-negative epoch second", name)
		}
		out[i] = v
	}
	return out[0], out[1], nil
}
