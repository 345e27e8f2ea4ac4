package dataapi_test

import (
	"fmt"
	"math/big"
	"sync"
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

// Readers racing Applies always get a whole board of some generation, and
// the board after the last Apply is exact (run under -race).
func TestBoards_ConcurrentReadsDuringApply(t *testing.T) {
	w := MustWorld(t)
	w.MustApply(boardsLedger)
	stop := make(chan struct{})
	errs := make(chan error, 8)
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			paths := []string{"/v2/leaderboard?sort_by=VOLUME", "/v2/builders/leaderboard?time_period=all",
				"/v2/biggest-winners", "/v2/builders/volume"}
			for n := 0; ; n++ {
				select {
				case <-stop:
					return
				default:
				}
				res, err := w.Srv.Client().Get(w.Srv.URL + expand(paths[(i+n)%len(paths)]))
				if err != nil {
					errs <- err
					return
				}
				res.Body.Close()
				if res.StatusCode != 200 {
					errs <- fmt.Errorf("status %d", res.StatusCode)
					return
				}
			}
		}()
	}
	for i := range 5 {
		w.MustApply(fmt.Sprintf(`{"kind":"trade","tx_hash":"{H%d}","log_index":0,"block_number":%d,"timestamp":{T-100},"token_id":"21","maker":"{B}","taker":"{W5}","side":"BUY","price":"0.5","size":"10","builder_code":"{BC2}"}`,
			60+i, 60+i))
	}
	close(stop)
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	rows := w.MustWalk("/v2/leaderboard?sort_by=VOLUME", "")
	MustEqualRows(t, "after", rows, "user_id", V("{A}"), V("{B}"), V("{C}"), V("{W5}"))
	MustEqualRows(t, "after", rows, "volume", "100", "100", "50", "50")
	MustEqualRows(t, "after", rows, "rank", "1", "1", "3", "3")
}

// The all-time board's pnl is the wallet's lifetime realized PnL, as
// /v2/user-stats reports it (all_time_pnl.realized_pnl).
func TestLeaderboard_AllTimeMatchesUserStats(t *testing.T) {
	w := MustWorld(t)
	w.MustApply(boardsLedger)
	rows := w.MustWalk("/v2/leaderboard?time_period=all&limit=2", "")
	if len(rows) != 4 {
		t.Fatalf("%d rows", len(rows))
	}
	for _, r := range rows {
		st := w.Data("/v2/user-stats?user=" + str(r["user_id"]))
		pt, ok := st["all_time_pnl"].(map[string]any)
		if !ok {
			t.Fatalf("%s: all_time_pnl %v", str(r["user_id"]), st["all_time_pnl"])
		}
		if str(pt["realized_pnl"]) != str(r["pnl"]) {
			t.Errorf("%s: board pnl %s, user-stats realized_pnl %s", str(r["user_id"]), str(r["pnl"]), str(pt["realized_pnl"]))
		}
	}
}

// A wallet idle since before the window is re-marked at the window's start:
// only the marks' moves inside the window count. W7 and W8 last traded M4
// 20 days ago (W7 split 100 and sold 10 YES to W8 at 0.8); M4 resolved YES 3
// days ago. Day: nothing moved, no rows. Week: YES 0.8 → 1, NO 0.2 → 0, so W7
// (90 YES, 100 NO) −2 and W8 (10 YES) +2. Month: their fills are inside it.
func TestLeaderboard_IdleWalletsRemarkedAtWindowStart(t *testing.T) {
	w := MustWorld(t)
	w.MustApply(`
{"kind":"market","condition_id":"{M4}","question":"Will the film win?","slug":"film","event_id":400,"event_slug":"film","event_title":"Film","category":"culture","outcomes":["Yes","No"],"token_ids":["41","42"],"end_date":"2026-09-12T00:00:00Z"}
{"kind":"split","tx_hash":"{H70}","log_index":0,"block_number":1,"timestamp":{T-1728000},"user":"{W7}","condition_id":"{M4}","amount":"100"}
{"kind":"trade","tx_hash":"{H71}","log_index":0,"block_number":2,"timestamp":{T-1727000},"token_id":"41","maker":"{W7}","taker":"{W8}","side":"BUY","price":"0.8","size":"10"}
`)
	w.MustApply(boardsLedger + `
{"kind":"resolution","condition_id":"{M4}","payouts":["1","0"],"resolved_at":{T-259200}}
`)
	for _, tc := range []struct {
		q         string
		pnl, rank string // "" = not on the board
		w8pnl     string
	}{
		{"time_period=day", "", "", ""},
		{"time_period=week", "-2", "5", "2"},
		{"time_period=month", "-2", "5", "2"},
	} {
		rows := w.MustWalk("/v2/leaderboard?"+tc.q, "")
		var r7, r8 map[string]any
		for _, r := range rows {
			switch str(r["user_id"]) {
			case V("{W7}"):
				r7 = r
			case V("{W8}"):
				r8 = r
			}
		}
		if tc.pnl == "" {
			if r7 != nil || r8 != nil {
				t.Errorf("%s: idle wallets on the board: %v %v", tc.q, r7, r8)
			}
			continue
		}
		if r7 == nil || r8 == nil {
			t.Fatalf("%s: W7 %v, W8 %v", tc.q, r7, r8)
		}
		MustFields(t, tc.q+" W7", r7, map[string]string{"pnl": tc.pnl, "rank": tc.rank})
		MustFields(t, tc.q+" W8", r8, map[string]string{"pnl": tc.w8pnl})
	}
	// The week volume of an idle wallet is 0; the month's counts its fill.
	MustFields(t, "week W7", w.Data("/v2/leaderboard?user={W7}&time_period=week"), map[string]string{"volume": "0"})
	MustFields(t, "month W7", w.Data("/v2/leaderboard?user={W7}&time_period=month"), map[string]string{"volume": "10", "pnl": "-2"})
}

func init() {
	vars["{W7}"] = "0x00000000000000000000000000000000000000a7"
	vars["{W8}"] = "0x00000000000000000000000000000000000000a8"
}
