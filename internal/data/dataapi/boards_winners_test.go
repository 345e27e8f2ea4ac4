package dataapi_test

import (
	"math/big"
	"testing"
	"time"
)

func TestBiggestWinners_OneRowPerWinningPosition(t *testing.T) {
	w := MustWorld(t)
	w.MustApply(boardsLedger)
	rows := w.MustWalk("/v2/biggest-winners", "")
	// B's M1 YES (900 held at payout 1: −10 realized + 900 − 450), D's combo,
	// A's M1 YES (bought 100 at 0.4 = 40; sold 50 for 35, redeemed 50 for 50),
	// C's M1 YES (50 at 0.7, unredeemed), A's M3 YES (split: 10 at 0.5).
	// Losing positions (B's and C's M1 NO, A's M3 NO) have no row.
	MustEqualRows(t, "overall", rows, "win_rank", "1", "2", "3", "4", "5")
	MustEqualRows(t, "overall", rows, "user_id", V("{B}"), V("{D}"), V("{A}"), V("{C}"), V("{A}"))
	MustEqualRows(t, "overall", rows, "kind", "market", "combo", "market", "market", "market")
	MustEqualRows(t, "overall", rows, "pnl", "440", "80", "45", "15", "5")
	MustEqualRows(t, "overall", rows, "initial_value", "500", "20", "40", "35", "5")
	MustEqualRows(t, "overall", rows, "final_value", "940", "100", "85", "50", "10")
	MustEqualRows(t, "overall", rows, "position_id", "11", "9001", "11", "11", "31")
	MustFields(t, "market row", rows[2], map[string]string{"condition_id": V("{M1}"), "event_id": "100",
		"event_slug": "lions-vs-hawks", "event_title": "Lions vs. Hawks", "resolved_at": expand("{T-1800}"),
		"user_name": "Alice", "profile_image": "https://img/a.png"})
	MustFields(t, "combo row", rows[1], map[string]string{"condition_id": V("{X1}"), "event_id": "0",
		"event_slug": "", "event_title": "Will Lions win? / Will Team Liquid win?", "resolved_at": expand("{T-1740}"),
		"user_name": ""})
	if _, ok := rows[1]["event_id"].(float64); !ok {
		t.Errorf("event_id must be a JSON integer: %v", rows[1]["event_id"])
	}
	for _, tc := range []struct {
		q     string
		users []string
		pnl   []string
	}{
		{"?category=sports", []string{"{B}", "{A}", "{C}"}, []string{"440", "45", "15"}},
		{"?category=ESPORTS&time_period=week", []string{"{A}"}, []string{"5"}},
		{"?category=combos&time_period=all", []string{"{D}"}, []string{"80"}},
		{"?category=politics", nil, nil},
		{"?category=overall&time_period=month", []string{"{B}", "{D}", "{A}", "{C}", "{A}"}, []string{"440", "80", "45", "15", "5"}},
	} {
		rows := w.MustWalk("/v2/biggest-winners"+tc.q+"&limit=2", "")
		users := make([]string, len(tc.users))
		for i, u := range tc.users {
			users[i] = V(u)
		}
		MustEqualRows(t, tc.q, rows, "user_id", users...)
		MustEqualRows(t, tc.q, rows, "pnl", tc.pnl...)
		for i, r := range rows { // win_rank is a row number within the list
			if str(r["win_rank"]) != str(float64(i+1)) {
				t.Errorf("%s: row %d win_rank %v", tc.q, i, r["win_rank"])
			}
		}
	}
}

// The window is on resolved_at: two days on, the day board is empty and
// the week board still has every row.
func TestBiggestWinners_WindowOnResolvedAt(t *testing.T) {
	w := MustWorld(t)
	w.MustApply(boardsLedger)
	w.Clock.Advance(48 * time.Hour)
	if rows := w.MustWalk("/v2/biggest-winners?time_period=day", ""); len(rows) != 0 {
		t.Fatalf("day: %d rows", len(rows))
	}
	if rows := w.MustWalk("/v2/biggest-winners?time_period=week", ""); len(rows) != 5 {
		t.Fatalf("week: %d rows", len(rows))
	}
}

// A winner row's pnl is its final minus initial value, and the winning
// position's total PnL as /v2/positions reports it.
func TestBiggestWinners_PnLIsFinalMinusInitial(t *testing.T) {
	w := MustWorld(t)
	w.MustApply(boardsLedger)
	for _, r := range w.MustWalk("/v2/biggest-winners?time_period=all", "") {
		pnl, _ := new(big.Rat).SetString(str(r["pnl"]))
		fin, _ := new(big.Rat).SetString(str(r["final_value"]))
		ini, _ := new(big.Rat).SetString(str(r["initial_value"]))
		if new(big.Rat).Sub(fin, ini).Cmp(pnl) != 0 || pnl.Sign() <= 0 {
			t.Errorf("row %v: pnl %s != final %s − initial %s", r["win_rank"], pnl, fin, ini)
		}
		if r["kind"] != "market" {
			continue
		}
		// Held positions are served OPEN (REDEEMABLE); redeemed ones CLOSED.
		var pos map[string]any
		for _, status := range []string{"OPEN", "CLOSED"} {
			for _, p := range w.MustWalk("/v2/positions?status="+status+"&user="+str(r["user_id"]), "user="+str(r["user_id"])) {
				if p["token_id"] == r["position_id"] {
					pos = p
				}
			}
		}
		if pos == nil {
			t.Fatalf("row %v: no position %v", r["win_rank"], r["position_id"])
		}
		if str(pos["total_pnl"]) != str(r["pnl"]) {
			t.Errorf("row %v: pnl %s, position total_pnl %s", r["win_rank"], str(r["pnl"]), str(pos["total_pnl"]))
		}
	}
}
