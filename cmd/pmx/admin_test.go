package main

import (
	"encoding/json"
	"fmt"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"
)

// pmxAdmin runs `pmx admin` against a server's admin listener.
func pmxAdmin(adminURL, dir string, args ...string) (string, error) {
	out, err := exec.Command(pmxBin, append([]string{"admin", "--admin-url", adminURL, "--data-dir", dir}, args...)...).CombinedOutput()
	return string(out), err
}

func TestAdminCommandsDrivePerpsThroughTheAdminListener(t *testing.T) {
	dir := t.TempDir()
	urls, _ := startServe(t, "--data-dir", dir, "--demo=false")
	steps := []struct {
		args    []string
		wantErr bool
		want    string
	}{
		{[]string{"instruments", "list"}, false, "[]"},
		{[]string{"instruments", "create", "--symbol", "TSLA-USD", "--category", "equity", "--price-decimals", "2",
			"--quantity-decimals", "2", "--max-leverage", "10", "--min-notional", "5", "--max-price", "5000"}, false, `"instrument_id": 1`},
		{[]string{"instruments", "create", "--symbol", "tsla-usd", "--category", "equity", "--max-leverage", "10"}, true, "instrument exists"},
		{[]string{"instruments", "create", "--symbol", "X"}, true, "required"},
		{[]string{"instruments", "list"}, false, `"symbol": "TSLA-USD"`},
		{[]string{"deposit", "--account", "0x00000000000000000000000000000000000000aa", "--amount", "1500.25"}, false, `"deposit_id": 1`},
		{[]string{"deposit", "--account", "nope", "--amount", "1"}, true, "HTTP 400"},
		{[]string{"index", "--instrument", "1", "--price", "251.5"}, false, `"status": "ok"`},
		{[]string{"index", "--instrument", "9", "--price", "1"}, true, "instrument_not_found"},
		{[]string{"mode"}, false, `"mode": "normal"`},
		{[]string{"mode", "--set", "cancel_only", "--retry-after", "30"}, false, `"retry_after_seconds": 30`},
		{[]string{"mode"}, false, `"mode": "cancel_only"`},
		{[]string{"mode", "--set", "halted"}, true, "invalid mode"},
		{[]string{"flight"}, false, "{}"},
		{[]string{"insurance", "--amount", "2500"}, false, `"insurance": "2500"`},
		{[]string{"insurance", "--amount", "0"}, true, "invalid amount"},
		{[]string{"insurance"}, true, "required"},
		{[]string{"settle", "--instrument", "1"}, true, "settlement_invalid_state"},
		{[]string{"close-only", "--instrument", "1"}, false, `"status": "ok"`},
		{[]string{"close-only", "--instrument", "9"}, true, "instrument_not_found"},
		{[]string{"close-only"}, true, "required"},
		{[]string{"frobnicate"}, true, "unknown command"},
	}
	for _, s := range steps {
		out, err := pmxAdmin(urls["admin"], dir, s.args...)
		if (err != nil) != s.wantErr || !strings.Contains(out, s.want) {
			t.Errorf("pmx admin %s: err=%v out=%s (want %q)", strings.Join(s.args, " "), err, out, s.want)
		}
	}
	if code, body := get(t, urls["perps"]+"/v1/info/tickers?instrument_id=1"); code != 200 || !strings.Contains(body, `"index_price":"251.5"`) {
		t.Errorf("index not served: %d %s", code, body)
	}
	if code, body := get(t, urls["perps"]+"/v1/info/registered?address=0x00000000000000000000000000000000000000aa"); code != 200 || !strings.Contains(body, "true") {
		t.Errorf("deposited account not registered: %d %s", code, body)
	}
	if code, body := get(t, urls["perps"]+"/v1/info/exchange"); code != 200 || !strings.Contains(body, `"cancel_only":true`) {
		t.Errorf("cancel-only mode not on /v1/info/exchange: %d %s", code, body)
	}
	// Without the data dir's token the admin listener refuses.
	if out, err := pmxAdmin(urls["admin"], t.TempDir(), "instruments", "list"); err == nil || !strings.Contains(out, "admin token") {
		t.Errorf("no token file: err=%v out=%s", err, out)
	}
}

// TestDemoPerpsVenueIsLive: a demo data dir gets the demo instruments, and
// the market makers keep two-sided books and trade; SIGTERM stops them and
// the server cleanly.
func TestDemoPerpsVenueIsLive(t *testing.T) {
	dir := t.TempDir()
	urls, cmd := startServe(t, "--data-dir", dir, "--demo-scale", "0.003", "--demo-mm-interval", "20ms")
	var inst []struct{ Symbol string }
	if _, body := get(t, urls["perps"]+"/v1/info/instruments"); json.Unmarshal([]byte(body), &inst) != nil || len(inst) < 5 {
		t.Fatalf("demo instruments: %s", body)
	}
	// Poll until every book is two-sided and every instrument has traded
	// (bounded; the makers requote every 20 ms).
	live := func() string {
		for iid := 1; iid <= len(inst); iid++ {
			var bk struct{ Bids, Asks [][2]string }
			_, body := get(t, fmt.Sprintf("%s/v1/info/book?instrument_id=%d&depth=10", urls["perps"], iid))
			if json.Unmarshal([]byte(body), &bk) != nil || len(bk.Bids) == 0 || len(bk.Asks) == 0 {
				return "book " + body
			}
			var tr struct{ Data []any }
			_, body = get(t, fmt.Sprintf("%s/v1/info/trades?instrument_id=%d", urls["perps"], iid))
			if json.Unmarshal([]byte(body), &tr) != nil || len(tr.Data) == 0 {
				return "trades " + body
			}
		}
		return ""
	}
	why := "not polled"
	for deadline := time.Now().Add(60 * time.Second); why != "" && time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		why = live()
	}
	if why != "" {
		t.Fatalf("demo venue not live: %s", why)
	}
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	if err := cmd.Wait(); err != nil {
		t.Fatalf("serve did not stop cleanly with the market makers running: %v", err)
	}
}

func TestDemoMarketMakersCanBeDisabled(t *testing.T) {
	dir := t.TempDir()
	urls, _ := startServe(t, "--data-dir", dir, "--demo-scale", "0.003", "--demo-market-makers=false")
	if _, body := get(t, urls["perps"]+"/v1/info/instruments"); !strings.Contains(body, "XAU-USD") {
		t.Fatalf("demo instruments not seeded: %s", body)
	}
	if _, body := get(t, urls["perps"]+"/v1/info/book?instrument_id=1&depth=10"); !strings.Contains(body, `"bids":[]`) {
		t.Errorf("a book has quotes with the market makers off: %s", body)
	}
}

// TestServePerpsWindowFlags: the in-flight window flags reach the engine; a
// restart with other flags replays the journal and then switches (the admin
// route shows the windows in force); a bad value stops serve.
func TestServePerpsWindowFlags(t *testing.T) {
	dir := t.TempDir()
	urls, cmd := startServe(t, "--data-dir", dir, "--demo=false", "--perps-accept-delay", "25ms", "--perps-held-cancels=false")
	if out, err := pmxAdmin(urls["admin"], dir, "flight"); err != nil || !strings.Contains(out, `"accept_ms": 25`) || !strings.Contains(out, `"no_held": true`) {
		t.Errorf("flight: err=%v out=%s", err, out)
	}
	_ = cmd.Process.Kill()
	_ = cmd.Wait()
	urls, _ = startServe(t, "--data-dir", dir, "--demo=false", "--perps-taker-delay", "20ms")
	if out, err := pmxAdmin(urls["admin"], dir, "flight"); err != nil || strings.TrimSpace(out) != "{\n  \"taker_ms\": 20\n}" {
		t.Errorf("flight after restart: err=%v out=%s", err, out)
	}
	out, err := exec.Command(pmxBin, "serve", "--data-dir", t.TempDir(), "--perps-taker-delay", "-1ms").CombinedOutput()
	if err == nil || !strings.Contains(string(out), "perps-taker-delay") {
		t.Errorf("negative delay: err=%v out=%s", err, out)
	}
}
