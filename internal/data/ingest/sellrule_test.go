package ingest_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
)

// The ledger's sell rule, decided once (docs/ledger-events.md "Position
// accounting", docs/store.md "Derivation rules"): disposing of more shares
// than the wallet holds is invalid. POST /admin/ledger answers 400 naming
// the event, and nothing of the batch is applied.
func TestLedgerRule_DisposingOfMoreThanTheHoldingIsRefused(t *testing.T) {
	v := newVenue(t)
	cond := "0x" + strings.Repeat("ab", 32)
	if st, body := post(t, v.admin.URL+"/admin/ledger", `{"kind":"market","condition_id":"`+cond+`","question":"Q?","slug":"q","event_id":9,"event_slug":"e","event_title":"E","outcomes":["Yes","No"],"token_ids":["11","12"],"end_date":"2026-12-31T00:00:00Z"}`+"\n"); st != 200 {
		t.Fatalf("market: %d %s", st, body)
	}
	n := 0
	env := func() string {
		n++
		return fmt.Sprintf(`"tx_hash":"0x%064x","log_index":0,"block_number":%d,"timestamp":%d`, n, 100+n, venueNow.Unix()-1000+int64(n))
	}
	trade := func(maker, taker, side, size string) string {
		return `{"kind":"trade",` + env() + `,"token_id":"11","maker":"` + maker + `","taker":"` + taker + `","side":"` + side + `","price":"0.5","size":"` + size + `"}`
	}
	split := func(user, amt string) string {
		return `{"kind":"split",` + env() + `,"user":"` + user + `","condition_id":"` + cond + `","amount":"` + amt + `"}`
	}
	merge := func(user, amt string) string {
		return `{"kind":"merge",` + env() + `,"user":"` + user + `","condition_id":"` + cond + `","amount":"` + amt + `"}`
	}
	for _, c := range []struct {
		name  string
		batch []string
		event int    // 0: accepted
		msg   string // in the 400's error
	}{
		{"maker sells nothing (taker BUY)", []string{trade(impB, impA, "BUY", "10")}, 1,
			"seller " + impB + " holds 0 of token 11 and cannot dispose of 10"},
		{"taker sells nothing (taker SELL)", []string{trade(impB, impA, "SELL", "10")}, 1,
			"seller " + impA + " holds 0 of token 11 and cannot dispose of 10"},
		{"merge of nothing", []string{merge(impA, "1")}, 1, impA + " holds 0 of token 11 and cannot dispose of 1"},
		{"a refused event fails its whole batch", []string{split(impB, "10"), trade(impB, impA, "BUY", "10.000001")}, 2,
			"holds 10 of token 11 and cannot dispose of 10.000001"},
		{"split, then sell exactly the holding", []string{split(impB, "10"), trade(impB, impA, "BUY", "10")}, 0, ""},
		{"the holding is spent", []string{trade(impB, impA, "BUY", "0.000001")}, 1, "holds 0 of token 11"},
		{"merge what is held", []string{merge(impB, "10")}, 1, "holds 0 of token 11"}, // B sold its YES
	} {
		st, body := post(t, v.admin.URL+"/admin/ledger", strings.Join(c.batch, "\n")+"\n")
		if c.event == 0 {
			if st != 200 {
				t.Errorf("%s: %d %s", c.name, st, body)
			}
			continue
		}
		var e struct {
			Error string `json:"error"`
			Code  string `json:"code"`
			Event int    `json:"event"`
		}
		if st != 400 || json.Unmarshal([]byte(body), &e) != nil || e.Event != c.event || e.Code != "invalid_request" ||
			!strings.Contains(e.Error, c.msg) {
			t.Errorf("%s: %d %s, want 400 at event %d containing %q", c.name, st, body, c.event, c.msg)
		}
	}
	// Only the accepted batch is visible: one fill of 10, B's YES spent, A holding 10.
	var trades struct {
		Data []map[string]any `json:"data"`
	}
	getJSON(t, v.data.URL+"/v2/trades?condition="+cond, &trades)
	if len(trades.Data) != 1 || trades.Data[0]["size"] != 10.0 {
		t.Errorf("trades after refusals: %v", trades.Data)
	}
	var pos struct {
		Data []map[string]any `json:"data"`
	}
	getJSON(t, v.data.URL+"/v2/positions?user="+impA, &pos)
	if len(pos.Data) != 1 || pos.Data[0]["current_size"] != 10.0 {
		t.Errorf("A's positions: %v", pos.Data)
	}
}

// The same rule for conversions (NO of each listed market) and combos
// (SELL, MERGE, REDEEM and the position-neutral types).
func TestLedgerRule_ConversionAndComboDisposalsNeedTheHolding(t *testing.T) {
	v := newVenue(t)
	c1, c2 := "0x"+strings.Repeat("c1", 32), "0x"+strings.Repeat("c2", 32)
	x := "0x03" + strings.Repeat("0", 59) + "1"
	setup := `{"kind":"market","condition_id":"` + c1 + `","question":"A?","slug":"a","event_id":9,"event_slug":"e","event_title":"E","outcomes":["Yes","No"],"token_ids":["11","12"],"neg_risk":true,"end_date":"2026-12-31T00:00:00Z"}
{"kind":"market","condition_id":"` + c2 + `","question":"B?","slug":"b","event_id":9,"event_slug":"e","event_title":"E","outcomes":["Yes","No"],"token_ids":["21","22"],"neg_risk":true,"end_date":"2026-12-31T00:00:00Z"}
{"kind":"combo_market","combo_condition_id":"` + x + `","outcomes":["Yes","No"],"token_ids":["9001","9002"],"legs":[{"condition_id":"` + c1 + `","outcome_index":0},{"condition_id":"` + c2 + `","outcome_index":0}]}
`
	if st, body := post(t, v.admin.URL+"/admin/ledger", setup); st != 200 {
		t.Fatalf("setup: %d %s", st, body)
	}
	n := 0
	env := func() string {
		n++
		return fmt.Sprintf(`"tx_hash":"0x%064x","log_index":0,"block_number":%d,"timestamp":%d,"user":"%s"`, n, 100+n, venueNow.Unix()-1000+int64(n), impA)
	}
	combo := func(typ, size string) string {
		return `{"kind":"combo_activity",` + env() + `,"combo_condition_id":"` + x + `","type":"` + typ + `","size":"` + size + `"}`
	}
	for _, c := range []struct {
		name, line, msg string
	}{
		{"conversion of NO not held", `{"kind":"conversion",` + env() + `,"condition_ids":["` + c1 + `"],"amount":"5","amount_usdc":"0"}`,
			"holds 0 of NO token 12 and cannot dispose of 5"},
		{"combo SELL", `{"kind":"combo_trade",` + env() + `,"combo_condition_id":"` + x + `","side":"SELL","price":"0.5","size":"3"}`,
			"holds 0 of combo token 9001 and cannot dispose of 3"},
		{"combo MERGE", combo("MERGE", "2"), "holds 0 of combo token 9001"},
		{"combo REDEEM", combo("REDEEM", "2"), "holds 0 of combo token 9001"},
		{"combo WRAP", combo("WRAP", "2"), "holds 0 of combo token 9001"},
	} {
		st, body := post(t, v.admin.URL+"/admin/ledger", c.line+"\n")
		if st != 400 || !strings.Contains(body, c.msg) {
			t.Errorf("%s: %d %s, want 400 containing %q", c.name, st, body, c.msg)
		}
	}
	// Held, the same disposals are applied.
	ok := []string{
		`{"kind":"split",` + env() + `,"condition_id":"` + c1 + `","amount":"5"}`,
		`{"kind":"conversion",` + env() + `,"condition_ids":["` + c1 + `"],"amount":"5","amount_usdc":"0"}`,
		combo("SPLIT", "10"),
		`{"kind":"combo_trade",` + env() + `,"combo_condition_id":"` + x + `","side":"SELL","price":"0.5","size":"3"}`,
		combo("MERGE", "2"), combo("WRAP", "5"),
	}
	if st, body := post(t, v.admin.URL+"/admin/ledger", strings.Join(ok, "\n")+"\n"); st != 200 {
		t.Errorf("held disposals: %d %s", st, body)
	}
}
