package perpshttp

import (
	"bufio"
	"io"
	"log/slog"
	"net/http/httptest"
	"os"
	"os/exec"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"
)

// TestKillRestartKeepsFundingAndLiquidation: a child exchange settles
// funding every second and liquidates a long whose mark fell below
// maintenance (the insurance fund takes it); after SIGKILL the reopened
// journal holds every funding charge that was read before the kill, with
// the same values, and the same liquidation fill.
func TestKillRestartKeepsFundingAndLiquidation(t *testing.T) {
	if testing.Short() {
		t.Skip("subprocess test")
	}
	dir := t.TempDir()
	cmd := exec.Command(os.Args[0], "-test.run=^TestKillHelper$", "-test.v")
	cmd.Env = append(os.Environ(), "PMX_PERPS_KILL_DIR="+dir, "PMX_PERPS_KILL_FUNDING=1s")
	out, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	sc := bufio.NewScanner(out)
	var urls []string
	for sc.Scan() {
		if f := strings.Fields(sc.Text()); len(f) == 3 && f[0] == "URLS" {
			urls = f[1:]
			break
		}
	}
	if urls == nil {
		t.Fatal("child printed no URLs")
	}
	go io.Copy(io.Discard, out)

	e := &env{t: t, ms: new(atomic.Int64), api: &httptest.Server{URL: urls[0]}, admin: &httptest.Server{URL: urls[1]}}
	e.ms.Store(time.Now().UnixMilli())
	e.instrument()
	e.adminPost("/admin/perps/index", `{"instrument_id":1,"price":"60000"}`)
	e.adminPost("/admin/perps/insurance", `{"amount":"1000"}`)
	long, short := e.trader(1, "4000"), e.trader(2, "100000")
	if code, body := long.setLeverage(1, 10, true); code != 200 {
		t.Fatalf("leverage: %d %s", code, body)
	}
	short.placeOK(ord{iid: 1, p: "60000", qty: "0.5"})
	long.placeOK(ord{iid: 1, buy: true, p: "60000", qty: "0.5"})
	before := long.waitFunding(2) // the child's real clock: two settlements, a second apart
	e.adminPost("/admin/perps/index", `{"instrument_id":1,"price":"53000"}`)
	liq := long.waitFills(2)[0]
	if !liq.Liquidation {
		t.Fatalf("no liquidation fill: %+v", liq)
	}
	before = long.waitFunding(len(before.Data))
	cmd.Process.Signal(syscall.SIGKILL)
	cmd.Wait()

	e.ms.Store(time.Now().UnixMilli()) // the charges carry the child's real clock; end defaults to now
	e2 := &env{t: t, dir: dir, ms: e.ms}
	e2.opt = Options{Log: slog.New(slog.NewTextHandler(io.Discard, nil)), Clock: func() time.Time { return time.UnixMilli(e2.ms.Load()) }}
	e2.start()
	long.e, short.e = e2, e2
	after := long.waitFunding(len(before.Data))
	got := map[uint64]fundingRow{}
	for _, r := range after.Data {
		got[r.ID] = r
	}
	for _, r := range before.Data {
		if got[r.ID] != r {
			t.Errorf("charge %d read before the kill %+v, after the restart %+v", r.ID, r, got[r.ID])
		}
	}
	if got := long.waitFills(2)[0]; got != liq {
		t.Errorf("liquidation fill before the kill %+v, after the restart %+v", liq, got)
	}
	long.waitInLiquidation(false)
	short.waitInLiquidation(false)
	t.Logf("%d charges before the kill, %d after the restart", len(before.Data), len(after.Data))
}
