package main

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"pmx/internal/pgsql/pgtest"
)

// TestReadNode_CatalogShowsTheWritersBook: the CLOB's book lives in the
// writer's memory; the writer publishes each market's book top to the
// database and a PostgreSQL read node's catalog shows it. Orders rest and
// trade on the writer (the real binary, signed orders); the read node's
// /markets follows with bestBid, bestAsk, spread, liquidity and (from the
// data store the CLOB feeds) lastTradePrice.
func TestReadNode_CatalogShowsTheWritersBook(t *testing.T) {
	db := pgtest.DB(t)
	wdir := t.TempDir()
	writer, _ := startRole(t, "--data-dir", wdir, "--store", db, "--role", "writer", "--ip-limits=false", "--clob-rate-limits=off")
	node, _ := startRole(t, "--data-dir", t.TempDir(), "--store", db, "--role", "data")
	tok, err := os.ReadFile(filepath.Join(wdir, "admin.token"))
	if err != nil {
		t.Fatal(err)
	}
	const (
		cond = "0x7c3db723f1d4d8cb9c550095203b686cb11e5c6b7c3db723f1d4d8cb9c550095"
		yes  = "8101"
		no   = "8102"
	)
	event := `{"id":"8100","slug":"book-event","title":"Book Event","endDate":"2030-01-01T00:00:00Z","markets":[{"id":"8101",
		"question":"Book?","conditionId":"` + cond + `","slug":"book","outcomes":"[\"Yes\", \"No\"]","clobTokenIds":"[\"` + yes + `\", \"` + no + `\"]",
		"endDate":"2030-01-01T00:00:00Z","active":true,"closed":false,"enableOrderBook":true,"acceptingOrders":true,
		"orderPriceMinTickSize":0.01,"orderMinSize":5,"bestBid":0.11,"bestAsk":0.99}]}`
	req, _ := http.NewRequest("POST", writer["admin"]+"/admin/catalog", strings.NewReader(event))
	req.Header.Set("Authorization", "Bearer "+strings.TrimSpace(string(tok)))
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Fatalf("catalog import: %d %s", resp.StatusCode, b)
	}
	if out, err := pmxAdmin(writer["admin"], wdir, "clob", "sync"); err != nil {
		t.Fatalf("clob sync: %v %s", err, out)
	}
	buyer := newClobWallet(t, "ac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80", writer["clob"])
	seller := newClobWallet(t, "59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d", writer["clob"])
	for _, a := range [][]string{{"clob", "deposit", "--address", buyer.addr, "--amount", "1000"},
		{"clob", "deposit", "--address", seller.addr, "--amount", "1000"},
		{"clob", "split", "--address", seller.addr, "--market", cond, "--amount", "100"}} {
		if out, err := pmxAdmin(writer["admin"], wdir, a...); err != nil {
			t.Fatalf("pmx admin %v: %v %s", a, err, out)
		}
	}
	place := func(w *clobWallet, side string, price int64) {
		t.Helper()
		if st, body := w.call("POST", "/order", w.order(yes, side, price, 10_000_000, false)); st != 200 {
			t.Fatalf("order: %d %s", st, body)
		}
	}
	market := func() map[string]any {
		code, body := get(t, node["catalog"]+"/markets?condition_ids="+cond)
		var ms []map[string]any
		if code != 200 || json.Unmarshal([]byte(body), &ms) != nil || len(ms) != 1 {
			return nil
		}
		return ms[0]
	}
	shows := func(what string, want map[string]any) {
		t.Helper()
		var last map[string]any
		defer func() {
			if t.Failed() {
				t.Logf("last answer: %v", last)
			}
		}()
		eventually(t, "read node shows "+what, func() bool {
			last = market()
			for k, v := range want {
				if last == nil || fmt.Sprint(last[k]) != fmt.Sprint(v) {
					return false
				}
			}
			return true
		})
	}
	// Before any order the catalog's own book fields stand.
	shows("the imported book fields", map[string]any{"bestBid": 0.11, "bestAsk": 0.99})
	place(buyer, "BUY", 450_000)
	place(buyer, "BUY", 400_000)
	place(seller, "SELL", 600_000)
	// Midpoint 0.525: the levels within 0.10 of it are 0.45 and 0.6: 4.5 + 6 USDC.
	shows("the resting book", map[string]any{"bestBid": 0.45, "bestAsk": 0.6, "spread": 0.15, "liquidityNum": 10.5})
	place(seller, "SELL", 450_000) // takes the 0.45 bid
	shows("the trade", map[string]any{"bestBid": 0.4, "bestAsk": 0.6, "lastTradePrice": 0.45, "volumeNum": 4.5})
}
