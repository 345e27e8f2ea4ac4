package dataapi_test

import (
	"fmt"
	"math/big"
	"testing"
)

func TestLeaderboard_BoardContents(t *testing.T) {
	w := MustWorld(t)
	w.MustApply(boardsLedger)
	for _, tc := range []struct {
		name, q                string
		users, ranks, pnl, vol []string
	}{
		{"day PNL (default)", "",
			[]string{"{D}", "{B}", "{A}", "{C}"}, []string{"1", "2", "3", "4"},
			[]string{"80", "50", "45", "-85"}, []string{"0", "50", "100", "50"}},
		{"day VOLUME: ties share a rank", "?sort_by=VOLUME&time_period=day",
			[]string{"{A}", "{B}", "{C}"}, []string{"1", "2", "2"},
			[]string{"45", "50", "-85"}, []string{"100", "50", "50"}},
		{"week PNL", "?time_period=week",
			[]string{"{D}", "{A}", "{B}", "{C}"}, []string{"1", "2", "3", "4"},
			[]string{"80", "45", "40", "-85"}, []string{"0", "100", "250", "250"}},
		{"week VOLUME", "?timePeriod=WEEK&sortBy=volume",
			[]string{"{B}", "{C}", "{A}"}, []string{"1", "1", "3"},
			[]string{"40", "-85", "45"}, []string{"250", "250", "100"}},
		{"month PNL", "?time_period=month",
			[]string{"{D}", "{A}", "{B}", "{C}"}, []string{"1", "2", "3", "4"},
			[]string{"80", "45", "40", "-85"}, []string{"0", "200", "350", "250"}},
		// all: realized-only lifetime.
		{"all PNL", "?time_period=all",
			[]string{"{D}", "{A}", "{C}", "{B}"}, []string{"1", "2", "3", "4"},
			[]string{"80", "45", "0", "-20"}, []string{"0", "200", "250", "350"}},
		{"all VOLUME", "?time_period=all&sort_by=VOLUME",
			[]string{"{B}", "{C}", "{A}"}, []string{"1", "2", "3"},
			[]string{"-20", "0", "45"}, []string{"350", "250", "200"}},
		// Category boards: fills in the category's markets; PnL of its
		// positions with an event in the window.
		{"sports day", "?category=sports",
			[]string{"{A}", "{C}"}, []string{"1", "2"}, []string{"45", "15"}, []string{"50", "50"}},
		{"sports all volume", "?category=Sports&time_period=all&sort_by=VOLUME",
			[]string{"{B}", "{C}", "{A}"}, []string{"1", "2", "3"}, []string{"-10", "0", "45"}, []string{"300", "250", "150"}},
		// A's M3 split nets to 0 (YES +5, NO −5) and is no fill: no row.
		{"esports day", "?category=esports", nil, nil, nil, nil},
		{"combos day", "?category=combos",
			[]string{"{D}"}, []string{"1"}, []string{"80"}, []string{"0"}},
		{"combos VOLUME has no rows", "?category=combos&sort_by=VOLUME", nil, nil, nil, nil},
		{"unknown category is empty", "?category=curling", nil, nil, nil, nil},
	} {
		rows := w.MustWalk("/v2/leaderboard"+tc.q, "")
		users := make([]string, len(tc.users))
		for i, u := range tc.users {
			users[i] = V(u)
		}
		MustEqualRows(t, tc.name, rows, "user_id", users...)
		MustEqualRows(t, tc.name, rows, "rank", tc.ranks...)
		MustEqualRows(t, tc.name, rows, "pnl", tc.pnl...)
		MustEqualRows(t, tc.name, rows, "volume", tc.vol...)
	}
	a := find(t, w.MustPage("/v2/leaderboard").Data, "user_id", V("{A}"))
	MustFields(t, "A", a, map[string]string{"user_name": "Alice", "profile_image": "https://img/a.png",
		"x_username": "", "verified": "true"})
	b := find(t, w.MustPage("/v2/leaderboard").Data, "user_id", V("{B}"))
	MustFields(t, "B", b, map[string]string{"user_name": "Brave-Owl", "profile_image": "", "verified": "false"})
}

func TestLeaderboard_UserArm(t *testing.T) {
	w := MustWorld(t)
	w.MustApply(boardsLedger)
	for _, tc := range []struct {
		q    string
		want map[string]string
	}{
		{"user={A}", map[string]string{"user_id": V("{A}"), "pnl": "45", "volume": "100", "rank_pnl": "3",
			"rank_volume": "1", "user_name": "Alice", "verified": "true", "x_username": "", "profile_image": "https://img/a.png"}},
		// The user arm ignores sort_by, limit and cursor (even invalid ones).
		{"user={A}&time_period=all&sort_by=NOPE&limit=99999&cursor=junk", map[string]string{"pnl": "45", "volume": "200",
			"rank_pnl": "2", "rank_volume": "3"}},
		{"user={D}", map[string]string{"pnl": "80", "volume": "0", "rank_pnl": "1", "rank_volume": "null"}},
		{"user={W5}", map[string]string{"user_id": V("{W5}"), "pnl": "0", "volume": "0", "rank_pnl": "null",
			"rank_volume": "null", "user_name": "Eve"}},
		{"user={C}&category=sports", map[string]string{"pnl": "15", "volume": "50", "rank_pnl": "2", "rank_volume": "1"}},
		{"user=" + upper(V("{B}")) + "&time_period=week", map[string]string{"user_id": V("{B}"), "pnl": "40", "rank_volume": "1"}},
	} {
		MustFields(t, tc.q, w.Data("/v2/leaderboard?"+tc.q), tc.want)
	}
	r := w.MustGet("/v2/leaderboard?user={W6}", nil)
	if got := string(r.Body); got != "{\"data\":null}\n" {
		t.Fatalf("unknown wallet: %s", got)
	}
	// The user arm still validates the window and the user.
	w.MustError("/v2/leaderboard?user={A}&time_period=year", 400, "invalid_request", "time_period", "time_period must be one of day, week, month, all")
	w.MustError("/v2/leaderboard?user=0x12", 400, "invalid_request", "user", "invalid user address")
	w.MustError("/v2/leaderboard?user=0x4d97dcd97ec945f40cf65f87097ace5ea0476045", 400, "invalid_request", "user", "known protocol contract")
}

func upper(addr string) string { return "0x" + fmt.Sprintf("%X", mustHex(addr[2:])) }

func mustHex(s string) []byte {
	n, ok := new(big.Int).SetString(s, 16)
	if !ok {
		panic(s)
	}
	b := n.Bytes()
	return append(make([]byte, len(s)/2-len(b)), b...)
}

// A wallet's leaderboard volume is the sum of its fills in the window, as
// /v2/user-volume and /v2/trades (both roles) report them.
func TestLeaderboard_VolumeMatchesTradesAndUserVolume(t *testing.T) {
	w := MustWorld(t)
	w.MustApply(boardsLedger)
	for _, win := range []struct {
		period string
		start  int64
	}{{"day", dayStart}, {"week", weekStart}, {"month", monthStart}, {"all", 1}} {
		rows := w.MustWalk("/v2/leaderboard?sort_by=VOLUME&limit=1&time_period="+win.period, "")
		if len(rows) < 3 {
			t.Fatalf("%s: %d rows", win.period, len(rows))
		}
		for _, r := range rows {
			user := str(r["user_id"])
			uv := w.Data(fmt.Sprintf("/v2/user-volume?user=%s&start=%d", user, win.start))
			if str(uv["volume"]) != str(r["volume"]) {
				t.Errorf("%s %s: board volume %s, user-volume %s", win.period, user, str(r["volume"]), str(uv["volume"]))
			}
			fills := w.MustWalk(fmt.Sprintf("/v2/trades?user=%s&taker_only=false&start=%d&limit=1", user, win.start),
				fmt.Sprintf("user=%s&taker_only=false&start=%d", user, win.start))
			sum := new(big.Rat)
			for _, f := range fills {
				v, _ := new(big.Rat).SetString(str(f["size"]))
				sum.Add(sum, v)
			}
			if got := sum.FloatString(6); ratText(str(r["volume"])) != got {
				t.Errorf("%s %s: board volume %s, trades sum %s", win.period, user, str(r["volume"]), got)
			}
		}
	}
}

func ratText(s string) string {
	v, _ := new(big.Rat).SetString(s)
	return v.FloatString(6)
}

// Boards are memoised per data generation: an Apply after a read is seen by
// the next read of every board.
func TestBoards_RefreshAfterApply(t *testing.T) {
	w := MustWorld(t)
	w.MustApply(boardsLedger)
	before := map[string]string{}
	paths := []string{"/v2/leaderboard?sort_by=VOLUME", "/v2/builders/leaderboard", "/v2/builders/volume",
		"/v2/biggest-winners?category=politics", "/v2/leaderboard?user={W5}"}
	for _, p := range paths {
		before[p] = string(w.MustGet(p, nil).Body)
	}
	w.MustApply(`
{"kind":"trade","tx_hash":"{H50}","log_index":0,"block_number":50,"timestamp":{T-100},"token_id":"22","maker":"{B}","taker":"{W5}","side":"BUY","price":"0.6","size":"300","builder_code":"{BC2}"}
{"kind":"resolution","condition_id":"{M2}","payouts":["0","1"],"resolved_at":{T-50}}
`)
	for _, p := range paths {
		if after := string(w.MustGet(p, nil).Body); after == before[p] {
			t.Errorf("%s: unchanged after Apply: %s", p, after)
		}
	}
	rows := w.MustWalk("/v2/leaderboard?sort_by=VOLUME", "")
	MustEqualRows(t, "after", rows, "user_id", V("{B}"), V("{W5}"), V("{A}"), V("{C}"))
	MustEqualRows(t, "after", rows, "volume", "350", "300", "100", "50")
	// NO won M2: B's 1000 NO split at 0.5 (300 sold at 0.6: +30; 700 paid
	// 1 for 350) and E's 300 bought at 0.6 (180).
	pol := w.MustPage("/v2/biggest-winners?category=politics").Data
	MustEqualRows(t, "politics", pol, "user_id", V("{B}"), V("{W5}"))
	MustFields(t, "B wins", pol[0], map[string]string{"pnl": "380", "initial_value": "500", "final_value": "880"})
	MustFields(t, "E wins", pol[1], map[string]string{
		"user_id": V("{W5}"), "pnl": "120", "initial_value": "180", "final_value": "300", "position_id": "22"})
}
