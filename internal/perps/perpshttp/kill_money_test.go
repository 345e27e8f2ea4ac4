package perpshttp

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"
)

// Withdrawals and transfers acknowledged before SIGKILL are all present
// after restart, each exactly once, and resending any of them executes
// nothing (the same id comes back).
func TestKillRestartKeepsAcknowledgedMoneyExactlyOnce(t *testing.T) {
	if testing.Short() {
		t.Skip("subprocess test")
	}
	dir := t.TempDir()
	cmd := exec.Command(os.Args[0], "-test.run=^TestKillHelper$", "-test.v")
	cmd.Env = append(os.Environ(), "PMX_PERPS_KILL_DIR="+dir)
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
	a, b := e.trader(1, "1000000"), e.trader(2, "")
	dest := newKey(t, 77)

	type sent struct {
		path, body string
		id         uint64
	}
	var mu sync.Mutex
	var acked []sent
	var wg sync.WaitGroup
	for g := 0; g < 2; g++ {
		wg.Add(1)
		go func(g int) {
			defer wg.Done()
			for i := 0; ; i++ {
				path, body := "/v1/account/withdraw", ""
				mu.Lock() // the salt counter and the signer's clock are shared
				if g == 0 {
					body = a.withdrawBody(2_000_000, dest)
				} else {
					path = "/v1/account/internal-transfer"
					salt, ts := e.salt.Add(1), e.now()
					compact := []any{"internalTransfer", []any{a.owner.hex, "0xC011a7E12a19f7B1f670d46F03B03f3342E82DFB", "1", b.owner.hex}}
					body = fmt.Sprintf(`{"op":{"type":"internalTransfer","args":{"account":%q,"token":"0xC011a7E12a19f7B1f670d46F03B03f3342E82DFB","amount":"1","to":%q}},"sig":%q,"salt":%d,"ts":%d,"label":"k"}`,
						a.owner.hex, b.owner.hex, a.owner.sign(tOpDigest(compact, salt, ts)), salt, ts)
				}
				mu.Unlock()
				res, err := http.Post(e.api.URL+path, "application/json", strings.NewReader(body))
				if err != nil {
					return // the server is gone
				}
				rb, _ := io.ReadAll(res.Body)
				res.Body.Close()
				var ans moneyAns
				if err := json.Unmarshal(rb, &ans); err != nil || res.StatusCode != 200 {
					t.Errorf("%s: %d %s", path, res.StatusCode, rb)
					cmd.Process.Signal(syscall.SIGKILL)
					return
				}
				id := ans.WithdrawID + ans.TransferID
				mu.Lock()
				acked = append(acked, sent{path, body, id})
				if len(acked) == 200 {
					cmd.Process.Signal(syscall.SIGKILL)
				}
				mu.Unlock()
			}
		}(g)
	}
	cmd.Wait()
	wg.Wait()
	if len(acked) < 200 {
		t.Fatalf("only %d acknowledged", len(acked))
	}

	e2 := &env{t: t, dir: dir, ms: e.ms}
	e2.opt = Options{Log: slog.New(slog.NewTextHandler(io.Discard, nil)), Clock: func() time.Time { return time.UnixMilli(e2.ms.Load()) }}
	e2.start()
	a.e, b.e = e2, e2
	var nw, nt int64
	for _, s := range acked {
		if strings.Contains(s.path, "withdraw") {
			nw++
		} else {
			nt++
		}
	}
	// Balances: every acknowledged command executed once, plus at most the
	// one in flight per sender at the kill.
	bal, recv := micro(t, a.balance()), micro(t, b.balance())
	execT, rest := recv/1e6, 1000000e6-bal-recv
	execW := rest / 2e6
	if recv%1e6 != 0 || rest%2e6 != 0 || execT < nt || execT > nt+1 || execW < nw || execW > nw+1 {
		t.Fatalf("balances %d %d: %d withdrawals and %d transfers executed, %d and %d acknowledged", bal, recv, execW, execT, nw, nt)
	}
	// Resending every acknowledged request executes nothing.
	for _, s := range acked {
		code, ans := a.post(s.path, s.body)
		if code != 200 || ans.WithdrawID+ans.TransferID != s.id {
			t.Fatalf("resend of %s %d: %d %+v", s.path, s.id, code, ans)
		}
	}
	if bal2, recv2 := micro(t, a.balance()), micro(t, b.balance()); bal2 != bal || recv2 != recv {
		t.Fatalf("resends moved money: %d %d → %d %d", bal, recv, bal2, recv2)
	}
	t.Logf("%d withdrawals and %d transfers acknowledged; all resends answered with their first ids", nw, nt)
}
