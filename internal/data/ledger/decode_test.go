package ledger

import (
	"bytes"
	"errors"
	"io"
	"os"
	"strings"
	"testing"

	"pmx/internal/amount"
)

func readValid(t testing.TB) []byte {
	b, err := os.ReadFile("testdata/valid.ndjson")
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestParseAllValid(t *testing.T) {
	evs, err := ParseAll(bytes.NewReader(readValid(t)))
	if err != nil {
		t.Fatal(err)
	}
	if len(evs) != 18 {
		t.Fatalf("got %d events, want 18 (blank line skipped)", len(evs))
	}
	seen := map[Kind]bool{}
	for _, e := range evs {
		seen[e.Kind] = true
	}
	for k := range allowed {
		switch k {
		case KindMigration, KindYield, KindMakerRebate, KindTakerRebate, KindReferralReward:
			continue // same shape as reward, covered by the table below
		}
		if !seen[k] {
			t.Errorf("testdata lacks kind %s", k)
		}
	}
	// Normalization.
	p := evs[1]
	if p.Address != "0x379a410a36c101e3b8dfb6c90d1176eb0def4b1a" {
		t.Errorf("address not lower-cased: %s", p.Address)
	}
	m := evs[2]
	if m.ConditionID != strings.ToLower(m.ConditionID) {
		t.Errorf("condition id not lower-cased: %s", m.ConditionID)
	}
	if m.TokenIDs[0] != "107562952936555819668737826428754978979556920505990557747611348541829551199040" {
		t.Errorf("token id leading zero kept: %s", m.TokenIDs[0])
	}
	if m.Active == nil || !*m.Active || m.Closed == nil || *m.Closed {
		t.Errorf("flags: %v %v", m.Active, m.Closed)
	}
	tr := evs[7]
	if tr.Kind != KindTrade || tr.Price != amount.MustParse("0.52") || tr.Size != amount.MustParse("22.84") ||
		tr.LogIndex != 3 || tr.FeeUSDC != 100000 {
		t.Errorf("trade decoded wrong: %+v", tr)
	}
}

// line builds a valid line of kind k with fields replaced or removed
// (a value of "-" removes the key). Values are raw JSON.
func line(k string, set ...string) string {
	base := map[string][][2]string{
		"trade": {{"tx_hash", `"0x` + strings.Repeat("ab", 32) + `"`}, {"log_index", "0"}, {"block_number", "5"},
			{"timestamp", "1700000000"}, {"token_id", `"123"`}, {"maker", `"0x` + strings.Repeat("1", 40) + `"`},
			{"taker", `"0x` + strings.Repeat("2", 40) + `"`}, {"side", `"BUY"`}, {"price", `"0.5"`}, {"size", `"10"`}},
		"market": {{"condition_id", `"0x` + strings.Repeat("c", 64) + `"`}, {"question", `"Q?"`}, {"slug", `"q"`},
			{"event_id", "7"}, {"event_slug", `"e"`}, {"event_title", `"E"`}, {"outcomes", `["Yes","No"]`},
			{"token_ids", `["1","2"]`}, {"end_date", `"2026-01-02T03:04:05Z"`}},
		"resolution": {{"condition_id", `"0x` + strings.Repeat("c", 64) + `"`}, {"payouts", `["0.25","0.75"]`},
			{"resolved_at", "1700000000"}},
		"conversion": {{"tx_hash", `"0x` + strings.Repeat("ab", 32) + `"`}, {"block_number", "5"},
			{"timestamp", "1700000000"}, {"user", `"0x` + strings.Repeat("1", 40) + `"`},
			{"condition_ids", `["0x` + strings.Repeat("c", 64) + `","0x` + strings.Repeat("d", 64) + `","0x` + strings.Repeat("e", 64) + `"]`},
			{"amount", `"3"`}, {"amount_usdc", `"6"`}},
		"combo_market": {{"combo_condition_id", `"0x03` + strings.Repeat("0", 60) + `"`}, {"outcomes", `["Yes","No"]`},
			{"token_ids", `["1","2"]`},
			{"legs", `[{"condition_id":"0x` + strings.Repeat("c", 64) + `","outcome_index":0},{"condition_id":"0x` + strings.Repeat("d", 64) + `","outcome_index":1}]`}},
		"combo_activity": {{"tx_hash", `"0x` + strings.Repeat("ab", 32) + `"`}, {"block_number", "5"},
			{"timestamp", "1700000000"}, {"user", `"0x` + strings.Repeat("1", 40) + `"`},
			{"combo_condition_id", `"0x03` + strings.Repeat("0", 60) + `"`}, {"type", `"SPLIT"`}, {"size", `"1"`}, {"amount_usdc", `"1"`}},
		"tip": {{"tx_hash", `"0x` + strings.Repeat("ab", 32) + `"`}, {"block_number", "5"}, {"timestamp", "1700000000"},
			{"from", `"0x` + strings.Repeat("1", 40) + `"`}, {"to", `"0x` + strings.Repeat("2", 40) + `"`}, {"amount_usdc", `"1"`}},
	}[k]
	var b strings.Builder
	b.WriteString(`{"kind":"` + k + `"`)
	over := map[string]string{}
	var order []string
	for i := 0; i+1 < len(set); i += 2 {
		over[set[i]] = set[i+1]
		order = append(order, set[i])
	}
	for _, kv := range base {
		v := kv[1]
		if o, ok := over[kv[0]]; ok {
			v = o
			delete(over, kv[0])
		}
		if v != "-" {
			b.WriteString(`,"` + kv[0] + `":` + v)
		}
	}
	for _, k := range order {
		if v, ok := over[k]; ok {
			b.WriteString(`,"` + k + `":` + v)
		}
	}
	return b.String() + "}"
}

func TestValidateRejects(t *testing.T) {
	for _, tc := range []struct {
		name, line, want string
	}{
		{"unknown kind", `{"kind":"bogus"}`, `unknown kind "bogus"`},
		{"missing kind", `{"user":"0x` + strings.Repeat("1", 40) + `"}`, "missing kind"},
		{"unknown field", line("trade", "colour", `"red"`), `unknown field "colour"`},
		{"field of other kind", line("trade", "question", `"Q"`), `trade: field "question" is not used by this kind`},
		{"not an object", `[1,2]`, "expected a JSON object"},
		{"trailing data", line("trade") + ` {}`, "trailing data"},
		{"bad json", `{"kind":"trade",`, "truncated JSON"},
		{"price zero", line("trade", "price", `"0"`), "trade: price must be in (0,1)"},
		{"price one", line("trade", "price", `"1"`), "trade: price must be in (0,1)"},
		{"price syntax", line("trade", "price", `"1e-1"`), "not a decimal number"},
		{"price precision", line("trade", "price", `"0.1234567"`), "more than 6 decimal places"},
		{"size zero", line("trade", "size", "-"), "trade: size must be > 0"},
		{"size negative", line("trade", "size", `"-1"`), "trade: size must be > 0"},
		{"fee negative", line("trade", "fee_usdc", `"-1"`), "trade: fee_usdc must be >= 0"},
		{"side", line("trade", "side", `"buy"`), "trade: side must be BUY or SELL"},
		{"maker=taker", line("trade", "maker", `"0x`+strings.Repeat("2", 40)+`"`), "maker and taker must differ"},
		{"maker case-insensitive equal", line("trade", "maker", `"0x`+strings.Repeat("A", 40)+`"`, "taker", `"0x`+strings.Repeat("a", 40)+`"`), "maker and taker must differ"},
		{"address short", line("trade", "maker", `"0x123"`), "trade: maker must be 0x + 40 hex digits"},
		{"address no 0x", line("trade", "maker", `"`+strings.Repeat("1", 42)+`"`), "maker must be 0x + 40 hex digits"},
		{"tx hash", line("trade", "tx_hash", `"0x`+strings.Repeat("g", 64)+`"`), "tx_hash must be 0x + 64 hex digits"},
		{"tx missing", line("trade", "tx_hash", "-"), "trade: tx_hash is required"},
		{"block", line("trade", "block_number", "-"), "block_number must be > 0"},
		{"timestamp", line("trade", "timestamp", "-1"), "timestamp must be > 0"},
		{"log index", line("trade", "log_index", "-1"), "log_index must be >= 0"},
		{"token id letters", line("trade", "token_id", `"12a"`), "token_id must be a decimal string"},
		{"token id zero", line("trade", "token_id", `"000"`), "token_id must be > 0"},
		{"token id long", line("trade", "token_id", `"`+strings.Repeat("9", 79)+`"`), "more than 78 digits"},
		{"token id number", line("trade", "token_id", `123`), `field "token_id"`},
		{"builder code", line("trade", "builder_code", `"betmoar"`), "builder_code must be 0x + 64 hex"},
		{"market one outcome", line("market", "outcomes", `["Yes"]`, "token_ids", `["1"]`), "outcomes must have 2 to"},
		{"market ids length", line("market", "token_ids", `["1","2","3"]`), "token_ids must have one id per outcome"},
		{"market dup token", line("market", "token_ids", `["1","01"]`), "token_ids repeat 1"},
		{"market dup outcome", line("market", "outcomes", `["Yes","Yes"]`), `outcomes repeat "Yes"`},
		{"market end date", line("market", "end_date", `"2026-01-02"`), "end_date must be RFC 3339"},
		{"market no end date", line("market", "end_date", "-"), "market: end_date is required"},
		{"market no question", line("market", "question", `"  "`), "market: question is required"},
		{"market event id", line("market", "event_id", "0"), "event_id must be > 0"},
		{"market combo id", line("market", "condition_id", `"0x03`+strings.Repeat("0", 60)+`"`), "condition_id must be 0x + 64 hex"},
		{"neg risk 3 outcomes", line("market", "neg_risk", "true", "outcomes", `["A","B","C"]`, "token_ids", `["1","2","3"]`), "exactly 2 outcomes"},
		{"payout sum", line("resolution", "payouts", `["0.5","0.4"]`), "payouts must sum to 1, got 0.9"},
		{"payout negative", line("resolution", "payouts", `["-0.5","1.5"]`), "each payout must be in [0,1]"},
		{"payout one entry", line("resolution", "payouts", `["1"]`), "payouts must have 2 to"},
		{"resolved at", line("resolution", "resolved_at", "-"), "resolved_at must be > 0"},
		{"conversion usdc", line("conversion", "amount_usdc", `"3"`), "amount_usdc must be (k-1) x amount = 6"},
		{"conversion dup", line("conversion", "condition_ids", `["0x`+strings.Repeat("c", 64)+`","0x`+strings.Repeat("C", 64)+`"]`, "amount_usdc", `"3"`), "condition_ids repeats"},
		{"conversion empty", line("conversion", "condition_ids", `[]`), "condition_ids must name 1 to"},
		{"combo id prefix", line("combo_market", "combo_condition_id", `"0x04`+strings.Repeat("0", 60)+`"`), "must start with 0x03"},
		{"combo three outcomes", line("combo_market", "outcomes", `["A","B","C"]`, "token_ids", `["1","2","3"]`), "exactly 2 outcomes"},
		{"combo one leg", line("combo_market", "legs", `[{"condition_id":"0x`+strings.Repeat("c", 64)+`","outcome_index":0}]`), "legs must have 2 to"},
		{"combo leg unknown field", line("combo_market", "legs", `[{"condition_id":"0x`+strings.Repeat("c", 64)+`","outcome":0}]`), `unknown field "outcome"`},
		{"combo type", line("combo_activity", "type", `"BURN"`), "type must be one of"},
		{"combo payout not redeem", line("combo_activity", "payout_usdc", `"1"`), "payout_usdc is only for REDEEM"},
		{"combo outcome index", line("combo_activity", "outcome_index", "-1"), "outcome_index must be in"},
		{"tip self", line("tip", "to", `"0x`+strings.Repeat("1", 40)+`"`), "from and to must differ"},
		{"tip amount", line("tip", "amount_usdc", "-"), "tip: amount_usdc must be > 0"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var e Event
			err := Unmarshal([]byte(tc.line), &e)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("got %v, want %q\nline: %s", err, tc.want, tc.line)
			}
		})
	}
}

func TestValidateAcceptsTableBases(t *testing.T) {
	for _, k := range []string{"trade", "market", "resolution", "conversion", "combo_market", "combo_activity", "tip"} {
		var e Event
		if err := Unmarshal([]byte(line(k)), &e); err != nil {
			t.Errorf("%s base line rejected: %v", k, err)
		}
	}
	// Amount-only kinds share one shape; a one-outcome conversion frees no cash.
	for _, k := range []Kind{KindMigration, KindReward, KindYield, KindMakerRebate, KindTakerRebate,
		KindReferralReward, KindDeposit, KindWithdrawal} {
		l := `{"kind":"` + string(k) + `","tx_hash":"0x` + strings.Repeat("ab", 32) +
			`","block_number":1,"timestamp":1,"user":"0x` + strings.Repeat("1", 40) + `","amount_usdc":0.5}`
		var e Event
		if err := Unmarshal([]byte(l), &e); err != nil {
			t.Errorf("%s: %v", k, err)
		}
	}
	var e Event
	if err := Unmarshal([]byte(line("conversion", "condition_ids", `["0x`+strings.Repeat("c", 64)+`"]`, "amount_usdc", "-")), &e); err != nil {
		t.Errorf("k=1 conversion: %v", err)
	}
}

func TestParseAllRejectsWholeBatch(t *testing.T) {
	valid := string(readValid(t))
	bad := valid + "\n" + line("trade", "price", `"2"`) + "\n" + line("trade") + "\n"
	evs, err := ParseAll(strings.NewReader(bad))
	if evs != nil {
		t.Fatalf("partial batch returned: %d events", len(evs))
	}
	var le *LineError
	if !errors.As(err, &le) {
		t.Fatalf("want *LineError, got %T %v", err, err)
	}
	// 19 lines in the file (one blank), then a blank line, then the bad line.
	if le.Line != 21 || err.Error() != "line 21: trade: price must be in (0,1)" {
		t.Fatalf("got %q (line %d)", err, le.Line)
	}
}

func TestDecoderStopsAtFirstError(t *testing.T) {
	d := NewDecoder(strings.NewReader(line("trade") + "\nnope\n" + line("trade") + "\n"))
	var e Event
	if err := d.Decode(&e); err != nil {
		t.Fatal(err)
	}
	err1 := d.Decode(&e)
	err2 := d.Decode(&e)
	if err1 == nil || err1 != err2 || d.Line() != 2 {
		t.Fatalf("err1=%v err2=%v line=%d", err1, err2, d.Line())
	}
}

func TestCrossLineChecks(t *testing.T) {
	market := line("market")
	for _, tc := range []struct{ name, batch, want string }{
		{"payout length", market + "\n" + line("resolution", "payouts", `["0.5","0.25","0.25"]`), "line 2: resolution: 3 payouts for a market with 2 outcomes"},
		{"redeclare", market + "\n" + line("market", "token_ids", `["1","3"]`), "line 2: market: 0x" + strings.Repeat("c", 64) + " re-declared"},
		{"token reuse", market + "\n" + line("market", "condition_id", `"0x`+strings.Repeat("d", 64)+`"`), "token id 1 already belongs"},
		{"leg outcome", market + "\n" + line("combo_market", "token_ids", `["8","9"]`, "legs", `[{"condition_id":"0x`+strings.Repeat("c", 64)+`","outcome_index":2},{"condition_id":"0x`+strings.Repeat("d", 64)+`","outcome_index":0}]`), "has no outcome 2"},
		{"conversion not neg-risk", market + "\n" + line("conversion", "condition_ids", `["0x`+strings.Repeat("c", 64)+`"]`, "amount_usdc", "-"), "line 2: conversion: 0x" + strings.Repeat("c", 64) + " is not a neg-risk market"},
		{"conversion across groups", line("market", "neg_risk", "true") + "\n" + line("market", "neg_risk", "true", "event_id", "8", "condition_id", `"0x`+strings.Repeat("d", 64)+`"`, "token_ids", `["3","4"]`) + "\n" + line("conversion", "condition_ids", `["0x`+strings.Repeat("c", 64)+`","0x`+strings.Repeat("d", 64)+`"]`, "amount_usdc", `"3"`), "line 3: conversion: markets of different neg-risk groups"},
		{"combo outcome", line("combo_market") + "\n" + line("combo_activity", "outcome_index", "2"), "line 2: combo_activity: combo has no outcome 2"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ParseAll(strings.NewReader(tc.batch))
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("got %v, want %q", err, tc.want)
			}
		})
	}
	// A re-declaration with the same outcomes (a flag update) is fine.
	if _, err := ParseAll(strings.NewReader(market + "\n" + line("market", "closed", "true"))); err != nil {
		t.Fatal(err)
	}
	// Lookup reaches markets the stream does not declare.
	res3 := line("resolution", "payouts", `["0.5","0.25","0.25"]`)
	d := NewDecoder(strings.NewReader(res3))
	d.SetLookup(func(string) (int, bool) { return 3, true })
	if evs, err := d.ReadAll(); err != nil || len(evs) != 1 {
		t.Fatal(err)
	}
	d = NewDecoder(strings.NewReader(res3))
	d.SetLookup(func(string) (int, bool) { return 2, true })
	if _, err := d.ReadAll(); err == nil || !strings.Contains(err.Error(), "3 payouts for a market with 2 outcomes") {
		t.Fatalf("lookup not consulted: %v", err)
	}
}

func TestBigLine(t *testing.T) {
	q := strings.Repeat("x", 4000)
	big := line("market", "question", `"`+q+`"`, "icon", `"`+strings.Repeat("y", 4000)+`"`)
	pad := strings.Repeat(" ", 200_000) // whitespace is fine inside JSON
	evs, err := ParseAll(strings.NewReader(big[:len(big)-1] + pad + "}\n"))
	if err != nil || len(evs) != 1 || evs[0].Question != q {
		t.Fatalf("big line: %v", err)
	}
	_, err = ParseAll(strings.NewReader(line("market", "question", `"`+strings.Repeat("x", maxText+1)+`"`)))
	if err == nil || !strings.Contains(err.Error(), "question longer than") {
		t.Fatalf("over-long text: %v", err)
	}
	_, err = ParseAll(io.MultiReader(strings.NewReader(line("trade")+"\n"), strings.NewReader(strings.Repeat("a", MaxLine+1))))
	if err == nil || err.Error() != "line 2: line longer than 16777216 bytes" {
		t.Fatalf("over-long line: %v", err)
	}
}

func TestEncodeRoundTrip(t *testing.T) {
	evs, err := ParseAll(bytes.NewReader(readValid(t)))
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	enc := NewEncoder(&buf)
	for i := range evs {
		if err := enc.Encode(&evs[i]); err != nil {
			t.Fatal(err)
		}
	}
	if err := enc.Flush(); err != nil {
		t.Fatal(err)
	}
	again, err := ParseAll(bytes.NewReader(buf.Bytes()))
	if err != nil {
		t.Fatalf("%v\n%s", err, buf.String())
	}
	var buf2 bytes.Buffer
	enc2 := NewEncoder(&buf2)
	for i := range again {
		enc2.Encode(&again[i])
	}
	enc2.Flush()
	if !bytes.Equal(buf.Bytes(), buf2.Bytes()) {
		t.Fatal("encode is not stable across a round trip")
	}
	if !strings.Contains(buf.String(), `"log_index":0,`) || !strings.Contains(buf.String(), `"outcome_index":0,`) ||
		!strings.Contains(buf.String(), `"price":"0.52"`) {
		t.Fatalf("encoder form:\n%s", buf.String())
	}
}
