package sqlite

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"

	"pmx/internal/amount"
	"pmx/internal/data/ledger"
)

// TestTradeBatchLeavesThePublishedCatalog: a batch of trades shares the
// published catalog's markets and copies only the one it trades (own), so
// a reader still holding the previous catalog sees it unchanged, the new
// catalog's indexes all lead to the traded market's copy, and the feed
// enrichment table is reused (no market's texts changed).
func TestTradeBatchLeavesThePublishedCatalog(t *testing.T) {
	ctx := context.Background()
	db, err := Open(filepath.Join(t.TempDir(), "c.db"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	cond := func(n int) string { return fmt.Sprintf("0x%064x", n) }
	tx := func(n int) string { return fmt.Sprintf("0x%064x", 1000+n) }
	maker, taker := "0x"+fmt.Sprintf("%040x", 1), "0x"+fmt.Sprintf("%040x", 2)
	var evs []ledger.Event
	for n := 1; n <= 3; n++ { // one event of three markets
		evs = append(evs, ledger.Event{Kind: ledger.KindMarket, ConditionID: cond(n), Question: "Q?", Slug: fmt.Sprint("q", n),
			EventID: 7, EventSlug: "e", EventTitle: "E", Outcomes: []string{"Yes", "No"},
			TokenIDs: []string{fmt.Sprint(n, "1"), fmt.Sprint(n, "2")}, EndDate: "2030-01-01T00:00:00Z"})
	}
	evs = append(evs, ledger.Event{Kind: ledger.KindSplit, TxHash: tx(0), BlockNumber: 10, Timestamp: 1_800_000_000,
		User: maker, ConditionID: cond(2), Amount: 100 * amount.One})
	if _, err := db.Apply(ctx, evs); err != nil {
		t.Fatal(err)
	}
	trade := func(n int, price amount.Micro) {
		t.Helper()
		if _, err := db.Apply(ctx, []ledger.Event{{Kind: ledger.KindTrade, TxHash: tx(n), BlockNumber: int64(10 + n),
			Timestamp: 1_800_000_000 + int64(n), TokenID: "21", Maker: maker, Taker: taker, Side: "BUY", Price: price,
			Size: amount.One}}); err != nil {
			t.Fatal(err)
		}
	}
	trade(1, amount.One/2)
	old := db.cat.Load()
	oldEnr := db.hot.enr
	m0, tok0 := old.byCond[cond(2)], old.byToken["21"]
	vol0, price0 := m0.volume, tok0.price
	trade(2, amount.One/4)
	cat := db.cat.Load()
	if !cat.shared || old == cat {
		t.Fatal("a trade batch did not take the shared clone")
	}
	if m0.volume != vol0 || tok0.price != price0 || old.byCond[cond(2)] != m0 || old.byToken["21"] != tok0 {
		t.Fatal("the trade changed the catalog readers held")
	}
	m := cat.byCond[cond(2)]
	if m == m0 || m.volume != vol0+amount.One || cat.byMid[m.mid] != m {
		t.Fatalf("the new catalog's market: %+v", m)
	}
	if tk := cat.byToken["21"]; tk == tok0 || tk.price != amount.One/4 || cat.byTid[tk.tid] != tk || m.tokens[0] != tk {
		t.Fatal("the new catalog's token is not the market's copy")
	}
	if no := cat.byToken["22"]; no != m.tokens[1] || no.price != amount.One*3/4 {
		t.Fatal("the complement's mark is not on the market's copy")
	}
	found := false
	for _, e := range cat.byEvent[7] {
		found = found || e == m
		if e == m0 {
			t.Fatal("the event still lists the old market")
		}
	}
	if !found || cat.byCond[cond(1)] != old.byCond[cond(1)] {
		t.Fatal("untraded markets are not shared, or the event lost the traded one")
	}
	if db.hot.enr == oldEnr || len(db.hot.enr.m) == 0 || fmt.Sprintf("%p", db.hot.enr.m) != fmt.Sprintf("%p", oldEnr.m) {
		t.Fatal("the enrichment table was rebuilt for a trade batch")
	}
}
