package main

import (
	"bufio"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// These tests drive the real binary: build it once, run it as a user would.

var pmxBin string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "pmx-bin")
	if err != nil {
		panic(err)
	}
	pmxBin = filepath.Join(dir, "pmx")
	if out, err := exec.Command("go", "build", "-o", pmxBin, ".").CombinedOutput(); err != nil {
		panic(string(out))
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// startServe runs `pmx serve` on ephemeral ports and returns the listener
// URLs it printed (name -> URL) and the process, once it printed "ready".
func startServe(t *testing.T, args ...string) (map[string]string, *exec.Cmd) {
	t.Helper()
	base := []string{"serve", "--data-addr", "127.0.0.1:0", "--catalog-addr", "127.0.0.1:0",
		"--clob-addr", "127.0.0.1:0", "--perps-addr", "127.0.0.1:0", "--admin-addr", "127.0.0.1:0"}
	cmd := exec.Command(pmxBin, append(base, args...)...)
	stdout, _ := cmd.StdoutPipe()
	cmd.Stderr = io.Discard
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	urls := map[string]string{}
	sc := bufio.NewScanner(stdout)
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) == 2 && strings.HasPrefix(f[1], "http://") {
			urls[f[0]] = f[1]
		}
		if strings.HasPrefix(sc.Text(), "ready in ") {
			break
		}
	}
	go io.Copy(io.Discard, stdout)
	if urls["data"] == "" || urls["admin"] == "" {
		t.Fatalf("serve printed no listener URLs: %v", urls)
	}
	return urls, cmd
}

func get(t *testing.T, url string, hdr ...string) (int, string) {
	t.Helper()
	req, _ := http.NewRequest("GET", url, nil)
	if len(hdr) == 2 {
		req.Header.Set(hdr[0], hdr[1])
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

func TestServeWithDemoAnswersOnEveryListenerAndLocksTheDataDir(t *testing.T) {
	dir := t.TempDir()
	urls, cmd := startServe(t, "--data-dir", dir, "--demo-scale", "0.005")
	for name, u := range urls {
		if code, body := get(t, u+"/ok"); code != 200 || body != `{"data":"ok"}` {
			t.Errorf("%s /ok: %d %s", name, code, body)
		}
	}
	if code, body := get(t, urls["data"]+"/v2/trades?limit=1"); code != 200 || !strings.Contains(body, `"proxy_wallet"`) {
		t.Errorf("demo world not served: %d %s", code, body)
	}
	if code, body := get(t, urls["perps"]+"/v1/info/time"); code != 200 || !strings.Contains(body, "time") {
		t.Errorf("perps /v1/info/time: %d %s", code, body)
	}
	if code, _ := get(t, urls["clob"]+"/time"); code != 200 {
		t.Errorf("clob /time: %d", code)
	}
	if code, body := get(t, urls["clob"]+"/auth/api-keys"); code != 401 || !strings.Contains(body, `"error"`) {
		t.Errorf("clob L2 route without credentials: %d %s", code, body)
	}
	// One source of truth: a market seen in a data-service feed is a catalog market.
	var feed struct {
		Data []struct {
			ConditionID string `json:"condition_id"`
		} `json:"data"`
	}
	_, body := get(t, urls["data"]+"/v2/trades?limit=1")
	if err := json.Unmarshal([]byte(body), &feed); err != nil || len(feed.Data) != 1 {
		t.Fatalf("trades: %v %s", err, body)
	}
	if code, body := get(t, urls["catalog"]+"/markets?condition_ids="+feed.Data[0].ConditionID); code != 200 || !strings.Contains(body, feed.Data[0].ConditionID) {
		t.Errorf("catalog lookup of a traded market: %d %s", code, body)
	}
	if code, _ := get(t, urls["admin"]+"/admin/ledger"); code != 401 {
		t.Errorf("admin without token: %d", code)
	}
	token, err := os.ReadFile(filepath.Join(dir, "admin.token"))
	if err != nil {
		t.Fatal(err)
	}
	if code, body := get(t, urls["admin"]+"/metrics"); code != 200 || !strings.Contains(body, "pmx_http_requests_total") ||
		!strings.Contains(body, "pmx_perps_signers_recovered_total") {
		t.Errorf("metrics: %d", code)
	}
	if code, _ := get(t, urls["admin"]+"/admin/nothing", "Authorization", "Bearer "+strings.TrimSpace(string(token))); code != 404 {
		t.Errorf("admin with token, unknown route: %d", code)
	}
	// Go profiles are an operator's: behind the token.
	if code, _ := get(t, urls["admin"]+"/debug/pprof/goroutine?debug=1"); code != 401 {
		t.Errorf("pprof without token: %d", code)
	}
	if code, body := get(t, urls["admin"]+"/debug/pprof/goroutine?debug=1", "Authorization", "Bearer "+strings.TrimSpace(string(token))); code != 200 || !strings.Contains(body, "goroutine profile") {
		t.Errorf("pprof with token: %d", code)
	}
	if code, _ := get(t, urls["admin"]+"/debug/pprof/trace?seconds=0.1"); code != 401 {
		t.Errorf("execution trace without token: %d", code)
	}
	if code, body := get(t, urls["admin"]+"/debug/pprof/trace?seconds=0.1", "Authorization", "Bearer "+strings.TrimSpace(string(token))); code != 200 || !strings.HasPrefix(body, "go 1.") {
		t.Errorf("execution trace with token: %d %.20q", code, body)
	}

	// A second server on the same data dir fails with a clear message.
	out, err := exec.Command(pmxBin, "serve", "--data-dir", dir, "--data-addr", "127.0.0.1:0", "--admin-addr", "127.0.0.1:0").CombinedOutput()
	if err == nil || !strings.Contains(string(out), "locked") {
		t.Errorf("second serve: err=%v out=%s", err, out)
	}

	// SIGTERM shuts down gracefully with exit status 0.
	_ = cmd.Process.Signal(syscall.SIGTERM)
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("exit after SIGTERM: %v", err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("no exit after SIGTERM")
	}
}

func TestDemoFileIngestsIntoAnEmptyDataDir(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "world.ndjson")
	if out, err := exec.Command(pmxBin, "demo", "--out", file, "--seed", "3", "--scale", "0.003", "--now", "1795000000").CombinedOutput(); err != nil {
		t.Fatalf("demo: %v %s", err, out)
	}
	data := filepath.Join(dir, "data")
	out, err := exec.Command(pmxBin, "ingest", "--data-dir", data, file).CombinedOutput()
	if err != nil || !strings.Contains(string(out), "applied") {
		t.Fatalf("ingest: %v %s", err, out)
	}
	bad := filepath.Join(dir, "bad.ndjson")
	os.WriteFile(bad, []byte("{\"kind\":\"profile\",\"address\":\"0x0000000000000000000000000000000000000001\",\"name\":\"a\"}\n{\"kind\":\"nope\"}\n"), 0o600)
	out, err = exec.Command(pmxBin, "ingest", "--data-dir", data, bad).CombinedOutput()
	if err == nil || !strings.Contains(string(out), "line 2") {
		t.Fatalf("bad ingest must fail naming line 2: %v %s", err, out)
	}
	doc := filepath.Join(dir, "catalog.json")
	os.WriteFile(doc, []byte(`[{"id": "424242", "slug": "imported-event", "title": "Imported event",
	  "markets": [{"id": "777", "question": "Imported?", "conditionId": "0x`+strings.Repeat("ab", 32)+`",
	    "slug": "imported", "outcomes": "[\"Yes\", \"No\"]", "clobTokenIds": "[\"5\", \"6\"]"}]}]`), 0o600)
	out, err = exec.Command(pmxBin, "ingest", "--data-dir", data, doc).CombinedOutput()
	if err != nil || !strings.Contains(string(out), "imported 1 catalog events") {
		t.Fatalf("catalog ingest: %v %s", err, out)
	}
	urls, _ := startServe(t, "--data-dir", data, "--demo=false")
	if code, body := get(t, urls["catalog"]+"/events/424242"); code != 200 || !strings.Contains(body, "Imported event") {
		t.Errorf("imported catalog event not served: %d %s", code, body)
	}
	if code, body := get(t, urls["data"]+"/v2/trades?limit=1"); code != 200 || !strings.Contains(body, `"proxy_wallet"`) {
		t.Errorf("ingested world not served: %d %s", code, body)
	}
}

func postLedger(t *testing.T, adminURL, token, body string) {
	t.Helper()
	req, _ := http.NewRequest("POST", adminURL+"/admin/ledger", strings.NewReader(body))
	req.Header.Set("Authorization", "Bearer "+token)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != 200 {
		t.Fatalf("POST /admin/ledger: %d %s", resp.StatusCode, b)
	}
}

// TestCatalogLiveFieldsChangeAfterATradeIsIngested: one source of truth — the
// catalog market's volume and prices come from the data store.
func TestCatalogLiveFieldsChangeAfterATradeIsIngested(t *testing.T) {
	dir := t.TempDir()
	urls, _ := startServe(t, "--data-dir", dir, "--demo=false")
	tok, err := os.ReadFile(filepath.Join(dir, "admin.token"))
	if err != nil {
		t.Fatal(err)
	}
	token := strings.TrimSpace(string(tok))
	cond := "0x" + strings.Repeat("cd", 32)
	postLedger(t, urls["admin"], token, `{"kind":"market","condition_id":"`+cond+`","question":"Live?","slug":"live","event_id":7,"event_slug":"ev","event_title":"Ev","category":"crypto","outcomes":["Yes","No"],"token_ids":["71","72"],"end_date":"2030-01-01T00:00:00Z"}`+"\n")
	market := func() map[string]any {
		t.Helper()
		code, body := get(t, urls["catalog"]+"/markets?condition_ids="+cond)
		var ms []map[string]any
		if code != 200 || json.Unmarshal([]byte(body), &ms) != nil || len(ms) != 1 {
			t.Fatalf("catalog market: %d %s", code, body)
		}
		return ms[0]
	}
	before := market()
	now := time.Now().Unix()
	// The maker splits first: nobody sells shares they do not hold (docs/ledger-events.md).
	trade := `{"kind":"split","tx_hash":"0x` + strings.Repeat("02", 32) + `","log_index":0,"block_number":10,"timestamp":` +
		strconv.FormatInt(now-61, 10) + `,"user":"0x` + strings.Repeat("0a", 20) + `","condition_id":"` + cond + `","amount":"40"}` + "\n" +
		`{"kind":"trade","tx_hash":"0x` + strings.Repeat("01", 32) + `","log_index":1,"block_number":10,"timestamp":` +
		strconv.FormatInt(now-60, 10) + `,"token_id":"71","maker":"0x` + strings.Repeat("0a", 20) + `","taker":"0x` +
		strings.Repeat("0b", 20) + `","side":"BUY","price":"0.25","size":"40"}` + "\n"
	postLedger(t, urls["admin"], token, trade)
	after := market()
	if after["volume"] == before["volume"] || after["volume"] != "10" {
		t.Errorf("volume %v -> %v, want 10", before["volume"], after["volume"])
	}
	if after["lastTradePrice"] != 0.25 {
		t.Errorf("lastTradePrice %v", after["lastTradePrice"])
	}
}
