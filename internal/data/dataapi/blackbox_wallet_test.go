package dataapi_test

import (
	"encoding/json"
	"os"
	"testing"
	"time"
)

func TestValue_MarksHoldingsToMarket(t *testing.T) {
	w := MustWorld(t)
	w.MustApply(pnlLedger)
	for _, tc := range []struct{ user, q, want string }{
		{"{A}", "", "36"},               // 60 YES at 0.6
		{"{B}", "", "40"},               // 100 NO at 0.4
		{"{C}", "", "24"},               // 40 YES at 0.6
		{"{A}", "&condition={M2}", "0"}, // scoped to a market A never held
		{"{A}", "&conditionId={M1},{M2}", "36"},
		{"{D}", "", "0"}, // unknown wallet: 0, never null
	} {
		v := w.Data("/v2/value?user=" + tc.user + tc.q)
		MustFields(t, tc.user+tc.q, v, map[string]string{"value": tc.want, "proxy_wallet": V(tc.user)})
	}
	w.MustApply(resolveLedger)
	MustFields(t, "resolved", w.Data("/v2/value?user={C}"), map[string]string{"value": "40"}) // redeemable at payout 1
	MustFields(t, "redeemed", w.Data("/v2/value?user={A}"), map[string]string{"value": "0"})
}

func TestValue_RoundedToFourDecimals(t *testing.T) {
	w := MustWorld(t)
	w.MustApply(marketsLedger + `
{"kind":"split","tx_hash":"{H1}","log_index":0,"block_number":10,"timestamp":{T-900},"user":"{B}","condition_id":"{M2}","amount":"10"}
{"kind":"trade","tx_hash":"{H2}","log_index":0,"block_number":11,"timestamp":{T-800},"token_id":"21","maker":"{B}","taker":"{D}","side":"BUY","price":"0.33","size":"1.23456"}
`)
	// 1.23456 × 0.33 = 0.4074048.
	MustFields(t, "value", w.Data("/v2/value?user={D}"), map[string]string{"value": "0.4074"})
}

func TestUserStats_NullForUnknownWallet(t *testing.T) {
	w := MustWorld(t)
	w.MustApply(pnlLedger)
	r := w.MustGet("/v2/user-stats?user={D}", nil)
	if got := string(r.Body); got != "{\"data\":null}\n" && got != `{"data":null}` {
		t.Fatalf("unknown wallet: %s", got)
	}
}

func TestUserStats_CountsMarketsWinsAndProfile(t *testing.T) {
	w := MustWorld(t)
	w.MustApply(pnlLedger + resolveLedger + `
{"kind":"profile","address":"{A}","name":"Alice","pseudonym":"Brave-Owl","profile_image":"https://img/a.png","verified":true,"joined_at":{T-999999},"views":7}
{"kind":"tip","tx_hash":"{H30}","log_index":0,"block_number":2000,"timestamp":{T-100},"from":"{C}","to":"{D}","amount_usdc":"1"}
`)
	st := w.Data("/v2/user-stats?user={A}")
	MustFields(t, "A", st, map[string]string{"proxy_wallet": V("{A}"), "trades": "1", "biggest_win": "43.5",
		"views": "7", "join_date": expand("{T-999999}")})
	pt, ok := st["all_time_pnl"].(map[string]any)
	if !ok {
		t.Fatalf("all_time_pnl: %v", st["all_time_pnl"])
	}
	MustFields(t, "A all-time", pt, map[string]string{"realized_market_pnl": "43.5", "unrealized_pnl": "0",
		"fees": "-1.5", "volume": "140", "volume_usdc": "64", "trade_count": "2"})
	// D only received a tip: known, with zeros.
	MustFields(t, "D", w.Data("/v2/user-stats?user={D}"), map[string]string{"trades": "0", "biggest_win": "0", "views": "0"})
	// The profile reaches the position rows.
	rows := w.MustPage("/v2/positions?user={A}&status=CLOSED").Data
	MustFields(t, "profile", rows[0], map[string]string{"name": "Alice", "profile_image": "https://img/a.png", "verified": "true"})
}

func TestUserVolume_WholeUTCDayWindow(t *testing.T) {
	w := MustWorld(t)
	w.MustApply(pnlLedger)
	// A's two fills happen today (T-4000, T-3000): 140 shares, 64 USDC.
	for _, tc := range []struct{ q, vol, usdc, n string }{
		{"", "140", "64", "2"},
		{"&start={T}", "140", "64", "2"},                  // floored to today's midnight
		{"&start={T}&end={T-43000}", "140", "64", "2"},    // both floor to today
		{"&end={T-86400}", "0", "0", "0"},                 // yesterday and before
		{"&start={T+86400}", "0", "0", "0"},               // tomorrow on
		{"&start={T+86400}&end={T-86400}", "0", "0", "0"}, // inverted: zeros, not an error
	} {
		MustFields(t, tc.q, w.Data("/v2/user-volume?user={A}"+tc.q), map[string]string{"volume": tc.vol, "volume_usdc": tc.usdc, "trade_count": tc.n})
	}
	MustFields(t, "unknown", w.Data("/v2/user-volume?user={D}"), map[string]string{"volume": "0", "volume_usdc": "0", "trade_count": "0"})
	w.MustError("/v2/user-volume?user={A}&end=-5", 400, "invalid_request", "end", "")
}

func TestUserPnL_DenseGridEndsAtNowFloored(t *testing.T) {
	w := MustWorld(t)
	w.MustApply(pnlLedger)
	s := w.Data("/v2/user-pnl?user={A}")
	MustFields(t, "echo", s, map[string]string{"proxy_wallet": V("{A}"), "interval": "1d", "fidelity": "1h", "source_fidelity": "1d"})
	pts := s["points"].([]any)
	if len(pts) != 24 {
		t.Fatalf("1d at 1h: %d points", len(pts))
	}
	for i, p := range pts {
		ts := int64(p.(map[string]any)["timestamp"].(float64))
		if want := now - int64(23-i)*3600; ts != want {
			t.Fatalf("point %d at %d, want %d", i, ts, want)
		}
	}
	MustFields(t, "first", pts[0].(map[string]any), map[string]string{"realized_market_pnl": "0", "volume": "0"})
	MustFields(t, "last", pts[23].(map[string]any), map[string]string{"realized_market_pnl": "7.5", "volume": "140", "trade_count": "2"})
	s = w.Data("/v2/user-pnl?user={A}&interval=1w&fidelity=1d")
	pts = s["points"].([]any)
	if len(pts) != 7 || int64(pts[6].(map[string]any)["timestamp"].(float64)) != now-now%day {
		t.Fatalf("1w at 1d: %d points, last %v", len(pts), pts[len(pts)-1])
	}
}

func TestApprovals_FullCatalogInCanonicalOrder(t *testing.T) {
	w := MustWorld(t)
	w.MustApply(pnlLedger)
	raw, err := os.ReadFile(fixtureDir + "/approvals.json")
	if err != nil {
		t.Fatal(err)
	}
	var fx struct {
		Data struct {
			Contracts []map[string]any `json:"contracts"`
		} `json:"data"`
	}
	if err := json.Unmarshal(raw, &fx); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		user   string
		traded bool
	}{{"{A}", true}, {"{D}", false}} {
		a := w.Data("/v2/approvals?user=" + tc.user)
		MustFields(t, tc.user, a, map[string]string{"address": V(tc.user), "chain_id": "137",
			"checked_at": Now.Format(time.RFC3339)})
		cs := a["contracts"].([]any)
		if len(cs) != len(fx.Data.Contracts) {
			t.Fatalf("%d contracts, fixture has %d", len(cs), len(fx.Data.Contracts))
		}
		for i, c := range cs {
			row, want := c.(map[string]any), fx.Data.Contracts[i]
			for _, k := range []string{"id", "feature", "token", "spender", "standard"} {
				if row[k] != want[k] {
					t.Errorf("row %d %s: %v, fixture %v", i, k, row[k], want[k])
				}
			}
			_, hasAmount := row["amount"]
			if hasAmount != (row["standard"] == "ERC20") {
				t.Errorf("row %d (%v): amount present=%v", i, row["standard"], hasAmount)
			}
			granted := tc.traded && (row["feature"] == "trading" || row["feature"] == "auto-redeem")
			if row["approved"] != granted {
				t.Errorf("%s row %s: approved %v", tc.user, row["id"], row["approved"])
			}
			if hasAmount && (row["amount"] == "max") != granted {
				t.Errorf("%s row %s: amount %v", tc.user, row["id"], row["amount"])
			}
		}
	}
}
