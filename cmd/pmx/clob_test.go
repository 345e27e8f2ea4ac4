package main

import (
	"encoding/json"
	"strings"
	"testing"
	"time"
)

// TestDemoCLOBBooksAreLive: a demo data dir's order-book markets are CLOB
// markets (from the catalog), the demo market makers quote them, and
// `pmx admin clob ...` drives the operator stand-ins.
func TestDemoCLOBBooksAreLive(t *testing.T) {
	dir := t.TempDir()
	urls, _ := startServe(t, "--data-dir", dir, "--demo-scale", "0.02") // large enough to have open markets
	var page struct {
		Data []struct {
			ConditionID string `json:"condition_id"`
			Tokens      []struct {
				TokenID string `json:"token_id"`
			} `json:"tokens"`
			Accepting bool `json:"accepting_orders"`
		} `json:"data"`
		NextCursor string `json:"next_cursor"`
	}
	deadline := time.Now().Add(30 * time.Second)
	var book string
	for {
		_, body := get(t, urls["clob"]+"/sampling-markets")
		if json.Unmarshal([]byte(body), &page) == nil && len(page.Data) > 0 {
			for _, m := range page.Data {
				if !m.Accepting {
					continue
				}
				_, book = get(t, urls["clob"]+"/book?token_id="+m.Tokens[0].TokenID)
				if strings.Contains(book, `"bids":[{`) && strings.Contains(book, `"asks":[{`) {
					break
				}
			}
		}
		if strings.Contains(book, `"bids":[{`) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("no live CLOB book: markets %d, last book %s", len(page.Data), book)
		}
		time.Sleep(100 * time.Millisecond)
	}
	cond := page.Data[0].ConditionID
	const addr = "0x00000000000000000000000000000000000000bb"
	steps := []struct {
		args    []string
		wantErr bool
		want    string
	}{
		{[]string{"clob", "mode"}, false, `"mode": "normal"`},
		{[]string{"clob", "deposit", "--address", addr, "--amount", "100.5"}, false, `"ok": true`},
		{[]string{"clob", "deposit", "--address", "0x00000000000000000000000000000000000000cc", "--amount", "1", "--signer", addr}, false, `"ok": true`},
		{[]string{"clob", "deposit", "--address", "0x00000000000000000000000000000000000000cc", "--amount", "1", "--signer", "0x00000000000000000000000000000000000000dd"}, true, "HTTP 400"},
		{[]string{"clob", "split", "--address", addr, "--market", cond, "--amount", "10"}, false, `"ok": true`},
		{[]string{"clob", "merge", "--address", addr, "--market", cond, "--amount", "4"}, false, `"ok": true`},
		{[]string{"clob", "account", "--address", addr}, false, `"collateral": "94500000"`},
		{[]string{"clob", "withdraw", "--address", addr, "--amount", "1000"}, true, "not enough balance"},
		{[]string{"clob", "nonce", "--address", addr}, false, `"ok": true`},
		{[]string{"clob", "address", "--address", addr, "--status", "banned"}, false, `"ok": true`},
		{[]string{"clob", "tier", "--address", addr, "--tier", "3"}, false, `"ok": true`},
		{[]string{"clob", "mode", "--set", "post_only", "--retry-after", "5"}, false, `"ok": true`},
		{[]string{"clob", "mode"}, false, `"mode": "post_only"`},
		{[]string{"clob", "mode", "--set", "sideways"}, true, "HTTP 400"},
		{[]string{"clob", "sync"}, false, `"ok": true`},
		{[]string{"clob", "tick-size", "--market", cond, "--tick", "0.005"}, true, "invalid tick size"},
		{[]string{"clob", "tick-size", "--market", cond, "--tick", "0.0001"}, false, `"ok": true`},
		{[]string{"clob", "tick-size", "--market", cond}, true, "required"},
		{[]string{"clob", "redeem", "--address", addr, "--market", cond}, true, "market not resolved"},
		{[]string{"clob", "resolve", "--market", cond, "--payouts", "0.5,0.6"}, true, "invalid payouts"},
		{[]string{"clob", "resolve", "--market", cond, "--payouts", "1,0"}, false, `"ok": true`},
		{[]string{"clob", "resolve", "--market", cond, "--payouts", "1,0"}, true, "market already resolved"},
		{[]string{"clob", "redeem", "--address", addr, "--market", cond}, false, `"paid": "6"`},
		{[]string{"clob", "resolve", "--market", cond}, true, "required"},
		{[]string{"clob", "split", "--address", addr}, true, "required"},
		{[]string{"clob", "frobnicate"}, true, "unknown command"},
	}
	for _, s := range steps {
		out, err := pmxAdmin(urls["admin"], dir, s.args...)
		if (err != nil) != s.wantErr || !strings.Contains(out, s.want) {
			t.Errorf("pmx admin %s: err=%v out=%s (want %q)", strings.Join(s.args, " "), err, out, s.want)
		}
	}
}
