package main

import (
	"encoding/json"
	"testing"
	"time"

	"pmx/internal/clob/clobsvc"
)

// TestDemoVenueKeepsTrading: on a demo data dir the CLOB taker bots trade
// against the demo market makers, so /v2/trades read twice shows rows the
// first read did not (new trades), and the engine's trades reach the data
// service. --demo-takers=0 turns them off (the flag is checked by config).
func TestDemoVenueKeepsTrading(t *testing.T) {
	urls, _ := startServe(t, "--data-dir", t.TempDir(), "--demo-scale", "0.02", "--demo-taker-interval", "50ms")
	path := urls["data"] + "/v2/trades?limit=500&user=" + clobsvc.TakerAddress(0)
	read := func() map[string]bool {
		_, body := get(t, path)
		var page struct {
			Data []struct {
				Tx string `json:"transaction_hash"`
			} `json:"data"`
		}
		if err := json.Unmarshal([]byte(body), &page); err != nil {
			t.Fatalf("%s: %v", body, err)
		}
		seen := map[string]bool{}
		for _, r := range page.Data {
			seen[r.Tx] = true
		}
		return seen
	}
	var first map[string]bool
	for deadline := time.Now().Add(60 * time.Second); ; time.Sleep(100 * time.Millisecond) {
		if first = read(); len(first) > 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the demo takers never traded")
		}
	}
	for deadline := time.Now().Add(60 * time.Second); ; time.Sleep(100 * time.Millisecond) {
		for tx := range read() {
			if !first[tx] {
				return
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("no new trade after the first read of %d", len(first))
		}
	}
}
