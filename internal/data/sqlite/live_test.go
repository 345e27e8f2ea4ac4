package sqlite_test

import (
	"testing"
)

// TestLiveFieldsFollowTheLedger: the catalog's live fields are derived from
// the store and change when a trade is applied (the cache does not go stale).
func TestLiveFieldsFollowTheLedger(t *testing.T) {
	db, _ := openDB(t)
	b := newBuilder(fixedClock().Unix() - 3600)
	mustApply(t, db, binary(1, 10, false),
		b.env(userEv("split", 1, 1, "100"), 1),
		b.env(trade("11", 1, 2, "BUY", "0.4", "10", ""), 1))
	id := cond(1)
	live, err := db.Live(ctx, []string{id, cond(99)})
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := live[cond(99)]; ok {
		t.Error("unknown market has live fields")
	}
	l := live[id]
	if l.Volume == nil || *l.Volume != m("4") || l.Volume24hr == nil || *l.Volume24hr != m("4") {
		t.Fatalf("volume %v / 24h %v, want 4", l.Volume, l.Volume24hr)
	}
	if l.LastTradePrice == nil || *l.LastTradePrice != m("0.4") {
		t.Fatalf("last trade price %v", l.LastTradePrice)
	}
	if l.OpenInterest == nil || *l.OpenInterest != m("100") {
		t.Fatalf("open interest %v, want the 100 split sets", l.OpenInterest)
	}
	if len(l.OutcomePrices) != 2 || l.OutcomePrices[0] != m("0.4") {
		t.Fatalf("outcome prices %v", l.OutcomePrices)
	}

	mustApply(t, db, b.env(trade("11", 1, 2, "BUY", "0.5", "10", ""), 1))
	live, err = db.Live(ctx, []string{id})
	if err != nil {
		t.Fatal(err)
	}
	if l := live[id]; *l.Volume != m("9") || *l.LastTradePrice != m("0.5") {
		t.Fatalf("after a new trade: volume %v price %v", *l.Volume, *l.LastTradePrice)
	}
}
