package catalog

import (
	"os"
	"path/filepath"
	"testing"
)

// Every market with an order book in the production captures becomes a
// valid `market` ledger event (the ledger's own validation), with the
// catalog's names.
func TestLedgerMarketsOfProductionCaptures(t *testing.T) {
	files, _ := filepath.Glob("../catalogsql/testdata/gamma/*.json")
	files = append(files, "../catalogsql/testdata/event_full.json")
	if len(files) < 2 {
		t.Fatal("captures missing")
	}
	total := 0
	for _, f := range files {
		body, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		evs, err := ParseImport(body)
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		ms, err := LedgerMarkets(evs)
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		for _, m := range ms {
			if m.Slug == "" || m.EventSlug == "" || len(m.TokenIDs) != len(m.Outcomes) || m.EndDate == "" {
				t.Errorf("%s: %+v", f, m)
			}
		}
		total += len(ms)
	}
	if total == 0 {
		t.Fatal("no tradable market in the captures")
	}
}

func TestLedgerMarketFallbacks(t *testing.T) {
	cond := "0x" + "ab" + "00000000000000000000000000000000000000000000000000000000000000"
	evs := []Event{{ID: "12", Markets: []Market{{ID: "34", ConditionID: &cond,
		Outcomes: ptr(`["Yes","No"]`), ClobTokenIds: ptr(`["1","2"]`), EndDate: ptr("2022-07-27 14:40:02.064+00")}}}}
	ms, err := LedgerMarkets(evs)
	if err != nil || len(ms) != 1 {
		t.Fatal(ms, err)
	}
	m := ms[0]
	if m.Question != "Market 34" || m.Slug != "market-34" || m.EventSlug != "event-12" || m.EventTitle != "Market 34" ||
		m.EndDate != "2022-07-27T14:40:02Z" || m.MarketID != 34 || m.EventID != 12 {
		t.Errorf("fallbacks: %+v", m)
	}
	// No order book: skipped.
	evs[0].Markets[0].ClobTokenIds = nil
	if ms, err := LedgerMarkets(evs); err != nil || len(ms) != 0 {
		t.Errorf("market without tokens: %v %v", ms, err)
	}
}
