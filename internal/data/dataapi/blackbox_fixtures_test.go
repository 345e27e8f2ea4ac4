package dataapi_test

import (
	"encoding/json"
	"os"
	"testing"
)

// fixtureDir holds copies of the live production captures
// (testdata/data-v2/PROVENANCE.md says when and from where).
const fixtureDir = "testdata/data-v2"

// nullable are the fields the contract allows to be null; a null on either
// side matches any type for them.
var nullable = map[string]bool{"resolved_at": true, "first_entry_at_micros": true, "amount_usdc": true,
	"payout_usdc": true, "join_date": true, "all_time_pnl": true, "leg_resolved_at": true, "line": true,
	"next_cursor": true,
	// UserPnlPoint's optional atoms (§3.2): null when the source lacks them.
	"unrealized_pnl": true, "fees_refunded": true, "maker_rebate": true, "taker_rebate": true,
	"reward_income": true, "yield_income": true, "referral_income": true, "deposits": true, "withdrawals": true,
	"wallet_income": true, "position_pnl": true, "settled_pnl": true, "economic_pnl": true, "trade_pnl": true,
	"sponsored_income": true, "fees": true, "fees_paid": true, "cashflow_net": true}

func jsonType(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case float64:
		return "number"
	case string:
		return "string"
	case bool:
		return "bool"
	case []any:
		return "array"
	case map[string]any:
		return "object"
	}
	return "?"
}

// mustSameShape checks every key of want is in got with the same JSON type,
// recursing into objects and the first element of arrays.
func mustSameShape(t *testing.T, path string, got, want map[string]any) {
	t.Helper()
	for k, wv := range want {
		gv, ok := got[k]
		if !ok {
			t.Errorf("%s: missing key %q", path, k)
			continue
		}
		gt, wt := jsonType(gv), jsonType(wv)
		if gt != wt && !(nullable[k] && (gt == "null" || wt == "null")) {
			t.Errorf("%s.%s: type %s, fixture %s", path, k, gt, wt)
			continue
		}
		switch wv := wv.(type) {
		case map[string]any:
			mustSameShape(t, path+"."+k, gv.(map[string]any), wv)
		case []any:
			ga := gv.([]any)
			if len(wv) > 0 && len(ga) > 0 {
				if wo, ok := wv[0].(map[string]any); ok {
					mustSameShape(t, path+"."+k+"[0]", ga[0].(map[string]any), wo)
				}
			}
		}
	}
}

func loadFixture(t *testing.T, name string) map[string]any {
	t.Helper()
	raw, err := os.ReadFile(fixtureDir + "/" + name + ".json")
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(raw, &m); err != nil {
		t.Fatal(err)
	}
	return m
}

func TestFixtures_RowFieldSetsMatchProduction(t *testing.T) {
	w := MustWorld(t)
	w.MustApply(feedLedger)
	w.MustApply(`
{"kind":"profile","address":"{A}","name":"Alice","pseudonym":"Brave-Owl","profile_image":"https://img/a.png","joined_at":{T-999999},"views":7}
{"kind":"combo_market","combo_condition_id":"{X1}","question":"Rain and BTC?","outcomes":["Yes","No"],"token_ids":["9001","9002"],"legs":[{"condition_id":"{M1}","outcome_index":0},{"condition_id":"{M2}","outcome_index":0}]}
{"kind":"combo_trade","tx_hash":"{H40}","log_index":0,"block_number":3000,"timestamp":{T-1000},"user":"{A}","combo_condition_id":"{X1}","outcome_index":0,"side":"BUY","price":"0.2","size":"100","fee_usdc":"1"}
{"kind":"combo_activity","tx_hash":"{H41}","log_index":0,"block_number":3001,"timestamp":{T-900},"user":"{A}","combo_condition_id":"{X1}","outcome_index":0,"type":"SPLIT","size":"10","amount_usdc":"10"}
{"kind":"split","tx_hash":"{H50}","log_index":0,"block_number":3002,"timestamp":{T-800},"user":"{C}","condition_id":"{M1}","amount":"5"}
{"kind":"merge","tx_hash":"{H51}","log_index":0,"block_number":3003,"timestamp":{T-700},"user":"{C}","condition_id":"{M1}","amount":"5"}
`)
	for _, tc := range []struct{ fixture, path string }{
		{"positions", "/v2/positions?user={A}"},
		{"positions_closed", "/v2/positions?user={C}&status=CLOSED"},
		{"trades", "/v2/trades?start=1"},
		{"activity", "/v2/activity?user={A}"},
		{"combo_positions", "/v2/positions/combos?user={A}"},
		{"combo_activity", "/v2/activity/combos?user={A}"},
		{"value", "/v2/value?user={A}"},
		{"user_stats", "/v2/user-stats?user={A}"},
		{"user_volume", "/v2/user-volume?user={A}"},
		{"user_pnl", "/v2/user-pnl?user={A}&interval=1w&fidelity=1d"},
		{"approvals", "/v2/approvals?user={A}"},
	} {
		fx := loadFixture(t, tc.fixture)
		var got map[string]any
		w.MustGet(tc.path, &got)
		mustSameShape(t, tc.fixture, got, fx)
		if rows, ok := got["data"].([]any); ok && len(rows) == 0 {
			t.Errorf("%s: no rows to compare", tc.path)
		}
		if _, paged := fx["pagination"]; paged {
			if _, ok := got["pagination"]; !ok {
				t.Errorf("%s: no pagination", tc.path)
			}
		} else if _, ok := got["pagination"]; ok {
			t.Errorf("%s: pagination on an envelope route", tc.path)
		}
	}
}

func TestSentinel_OutcomeIndex999WhenUnlabeled(t *testing.T) {
	w := MustWorld(t)
	// A combo whose second leg names a market the ledger never declared: that
	// leg's outcome cannot be labeled.
	w.MustApply(marketsLedger + `
{"kind":"combo_market","combo_condition_id":"{X1}","question":"Rain and something?","outcomes":["Yes","No"],"token_ids":["9001","9002"],"legs":[{"condition_id":"{M1}","outcome_index":0},{"condition_id":"0x00000000000000000000000000000000000000000000000000000000000000ff","outcome_index":1}]}
{"kind":"combo_trade","tx_hash":"{H40}","log_index":0,"block_number":3000,"timestamp":{T-1000},"user":"{A}","combo_condition_id":"{X1}","outcome_index":0,"side":"BUY","price":"0.2","size":"100"}
`)
	for _, path := range []string{"/v2/positions/combos?user={A}", "/v2/activity/combos?user={A}&limit=5"} {
		rows := w.MustPage(path).Data
		if len(rows) == 0 {
			if path == "/v2/activity/combos?user={A}&limit=5" {
				continue // combo trades are not lifecycle rows
			}
			t.Fatalf("%s: no rows", path)
		}
		legs := rows[0]["legs"].([]any)
		MustFields(t, path+" leg 0", legs[0].(map[string]any), map[string]string{"leg_outcome_index": "0", "leg_outcome_label": "Yes"})
		MustFields(t, path+" leg 1", legs[1].(map[string]any), map[string]string{"leg_outcome_index": "999"})
	}
}
