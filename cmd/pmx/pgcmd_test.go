package main

import (
	"encoding/json"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"pmx/internal/pgsql/pgtest"
)

// dataOf is an answer's rows: next_cursor differs between deployments (each
// signs with its own cursor key), the rows may not.
func dataOf(t *testing.T, body string) any {
	t.Helper()
	var v any
	if err := json.Unmarshal([]byte(body), &v); err != nil {
		t.Fatalf("%v: %s", err, body)
	}
	if m, ok := v.(map[string]any); ok && m["data"] != nil {
		return m["data"]
	}
	return v
}

func TestCopy_AnEmbeddedDataDirServesTheSameOnPostgreSQL(t *testing.T) {
	db := pgtest.DB(t)
	dir := t.TempDir()
	file := filepath.Join(dir, "world.ndjson")
	if out, err := exec.Command(pmxBin, "demo", "--out", file, "--seed", "3", "--scale", "0.003", "--now", "1795000000").CombinedOutput(); err != nil {
		t.Fatalf("demo: %v %s", err, out)
	}
	data := filepath.Join(dir, "data")
	if out, err := exec.Command(pmxBin, "ingest", "--data-dir", data, file).CombinedOutput(); err != nil {
		t.Fatalf("ingest: %v %s", err, out)
	}
	if out, err := exec.Command(pmxBin, "migrate", "--store", db).CombinedOutput(); err != nil || !strings.Contains(string(out), "migrated") {
		t.Fatalf("migrate: %v %s", err, out)
	}
	out, err := exec.Command(pmxBin, "copy", "--from", "file:"+data, "--to", db).CombinedOutput()
	if err != nil || !strings.Contains(string(out), "copied") {
		t.Fatalf("copy: %v %s", err, out)
	}
	// A second copy into the now non-empty database is refused.
	if out, err := exec.Command(pmxBin, "copy", "--from", "file:"+data, "--to", db).CombinedOutput(); err == nil || !strings.Contains(string(out), "not empty") {
		t.Fatalf("second copy: %v %s", err, out)
	}
	file1, _ := startServe(t, "--data-dir", data, "--demo=false")
	pg, _ := startRole(t, "--data-dir", t.TempDir(), "--store", db, "--role", "data")
	_, trades := get(t, file1["data"]+"/v2/trades?limit=5&taker_only=false")
	var page struct {
		Data []struct {
			Wallet string `json:"proxy_wallet"`
			Cond   string `json:"condition_id"`
		} `json:"data"`
	}
	if err := json.Unmarshal([]byte(trades), &page); err != nil || len(page.Data) == 0 {
		t.Fatalf("trades: %v %s", err, trades)
	}
	w, c := page.Data[0].Wallet, page.Data[0].Cond
	for _, path := range []string{"/v2/trades?limit=50&taker_only=false", "/v2/activity?user=" + w, "/v2/positions?user=" + w,
		"/v2/value?user=" + w, "/v2/user-pnl?user=" + w + "&interval=all", "/v2/leaderboard?time_period=all",
		"/v2/holders?condition=" + c, "/v2/builders/leaderboard?time_period=all", "/v2/status"} {
		ca, a := get(t, file1["data"]+path)
		cb, b := get(t, pg["data"]+path)
		if ca != 200 || ca != cb || !reflect.DeepEqual(dataOf(t, a), dataOf(t, b)) {
			t.Errorf("%s: file %d %.300s\npostgres %d %.300s", path, ca, a, cb, b)
		}
	}
	for _, path := range []string{"/events?limit=20", "/markets?limit=20&condition_ids=" + c} {
		ca, a := get(t, file1["catalog"]+path)
		cb, b := get(t, pg["catalog"]+path)
		if ca != 200 || ca != cb || a != b {
			t.Errorf("catalog %s: file %d %.300s\npostgres %d %.300s", path, ca, a, cb, b)
		}
	}
}
