package dataapi

import (
	"testing"
	"time"
)

func TestWindows(t *testing.T) {
	now := time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC)
	threeYears := time.Date(2023, 11, 21, 12, 0, 0, 0, time.UTC).Unix()
	tomorrow := now.Add(24 * time.Hour).Unix()
	feed := []struct {
		raw  string
		want Window
		bad  string
	}{
		{"", Window{Start: threeYears, End: tomorrow}, ""},
		{"start=0&end=0", Window{Start: threeYears, End: tomorrow}, ""},
		{"start=1", Window{Start: 0, End: tomorrow}, ""},
		{"start=100&end=200", Window{Start: 100, End: 200}, ""},
		{"start=300&end=200", Window{}, "start"},
		{"start=-1", Window{}, "start"},
		{"end=x", Window{}, "end"},
	}
	for _, tc := range feed {
		got, err := mustQuery(t, "/v2/activity", tc.raw).FeedWindow(now)
		if tc.bad != "" {
			wantInvalid(t, tc.raw, err, tc.bad, "")
			continue
		}
		if err != nil || got != tc.want {
			t.Errorf("feed %q: %+v %v want %+v", tc.raw, got, err, tc.want)
		}
	}
}
