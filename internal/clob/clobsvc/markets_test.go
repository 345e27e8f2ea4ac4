package clobsvc

import (
	"encoding/json"
	"testing"

	"pmx/internal/amount"
	"pmx/internal/catalog/catalog"
)

// TestFromCatalog: a catalog market with an order book becomes a CLOB
// market with its tokens, tick, minimum size, neg-risk flag, state and
// delay; markets without a book or with malformed tokens do not.
func TestFromCatalog(t *testing.T) {
	parse := func(s string) *catalog.Market {
		var m catalog.Market
		if err := json.Unmarshal([]byte(s), &m); err != nil {
			t.Fatal(err)
		}
		return &m
	}
	m, ok := FromCatalog(parse(`{"id":"559651","question":"Xi Jinping out before 2027?","conditionId":"0xA467b14d000000000000000000000000000000000000000000000000000043b7",
		"slug":"xi","outcomes":"[\"Yes\", \"No\"]","clobTokenIds":"[\"3233\", \"2565\"]","active":true,"closed":false,"enableOrderBook":true,
		"acceptingOrders":true,"orderPriceMinTickSize":0.001,"orderMinSize":5,"negRisk":true,"secondsDelay":3}`))
	if !ok || m.ConditionID != "0xa467b14d000000000000000000000000000000000000000000000000000043b7" || m.Tokens[0].ID != "3233" ||
		m.Tokens[1].Outcome != "No" || m.Ticks != 1000 || m.MinSize != 5*amount.One || !m.NegRisk || !m.Accepting || m.SecondsDelay != 3 {
		t.Fatalf("%+v %v", m, ok)
	}
	for _, s := range []string{
		`{"id":"1","conditionId":"0x01","clobTokenIds":"[\"1\", \"2\"]","enableOrderBook":false}`,
		`{"id":"1","conditionId":"0x01","clobTokenIds":"[\"1\"]","enableOrderBook":true}`,
		`{"id":"1","conditionId":"0x01","clobTokenIds":"[\"01\", \"2\"]","enableOrderBook":true}`,
		`{"id":"1","clobTokenIds":"[\"1\", \"2\"]","enableOrderBook":true}`,
		`{"id":"1","conditionId":"0x01","clobTokenIds":"[\"1\", \"2\"]","enableOrderBook":true}`,
	} {
		if _, ok := FromCatalog(parse(s)); ok {
			t.Errorf("accepted %s", s)
		}
	}
	// An unknown tick size falls back to 0.01.
	if m, _ := FromCatalog(parse(`{"id":"1","conditionId":"0x0000000000000000000000000000000000000000000000000000000000000001","clobTokenIds":"[\"1\", \"2\"]","enableOrderBook":true,"orderPriceMinTickSize":0.05}`)); m.Ticks != 100 {
		t.Fatalf("fallback tick %d", m.Ticks)
	}
}
