package dataapi_test

import (
	"math/big"
	"testing"
)

// Builder volume is shares, each routed fill once; active_users counts
// distinct makers.
func TestBuildersLeaderboard_Contents(t *testing.T) {
	w := MustWorld(t)
	w.MustApply(boardsLedger)
	for _, tc := range []struct {
		q                             string
		codes, ranks, vol, act, names []string
	}{
		// Today: BC1 routed A/B 50 (maker B) and A/C 50 (maker C).
		{"", []string{"{BC1}"}, []string{"1"}, []string{"100"}, []string{"2"}, []string{"betmoar"}},
		{"?time_period=week", []string{"{BC2}", "{BC1}"}, []string{"1", "2"}, []string{"200", "100"}, []string{"1", "2"},
			[]string{V("{BC2}"), "betmoar"}},
		// all: a tie (200 each) shares rank 1, listed by code.
		{"?timePeriod=all", []string{"{BC1}", "{BC2}"}, []string{"1", "1"}, []string{"200", "200"}, []string{"2", "1"},
			[]string{"betmoar", V("{BC2}")}},
	} {
		rows := w.MustWalk("/v2/builders/leaderboard"+tc.q, "")
		codes := make([]string, len(tc.codes))
		for i, c := range tc.codes {
			codes[i] = V(c)
		}
		MustEqualRows(t, tc.q, rows, "builder_code", codes...)
		MustEqualRows(t, tc.q, rows, "rank", tc.ranks...)
		MustEqualRows(t, tc.q, rows, "volume", tc.vol...)
		MustEqualRows(t, tc.q, rows, "active_users", tc.act...)
		MustEqualRows(t, tc.q, rows, "builder_name", tc.names...)
		MustEqualRows(t, tc.q, rows, "builder", tc.names...)
	}
	rows := w.MustWalk("/v2/builders/leaderboard?time_period=all", "")
	MustFields(t, "BC1", rows[0], map[string]string{"profile_image": "https://img/betmoar.png", "verified": "true"})
	MustFields(t, "BC2", rows[1], map[string]string{"profile_image": "", "verified": "false"})
}

// Every fill of boardsLedger is routed by a builder, so in every window the
// builders' volumes add up to half the trader leaderboard's (a fill counts
// once for its builder, twice on the trader board: taker and maker), and a
// bucket series sums to its window.
func TestBuildersLeaderboard_VolumeMatchesTraderBoard(t *testing.T) {
	w := MustWorld(t)
	w.MustApply(boardsLedger)
	sum := func(rows []map[string]any) string {
		s := new(big.Rat)
		for _, r := range rows {
			v, _ := new(big.Rat).SetString(str(r["volume"]))
			s.Add(s, v)
		}
		return s.FloatString(6)
	}
	for _, p := range []string{"day", "week", "month", "all"} {
		b := sum(w.MustWalk("/v2/builders/leaderboard?limit=1&time_period="+p, ""))
		l := sum(w.MustWalk("/v2/leaderboard?sort_by=VOLUME&time_period="+p, ""))
		bb, _ := new(big.Rat).SetString(b)
		if bb.Add(bb, bb).FloatString(6) != l || b == "0.000000" {
			t.Errorf("%s: builders %s, traders %s", p, b, l)
		}
	}
	if b, v := sum(w.MustWalk("/v2/builders/leaderboard?time_period=month", "")), sum(w.MustPageless("/v2/builders/volume")); b != v {
		t.Errorf("month board %s, 30 daily buckets %s", b, v)
	}
}

func TestBuildersVolume_Buckets(t *testing.T) {
	w := MustWorld(t)
	w.MustApply(boardsLedger)
	type row struct{ date, code, rank, vol, act string }
	for _, tc := range []struct {
		q    string
		want []row
	}{
		// Newest bucket first; 2026-09-15 is a Tuesday.
		{"", []row{{"2026-09-15", "{BC1}", "1", "100", "2"}, {"2026-09-12", "{BC2}", "1", "200", "1"},
			{"2026-09-05", "{BC1}", "1", "100", "1"}}},
		// limit counts calendar buckets back from today's: 09-12..09-15.
		{"?limit=4", []row{{"2026-09-15", "{BC1}", "1", "100", "2"}, {"2026-09-12", "{BC2}", "1", "200", "1"}}},
		{"?limit=3", []row{{"2026-09-15", "{BC1}", "1", "100", "2"}}},
		{"?interval=week", []row{{"2026-09-14", "{BC1}", "1", "100", "2"}, {"2026-09-07", "{BC2}", "1", "200", "1"},
			{"2026-08-31", "{BC1}", "1", "100", "1"}}},
		{"?time_period=month", []row{{"2026-09-01", "{BC1}", "1", "200", "2"}, {"2026-09-01", "{BC2}", "1", "200", "1"}}},
		{"?timePeriod=all&limit=90", []row{{"2026-01-01", "{BC1}", "1", "200", "2"}, {"2026-01-01", "{BC2}", "1", "200", "1"}}},
	} {
		var env struct {
			Data []map[string]any `json:"data"`
			Page *any             `json:"pagination"`
		}
		w.MustGet("/v2/builders/volume"+tc.q, &env)
		if env.Page != nil {
			t.Errorf("%s: pagination on a non-paged route", tc.q)
		}
		if len(env.Data) != len(tc.want) {
			t.Fatalf("%s: %d rows, want %d: %v", tc.q, len(env.Data), len(tc.want), env.Data)
		}
		for i, want := range tc.want {
			MustFields(t, tc.q, env.Data[i], map[string]string{"date": want.date, "builder_code": V(want.code),
				"rank": want.rank, "volume": want.vol, "active_users": want.act})
		}
	}
	MustFields(t, "names", w.MustPageless("/v2/builders/volume")[0], map[string]string{"builder_name": "betmoar", "builder": "betmoar",
		"profile_image": "https://img/betmoar.png", "verified": "true"})
}

// MustPageless fetches a non-paged list route's data array.
func (w *World) MustPageless(path string) []map[string]any {
	w.t.Helper()
	var env struct {
		Data []map[string]any `json:"data"`
	}
	w.MustGet(path, &env)
	return env.Data
}
