package dataapi_test

import (
	"archive/zip"
	"bytes"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"sort"
	"strings"
	"testing"
	"time"
)

func rfc(ts int64) string { return time.Unix(ts, 0).UTC().Format(time.RFC3339) }

// compactJSON re-encodes b without spaces for exact comparisons.
func compactJSON(t *testing.T, b []byte) string {
	t.Helper()
	var buf bytes.Buffer
	if err := json.Compact(&buf, b); err != nil {
		t.Fatalf("%v in %s", err, b)
	}
	return buf.String()
}

func TestResolutions(t *testing.T) {
	h := newMHarness(t, handEvs)
	c1, c2 := mcond(1), mcond(2)
	resolved := `{"condition_id":"` + c2 + `","status":"resolved","extended_review":false,"was_disputed":false,` +
		`"new_version_q":false,"transaction_hash":"","log_index":"","last_update_timestamp":"` + rfc(mT0+500) +
		`","payouts":[1000000,0],"resolution_source":"reported","was_arbitrated":false,"resolved_block":80000007,` +
		`"resolved_at":"` + rfc(mT0+500) + `"}`
	pending := `{"question_id":"` + c1 + `","condition_id":"` + c1 + `","status":"initialized","extended_review":false,` +
		`"was_disputed":false,"new_version_q":false,"proposed_price":"69","reproposed_price":"69","price":"69",` +
		`"transaction_hash":"","log_index":"","last_update_timestamp":"` + fmt.Sprint(mT0+200) +
		`","expected_settlement_time":"2026-12-31T00:00:00Z","settlement_time_basis":"proposal_expiration"}`
	byQuestion := `{"question_id":"` + c2 + `","status":"resolved","extended_review":false,"was_disputed":false,` +
		`"new_version_q":false,"proposed_price":"1000000000000000000","reproposed_price":"69",` +
		`"price":"1000000000000000000","transaction_hash":"","log_index":"","last_update_timestamp":"` +
		fmt.Sprint(mT0+500) + `"}`
	cases := []struct{ query, want string }{
		{"condition=" + c2, `{"data":[` + resolved + `]}`},
		{"condition=" + c1, `{"data":[` + pending + `]}`},
		{"conditionId=" + c2 + "," + c1 + "," + mcond(99), `{"data":[` + resolved + `,` + pending + `]}`},
		{"event_id=100", `{"data":[` + pending + `,` + resolved + `]}`},
		{"question_id=" + c2, `{"data":[` + byQuestion + `]}`},
		{"condition=" + mcond(99), `{"data":[]}`},
		{"event_id=999", `{"data":[]}`},
		{"question_id=" + mcond(99), `{"data":[]}`},
	}
	for _, c := range cases {
		code, body := h.get("/v2/resolutions?" + c.query)
		if code != 200 || compactJSON(t, body) != c.want {
			t.Errorf("%s:\n got %d %s\nwant %s", c.query, code, body, c.want)
		}
	}
	exactlyOne := "provide exactly one of 'question_id', 'condition', or 'event_id'"
	for q, msg := range map[string]string{
		"":                                  exactlyOne,
		"condition=":                        exactlyOne,
		"event_id=1&condition=" + c1:        exactlyOne,
		"question_id=" + c1 + "&event_id=1": exactlyOne,
		"question_id=0x1":                   "invalid question id: 0x1",
		"condition=0x1":                     "invalid condition id: 0x1",
		"event_id=abc":                      "invalid event id: abc",
		"event_id=" + strings.Repeat("1,", 20) + "2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,21": "at most 20 distinct values are allowed in 'event_id' (got 21)",
		"condition=" + strings.Repeat(c1+",", 1) + mcond(5) + "&offset=1":                              "",
	} {
		if e := h.bad("/v2/resolutions?" + q); msg != "" && e.Error != msg {
			t.Errorf("%q: %s", q, e.Error)
		}
	}
}

func TestTokens(t *testing.T) {
	h := newMHarness(t, handEvs)
	row11 := `{"token_id":"11","condition_id":"` + mcond(1) + `","structural_condition_id":null,"module":"v1_ctf",` +
		`"outcome_index":0,"clob_index":0,"outcome":"Yes","opposite_token_id":"12","resolved":false,"final_price":null,` +
		`"title":"Market 1?","market_slug":"market-1","closed":false,"neg_risk":false,"neg_risk_market_id":null,` +
		`"question_index":null,"event_id":100,"event_slug":"event-100"}`
	code, body := h.get("/v2/tokens?token_id=11")
	if code != 200 || compactJSON(t, body) != `{"data":[`+row11+`]}` {
		t.Errorf("token 11:\n got %s\nwant %s", body, row11)
	}
	type tok struct {
		TokenID    string   `json:"token_id"`
		Opposite   *string  `json:"opposite_token_id"`
		Resolved   bool     `json:"resolved"`
		FinalPrice *float64 `json:"final_price"`
	}
	list := func(q string) string {
		var p struct{ Data []tok }
		h.ok("/v2/tokens?"+q, &p)
		var out []string
		for _, r := range p.Data {
			s := r.TokenID
			if r.Opposite != nil {
				s += "/" + *r.Opposite
			}
			if r.Resolved {
				s += fmt.Sprintf("=%v", *r.FinalPrice)
			}
			out = append(out, s)
		}
		return strings.Join(out, " ")
	}
	for q, want := range map[string]string{
		"token_ids=21,0011,777,21":                  "21/22=1 11/12",
		"tokenId=22":                                "22/21=0",
		"condition=" + mcond(3):                     "31 32 33",
		"condition_id=" + mcond(2) + "," + mcond(1): "21/22=1 22/21=0 11/12 12/11",
		"condition=" + mcond(99):                    "",
		"token_id=777":                              "",
		"condition=0x" + strings.Repeat("ab", 31):   "", // a 62-hex selector is well-formed
	} {
		if got := list(q); got != want {
			t.Errorf("%s: got %q, want %q", q, got, want)
		}
	}
	var ids, conds []string
	for i := 1; i <= 51; i++ {
		ids = append(ids, fmt.Sprint(i))
	}
	for i := 1; i <= 11; i++ {
		conds = append(conds, mcond(i))
	}
	one := "provide exactly one of 'token_id' or 'condition'"
	for q, msg := range map[string]string{
		"":                                      one,
		"token_id=11&condition=" + mcond(1):     one,
		"token_id=" + strings.Join(ids, ","):    "at most 50 distinct values are allowed in 'token_id' (got 51)",
		"condition=" + strings.Join(conds, ","): "at most 10 distinct values are allowed in 'condition' (got 11)",
		"condition=0x12":                        "invalid condition id: 0x12",
		"token_id=x1":                           "invalid token id: x1",
	} {
		if e := h.bad("/v2/tokens?" + q); e.Error != msg {
			t.Errorf("%q: %s", q, e.Error)
		}
	}
}

func TestStatus(t *testing.T) {
	h := newMHarness(t, handEvs)
	code, body := h.get("/v2/status")
	want := `{"data":{"computed_at":"` + rfc(mNow-100) + `","age_seconds":100,"serving":{"lag_seconds":79200,` +
		`"worst":"activity_feed","mechanisms":[{"name":"activity_feed","age_seconds":79200},` +
		`{"name":"custody_balances","age_seconds":79200,"blocks_behind":0},{"name":"pnl","age_seconds":79200,` +
		`"blocks_behind":0}]},"ingestion":{"cursors":1,"network":"polygon","chain_id":137,` +
		`"max_synced_block":80000010,"min_synced_block":80000010,"most_lagged":{"source":"ledger",` +
		`"block":80000010,"behind_max":0},"lagging":[{"source":"ledger","block":80000010,"behind_max":0}]}}}`
	if code != 200 || compactJSON(t, body) != want {
		t.Errorf("status:\n got %d %s\nwant %s", code, body, want)
	}
	empty := newMHarness(t, nil)
	code, body = empty.get("/v2/status")
	var e struct {
		Code      string `json:"code"`
		Retryable bool   `json:"retryable"`
	}
	if json.Unmarshal(body, &e); code != 503 || e.Code != "dependency_unavailable" || !e.Retryable {
		t.Errorf("empty store: %d %s", code, body)
	}
}

// unzipCSV fetches the snapshot and returns each file's records.
func unzipCSV(t *testing.T, h *mHarness, user string) map[string][][]string {
	t.Helper()
	resp, err := http.Get(h.srv.URL + "/v1/accounting/snapshot?user=" + user)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "application/zip" {
		t.Fatalf("snapshot: %d %s %s", resp.StatusCode, resp.Header.Get("Content-Type"), body)
	}
	zr, err := zip.NewReader(bytes.NewReader(body), int64(len(body)))
	if err != nil {
		t.Fatal(err)
	}
	out := map[string][][]string{}
	var names []string
	for _, f := range zr.File {
		rc, err := f.Open()
		if err != nil {
			t.Fatal(err)
		}
		recs, err := csv.NewReader(rc).ReadAll()
		rc.Close()
		if err != nil {
			t.Fatal(err)
		}
		out[f.Name] = recs
		names = append(names, f.Name)
	}
	sort.Strings(names)
	if strings.Join(names, ",") != "equity.csv,positions.csv" {
		t.Fatalf("zip holds %v", names)
	}
	return out
}

func TestAccountingSnapshot(t *testing.T) {
	h := newMHarness(t, handEvs)
	files := unzipCSV(t, h, strings.ToUpper(maddr(wA)[:2])+maddr(wA)[2:]) // 0X… is accepted too
	pos := files["positions.csv"]
	join := func(r []string) string { return strings.Join(r, "|") }
	wantPos := []string{
		"condition_id|token_id|outcome_index|outcome|title|slug|event_id|status|size|avg_price|entry_cost_usdc|" +
			"entry_fees_usdc|current_price|current_value_usdc|realized_pnl_usdc|unrealized_pnl_usdc|total_pnl_usdc|" +
			"redeemable|mergeable|first_entry_at|last_event_at",
		mcond(1) + "|11|0|Yes|Market 1?|market-1|100|OPEN|60|0.5|30|0|0.7|42|4|12|16|false|true|" + rfc(mT0+10) + "|" + rfc(mT0+70),
		mcond(1) + "|12|1|No|Market 1?|market-1|100|OPEN|70|0.5|35|0|0.3|21|-1.5|-14|-15.5|false|true|" + rfc(mT0+10) + "|" + rfc(mT0+100),
		mcond(3) + "|31|0|Red|Market 3?|market-3|200|OPEN|4|0.5|2|0|0.5|2|0|0|0|false|false|" + rfc(mT0+800) + "|" + rfc(mT0+800),
	}
	if len(pos) != len(wantPos) {
		t.Fatalf("positions.csv has %d records: %v", len(pos), pos)
	}
	for i := range pos {
		if join(pos[i]) != wantPos[i] {
			t.Errorf("positions.csv row %d:\n got %s\nwant %s", i, join(pos[i]), wantPos[i])
		}
	}
	eq := files["equity.csv"]
	day := time.Unix(mT0-mT0%86400, 0).UTC().Format(time.DateOnly)
	wantEq := []string{
		"date|timestamp|block|deposits_usdc|withdrawals_usdc|net_deposits_usdc|realized_pnl_usdc|unrealized_pnl_usdc|" +
			"income_usdc|fees_usdc|total_pnl_usdc|equity_usdc|volume|volume_usdc|trade_count",
		day + "|" + rfc(mT0+800) + "|80000010|0|0|0|2.5|-2|0|0|0.5|0.5|74|39.5|3",
	}
	if len(eq) != 2 || join(eq[0]) != wantEq[0] || join(eq[1]) != wantEq[1] {
		t.Errorf("equity.csv:\n got %v\nwant %v", eq, wantEq)
	}
	// B's redeemed position is CLOSED with its realized gain.
	found := false
	for _, r := range unzipCSV(t, h, maddr(wB))["positions.csv"] {
		if r[1] == "21" {
			found = true
			if join(r[7:9]) != "CLOSED|0" || r[14] != "14" {
				t.Errorf("B's redeemed row: %v", r)
			}
		}
	}
	if !found {
		t.Error("B's redeemed position is missing")
	}
	unknown := unzipCSV(t, h, maddr(77))
	if len(unknown["positions.csv"]) != 1 || len(unknown["equity.csv"]) != 1 {
		t.Errorf("unknown wallet: %v", unknown)
	}
	if e := h.bad("/v1/accounting/snapshot"); e.Error != "required query param 'user' not provided" {
		t.Errorf("missing user: %s", e.Error)
	}
	h.bad("/v1/accounting/snapshot?user=0x12")
	// Still a v1 route that is served, not retired.
	if code, _ := h.get("/v1/accounting/snapshot/"); code != 404 {
		t.Errorf("trailing slash: %d", code)
	}
}
