package clobhttp_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"pmx/internal/clob/clobsvc"
	"pmx/internal/clock"
	"pmx/internal/data/dataapi"
	"pmx/internal/data/ingest"
	"pmx/internal/data/ledger"
	"pmx/internal/data/sqlite"
	"pmx/internal/ratelimit"
)

// venueEnv is the CLOB with its ledger feed into a data store served by
// the data service, as pmx serve wires them.
type venueEnv struct {
	*xenv
	data *httptest.Server
}

func newVenueEnv(t *testing.T) *venueEnv {
	t.Helper()
	return openVenue(t, t.TempDir(), newVenueDB(t), true)
}

// newVenueDB is a data store that knows market A.
func newVenueDB(t *testing.T) *sqlite.DB {
	t.Helper()
	db, err := sqlite.Open(filepath.Join(t.TempDir(), "pmx.db"), sqlite.Options{Clock: func() time.Time { return time.Unix(now0, 0) }})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	yes, no := true, false
	market := ledger.Event{Kind: ledger.KindMarket, ConditionID: condA, Question: "Will A?", Slug: "will-a", EventID: 77,
		EventSlug: "a", EventTitle: "A", Outcomes: []string{"Yes", "No"}, TokenIDs: []string{yesA, noA},
		EndDate: "2027-12-31T00:00:00Z", Active: &yes, Closed: &no}
	if _, err := db.Apply(context.Background(), []ledger.Event{market}); err != nil {
		t.Fatal(err)
	}
	return db
}

// openVenue opens the CLOB journaled in dir, feeding db when feed is set.
func openVenue(t *testing.T, dir string, db *sqlite.DB, feed bool) *venueEnv {
	t.Helper()
	clk := &fixedClock{t: time.Unix(now0, 0)}
	x := newExchangeGated(t, dir, clk, "enforce", nil, func(o *clobsvc.Options) {
		if feed {
			o.Ledger = &ingest.Pipeline{Data: db}
		}
	})
	data := httptest.NewServer(dataapi.New(dataapi.Options{Store: db, CursorKey: []byte("venue-test-cursor-key-0123456789"),
		Clock: clock.NewManual(time.Unix(now0+60, 0)), Limits: &ratelimit.Config{}}))
	t.Cleanup(data.Close)
	return &venueEnv{xenv: x, data: data}
}

// eventually polls the data service until ok accepts the rows of path
// (the feed is asynchronous); it fails after 10 s with the last answer.
func (v *venueEnv) eventually(t *testing.T, path string, ok func(rows []map[string]any) bool) []map[string]any {
	t.Helper()
	var last string
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) {
		resp, err := http.Get(v.data.URL + path)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		last = fmt.Sprintf("%d %s", resp.StatusCode, b)
		var page struct {
			Data []map[string]any `json:"data"`
		}
		if resp.StatusCode == 200 && json.Unmarshal(b, &page) == nil && ok(page.Data) {
			return page.Data
		}
	}
	t.Fatalf("GET %s never matched; last answer: %s", path, last)
	return nil
}

func has(rows []map[string]any, want map[string]any) bool {
	for _, r := range rows {
		ok := true
		for k, w := range want {
			if fmt.Sprint(r[k]) != fmt.Sprint(w) {
				ok = false
			}
		}
		if ok {
			return true
		}
	}
	return false
}

// TestCLOBTradesReachTheDataService: two crossing signed orders on the CLOB
// show up in both wallets' /v2/trades and /v2/activity and move their
// /v2/positions; the operator's split is SPLIT activity; a complementary
// (mint) match shows each side's BUY with the exchange contract as the
// counterparty and positions in both outcomes.
func TestCLOBTradesReachTheDataService(t *testing.T) {
	v := newVenueEnv(t)
	a, b := v.trader(t, priv0), v.trader(t, priv1)
	v.fund(t, a.w.addr, 100, 0)
	v.fund(t, b.w.addr, 100, 20) // b splits 20 sets of A

	// The sockets: a market subscriber and the maker's user channel.
	mkt, ua := v.dial(t, "/ws/market"), v.dial(t, "/ws/user")
	mkt.send(t, `{"assets_ids":["`+yesA+`"],"type":"market"}`)
	mkt.read(t) // the snapshot
	ua.userSub(t, a.c)

	if r, _ := a.post(t, limitOrder(yesA, "BUY", 40, 10), "GTC", false); decode[orderResp](t, r).Status != "live" {
		t.Fatalf("maker: %s", r.body)
	}
	r, _ := b.post(t, limitOrder(yesA, "SELL", 40, 10), "GTC", false)
	o := decode[orderResp](t, r)
	if o.Status != "matched" || len(o.TradeIDs) != 1 {
		t.Fatalf("taker: %s", r.body)
	}
	var resp struct {
		TxHashes []string `json:"transactionsHashes"`
	}
	if err := json.Unmarshal(r.body, &resp); err != nil || len(resp.TxHashes) != 1 {
		t.Fatalf("tx hashes: %s", r.body)
	}
	tx := resp.TxHashes[0]

	// The sockets carry the resting order and the trade.
	want(t, ua.next(t), map[string]any{"event_type": "order", "type": "PLACEMENT", "status": "LIVE"})
	want(t, ua.next(t), map[string]any{"event_type": "order", "type": "UPDATE", "status": "MATCHED", "size_matched": "10"})
	want(t, ua.next(t), map[string]any{"event_type": "trade", "id": o.TradeIDs[0], "status": "MATCHED", "trader_side": "MAKER"})
	f := mkt.next(t)
	if f["event_type"] == "price_change" { // absent when the fan-out first read the book after the trade
		f = mkt.next(t)
	}
	want(t, f, map[string]any{"event_type": "last_trade_price", "asset_id": yesA, "price": "0.4", "size": "10", "transaction_hash": tx})
	want(t, mkt.next(t), map[string]any{"event_type": "book", "asset_id": yesA, "last_trade_price": "0.4"})

	// The taker's row by default, the maker's with taker_only=false.
	v.eventually(t, "/v2/trades?user="+b.w.addr, func(rows []map[string]any) bool {
		return has(rows, map[string]any{"side": "SELL", "token_id": yesA, "price": 0.4, "size": 10, "transaction_hash": tx})
	})
	v.eventually(t, "/v2/trades?taker_only=false&user="+a.w.addr, func(rows []map[string]any) bool {
		return has(rows, map[string]any{"side": "BUY", "token_id": yesA, "price": 0.4, "size": 10, "transaction_hash": tx})
	})
	v.eventually(t, "/v2/activity?user="+a.w.addr, func(rows []map[string]any) bool {
		return has(rows, map[string]any{"type": "TRADE", "side": "BUY", "transaction_hash": tx})
	})
	v.eventually(t, "/v2/activity?user="+b.w.addr, func(rows []map[string]any) bool {
		return has(rows, map[string]any{"type": "TRADE", "side": "SELL", "transaction_hash": tx}) &&
			has(rows, map[string]any{"type": "SPLIT", "size": 20})
	})

	// /v2/status reports the live ledger: its synced block is on the CLOB's chain.
	resp2, err := http.Get(v.data.URL + "/v2/status")
	if err != nil {
		t.Fatal(err)
	}
	st, _ := io.ReadAll(resp2.Body)
	resp2.Body.Close()
	if !strings.Contains(string(st), fmt.Sprintf(`"max_synced_block":%d`, clobsvc.ChainBlock0)[:len(`"max_synced_block":`)+7]) {
		t.Errorf("/v2/status does not show the CLOB's blocks: %s", st)
	}

	// Mint: a BUY of No crosses a resting BUY of Yes at the complement.
	if r, _ := a.post(t, limitOrder(yesA, "BUY", 60, 5), "GTC", false); decode[orderResp](t, r).Status != "live" {
		t.Fatalf("mint maker: %s", r.body)
	}
	if r, _ := b.post(t, limitOrder(noA, "BUY", 40, 5), "GTC", false); decode[orderResp](t, r).Status != "matched" {
		t.Fatalf("mint taker: %s", r.body)
	}
	v.eventually(t, "/v2/positions?user="+a.w.addr, func(rows []map[string]any) bool {
		return has(rows, map[string]any{"token_id": yesA, "current_size": 15})
	})
	v.eventually(t, "/v2/positions?user="+b.w.addr, func(rows []map[string]any) bool {
		return has(rows, map[string]any{"token_id": yesA, "current_size": 10}) && has(rows, map[string]any{"token_id": noA, "current_size": 25})
	})
	v.eventually(t, "/v2/trades?user="+b.w.addr, func(rows []map[string]any) bool {
		return has(rows, map[string]any{"side": "BUY", "token_id": noA, "price": 0.4, "size": 5})
	})
	v.eventually(t, "/v2/trades?taker_only=false&user="+a.w.addr, func(rows []map[string]any) bool {
		return has(rows, map[string]any{"side": "BUY", "token_id": yesA, "price": 0.6, "size": 5})
	})
}

// TestCLOBFeedCatchesUpAfterRestart: fills and splits the CLOB journaled while the
// data store missed them (a crash between the two commits, played here by
// a service without the feed) reach the data store when the service opens
// again, and a further restart adds nothing twice.
func TestCLOBFeedCatchesUpAfterRestart(t *testing.T) {
	dir, db := t.TempDir(), newVenueDB(t)
	v := openVenue(t, dir, db, false)
	a, b := v.trader(t, priv0), v.trader(t, priv1)
	v.fund(t, a.w.addr, 100, 0)
	v.fund(t, b.w.addr, 100, 10)                             // an operator split of 10 sets
	a.post(t, limitOrder(yesA, "BUY", 60, 10), "GTC", false) // mint: a Yes 10, b No 10
	if r, _ := b.post(t, limitOrder(noA, "BUY", 40, 10), "GTC", false); decode[orderResp](t, r).Status != "matched" {
		t.Fatalf("mint: %s", r.body)
	}
	a.post(t, limitOrder(yesA, "SELL", 70, 5), "GTC", false) // a sells 5 of the minted Yes to b
	if r, _ := b.post(t, limitOrder(yesA, "BUY", 70, 5), "GTC", false); decode[orderResp](t, r).Status != "matched" {
		t.Fatalf("normal: %s", r.body)
	}
	if err := v.svc.Close(); err != nil {
		t.Fatal(err)
	}
	for restart := range 2 {
		w := openVenue(t, dir, db, true)
		w.eventually(t, "/v2/positions?user="+b.w.addr, func(rows []map[string]any) bool {
			return has(rows, map[string]any{"token_id": yesA, "current_size": 15}) && has(rows, map[string]any{"token_id": noA, "current_size": 20})
		})
		w.eventually(t, "/v2/positions?user="+a.w.addr, func(rows []map[string]any) bool {
			return len(rows) == 1 && has(rows, map[string]any{"token_id": yesA, "current_size": 5})
		})
		if err := w.svc.Close(); err != nil { // waits for the feed, catch-up included
			t.Fatal(err)
		}
		rows := w.eventually(t, "/v2/trades?user="+b.w.addr, func([]map[string]any) bool { return true })
		if len(rows) != 2 {
			t.Fatalf("restart %d: b's trades %v, want the mint and the purchase once each", restart, rows)
		}
	}
}
