package perpshttp

import (
	"bufio"
	"fmt"
	"io"
	"log/slog"
	"net"
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

// TestKillHelper is the child of TestKillRestart: it serves a perps exchange
// on loopback until it is killed.
func TestKillHelper(t *testing.T) {
	dir := os.Getenv("PMX_PERPS_KILL_DIR")
	if dir == "" {
		t.Skip("child process of TestKillRestart only")
	}
	opt := Options{Dir: dir, Log: slog.New(slog.NewTextHandler(io.Discard, nil))}
	if d, err := time.ParseDuration(os.Getenv("PMX_PERPS_KILL_FUNDING")); err == nil {
		opt.FundingInterval = d // TestKillRestartKeepsFundingAndLiquidation
	}
	srv, err := New(opt)
	if err != nil {
		t.Fatal(err)
	}
	api, _ := net.Listen("tcp", "127.0.0.1:0")
	adm, _ := net.Listen("tcp", "127.0.0.1:0")
	go http.Serve(api, srv.Handler())
	go http.Serve(adm, srv.AdminHandler())
	fmt.Printf("URLS http://%s http://%s\n", api.Addr(), adm.Addr())
	time.Sleep(10 * time.Minute) // bounded: the parent kills it long before
}

// Orders acknowledged before SIGKILL are all present after restart.
func TestKillRestart(t *testing.T) {
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
	e.instrument()
	a := e.trader(1, "100000000")

	// Four placers; kill once 150 orders are acknowledged, mid-stream.
	var mu sync.Mutex
	var acked []uint64
	var wg sync.WaitGroup
	stop := make(chan struct{})
	for g := 0; g < 4; g++ {
		wg.Add(1)
		go func(g int) {
			defer wg.Done()
			for i := 0; ; i++ {
				select {
				case <-stop:
					return
				default:
				}
				code, body := a.placeRawQuiet(ord{iid: 1, buy: g%2 == 0, p: fmt.Sprint(1000 + (g%2)*1000 + i%50), qty: "1"})
				if code != 200 {
					return // the server is gone
				}
				var id uint64
				if _, err := fmt.Sscanf(body, `[{"status":"ok","oid":%d`, &id); err == nil {
					mu.Lock()
					acked = append(acked, id)
					n := len(acked)
					mu.Unlock()
					if n == 150 {
						cmd.Process.Signal(syscall.SIGKILL)
					}
				}
			}
		}(g)
	}
	cmd.Wait()
	close(stop)
	wg.Wait()
	if len(acked) < 150 {
		t.Fatalf("only %d acknowledged", len(acked))
	}

	// Reopen the same directory in this process.
	e2 := &env{t: t, dir: dir, ms: e.ms}
	e2.opt = Options{Log: slog.New(slog.NewTextHandler(io.Discard, nil)), Clock: func() time.Time { return time.UnixMilli(e2.ms.Load()) }}
	e2.start()
	a.e = e2
	var open []orderRow
	a.read("/v1/account/open-orders", &open)
	have := map[uint64]bool{}
	for _, o := range open {
		have[o.OrderID] = true
	}
	missing := 0
	for _, id := range acked {
		if !have[id] {
			missing++
		}
	}
	if missing > 0 {
		t.Fatalf("%d of %d acknowledged orders missing after SIGKILL (open %d)", missing, len(acked), len(open))
	}
	t.Logf("%d acknowledged, %d present after restart", len(acked), len(open))
}

// placeRawQuiet is placeRaw without failing the test on transport errors.
func (tr *trader) placeRawQuiet(o ord) (int, string) {
	e := tr.e
	salt, ts := e.salt.Add(1), uint64(time.Now().UnixMilli())
	sig := tr.proxy.sign(tOpDigest([]any{"createOrders", []any{o.compact()}}, salt, ts))
	body := fmt.Sprintf(`{"op":{"type":"createOrders","args":[%s]},"sig":%q,"salt":%d,"ts":%d}`, o.keyed(), sig, salt, ts)
	res, err := http.Post(e.api.URL+"/v1/trade/orders", "application/json", strings.NewReader(body))
	if err != nil {
		return 0, ""
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return res.StatusCode, string(b)
}
