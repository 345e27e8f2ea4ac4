package clobhttp_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"pmx/internal/clob/clob"
	"pmx/internal/clob/clobengine"
	"pmx/internal/clob/clobhttp"
	"pmx/internal/clob/clobsql"
	"pmx/internal/clob/clobsvc"
	"pmx/internal/data/sqlite"
)

// openDurable serves the exchange and its key store from dir (as pmx
// serve does: the journal under dir/clob, keys in dir/pmx.db).
func openDurable(t testing.TB, dir string) (*clobsvc.Service, http.Handler, func()) {
	db, err := sqlite.OpenPool(filepath.Join(dir, "pmx.db"), 4)
	if err != nil {
		t.Fatal(err)
	}
	st, err := clobsql.New(context.Background(), db)
	if err != nil {
		t.Fatal(err)
	}
	svc := clobsvc.Open(clobsvc.Options{Dir: filepath.Join(dir, "clob"), SyncEvery: -1, Limits: "off",
		Markets: func(context.Context) ([]clob.Market, error) { return testMarkets(), nil }})
	<-svc.Ready()
	if err := svc.Err(); err != nil {
		t.Fatal(err)
	}
	h, err := clobhttp.New(clobhttp.Options{Store: st, MasterKey: []byte(strings.Repeat("k", 32)), Service: svc})
	if err != nil {
		t.Fatal(err)
	}
	return svc, h, func() { svc.Close(); db.Close() }
}

// TestCLOBKillHelper is the child of TestKillRestart: it serves the
// exchange on loopback until it is killed.
func TestCLOBKillHelper(t *testing.T) {
	dir := os.Getenv("PMX_CLOB_KILL_DIR")
	if dir == "" {
		t.Skip("child process of TestKillRestart only")
	}
	svc, h, _ := openDurable(t, dir)
	for _, p := range []string{priv0, priv1} {
		addr := newWallet(t, p).addr
		var bal int64
		_ = svc.View(func(m *clobengine.Machine) { bal = m.Balance(addr, "") })
		if bal == 0 {
			svc.Submit(&clobengine.Command{Op: clobengine.OpDeposit, Addr: addr, Amount: 1_000_000_000_000})
			svc.Submit(&clobengine.Command{Op: clobengine.OpSplit, Addr: addr, Cond: condA, Amount: 100_000_000_000})
		}
	}
	ln, _ := net.Listen("tcp", "127.0.0.1:0")
	go http.Serve(ln, h)
	fmt.Printf("URL http://%s\n", ln.Addr())
	time.Sleep(5 * time.Minute) // bounded: the parent kills it long before
}

func startChild(t *testing.T, dir string) (*exec.Cmd, string) {
	cmd := exec.Command(os.Args[0], "-test.run=^TestCLOBKillHelper$", "-test.v")
	cmd.Env = append(os.Environ(), "PMX_CLOB_KILL_DIR="+dir)
	out, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	sc := bufio.NewScanner(out)
	for sc.Scan() {
		if f := strings.Fields(sc.Text()); len(f) == 2 && f[0] == "URL" {
			go io.Copy(io.Discard, out)
			return cmd, f[1]
		}
	}
	t.Fatal("child printed no URL")
	return nil, ""
}

// realTrader signs with the real clock against a URL.
type realTrader struct {
	w   wallet
	c   creds
	url string
}

func (r *realTrader) call(method, path, body string) (int, []byte, error) {
	p := path
	if i := strings.IndexByte(p, '?'); i >= 0 {
		p = p[:i]
	}
	req, _ := http.NewRequest(method, r.url+path, strings.NewReader(body))
	for k, v := range l2(r.w.addr, r.c, time.Now().Unix(), method, p, body) {
		req.Header[k] = v
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		return 0, nil, err
	}
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	return res.StatusCode, b, err
}

// acks collects what the exchange acknowledged.
type acks struct {
	mu       sync.Mutex
	orders   []string
	canceled []string
	trades   []string
}

// work places (and sometimes cancels) orders from two traders until stop
// closes or the server goes away; it returns once every worker has.
func work(trs []*realTrader, a *acks, stop <-chan struct{}, onAck func(n int)) {
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			tr := trs[g%2]
			for i := 0; ; i++ {
				select {
				case <-stop:
					return
				default:
				}
				side, cents := "BUY", int64(30+(i*7+g)%20)
				if g%2 == 1 {
					side, cents = "SELL", int64(45+(i*5+g)%20)
				}
				wire, id := tr.w.sign(limitOrder(yesA, side, cents, 5+int64(i%3)))
				st, body, err := tr.call("POST", "/order", fmt.Sprintf(`{"order":%s,"owner":%q,"orderType":"GTC"}`, wire, tr.c.APIKey))
				if err != nil || st >= 500 {
					return
				}
				var o orderResp
				if st != 200 || json.Unmarshal(body, &o) != nil || !o.Success {
					continue
				}
				a.mu.Lock()
				a.orders = append(a.orders, id)
				a.trades = append(a.trades, o.TradeIDs...)
				n := len(a.orders)
				a.mu.Unlock()
				if i%4 == 3 {
					st, body, err := tr.call("DELETE", "/order", `{"orderID":"`+id+`"}`)
					if err != nil {
						return
					}
					var c struct{ Canceled []string }
					if st == 200 && json.Unmarshal(body, &c) == nil {
						a.mu.Lock()
						a.canceled = append(a.canceled, c.Canceled...)
						a.mu.Unlock()
					}
				}
				if onAck != nil {
					onAck(n)
				}
			}
		}()
	}
	wg.Wait()
}

// observe reads what a client can see: both books, balances, open orders.
func observe(t *testing.T, url string, trs []*realTrader) string {
	var sb strings.Builder
	for _, tok := range []string{yesA, noA} {
		res, err := http.Get(url + "/book?token_id=" + tok)
		if err != nil {
			t.Fatal(err)
		}
		var b map[string]any
		json.NewDecoder(res.Body).Decode(&b)
		res.Body.Close()
		fmt.Fprintln(&sb, b["bids"], b["asks"], b["last_trade_price"])
	}
	for _, tr := range trs {
		for _, q := range []string{"asset_type=COLLATERAL", "asset_type=CONDITIONAL&token_id=" + yesA} {
			_, b, _ := tr.call("GET", "/balance-allowance?"+q, "")
			var m map[string]any
			json.Unmarshal(b, &m)
			fmt.Fprintln(&sb, m["balance"])
		}
		_, b, _ := tr.call("GET", "/data/orders", "")
		var p struct{ Data []map[string]any }
		json.Unmarshal(b, &p)
		for _, o := range p.Data {
			fmt.Fprintln(&sb, o["id"], o["size_matched"], o["status"])
		}
	}
	return sb.String()
}

// TestKillRestart: everything acknowledged before a SIGKILL (orders,
// cancels, trades) is there after a restart, and a quiescent kill restarts
// to the same books, balances and open orders.
func TestKillRestart(t *testing.T) {
	if testing.Short() {
		t.Skip("subprocess test")
	}
	dir := t.TempDir()
	cmd, url := startChild(t, dir)
	var trs []*realTrader
	for _, p := range []string{priv0, priv1} {
		w := newWallet(t, p)
		e := &env{srv: &httptest.Server{URL: url}}
		trs = append(trs, &realTrader{w: w, c: e.do(t, "POST", "/auth/api-key", w.l1(time.Now().Unix(), 0), "").creds(t), url: url})
	}

	// Phase 1: a quiescent kill restarts to exactly what clients saw.
	var a acks
	stop := make(chan struct{})
	var once sync.Once
	work(trs, &a, stop, func(n int) {
		if n >= 120 {
			once.Do(func() { close(stop) })
		}
	})
	before := observe(t, url, trs)
	cmd.Process.Signal(syscall.SIGKILL)
	cmd.Wait()
	cmd, url = startChild(t, dir)
	for _, tr := range trs {
		tr.url = url
	}
	if after := observe(t, url, trs); after != before {
		t.Fatalf("state changed across SIGKILL:\nbefore:\n%s\nafter:\n%s", before, after)
	}

	// Phase 2: kill mid-stream, once 80 more orders are acknowledged.
	var b acks
	work(trs, &b, make(chan struct{}), func(n int) {
		if n == 80 {
			cmd.Process.Signal(syscall.SIGKILL)
		}
	})
	cmd.Wait()
	if len(b.orders) < 80 {
		t.Fatalf("only %d acknowledged", len(b.orders))
	}
	svc, h, closeAll := openDurable(t, dir)
	defer closeAll()
	srv := httptest.NewServer(h)
	defer srv.Close()
	for _, tr := range trs {
		tr.url = srv.URL
	}
	for _, set := range []*acks{&a, &b} {
		for _, id := range set.orders {
			found := false
			for _, tr := range trs {
				if st, _, _ := tr.call("GET", "/data/order/"+id, ""); st == 200 {
					found = true
				}
			}
			if !found {
				t.Fatalf("acknowledged order %s missing", id)
			}
		}
		for _, id := range set.canceled {
			var o *clobengine.Order
			_ = svc.View(func(m *clobengine.Machine) { o = m.Order(id) })
			if o == nil || o.Status != clobengine.StatusCanceled {
				t.Fatalf("acknowledged cancel of %s lost: %+v", id, o)
			}
		}
		want := map[string]bool{}
		for _, id := range set.trades {
			want[id] = true
		}
		_ = svc.View(func(m *clobengine.Machine) {
			m.Trades(func(tr *clobengine.Trade) bool { delete(want, tr.ID); return false })
		})
		if len(want) > 0 {
			t.Fatalf("%d acknowledged trades lost", len(want))
		}
	}
	_ = svc.View(func(m *clobengine.Machine) {
		coll, sets, fees, dep, ok := m.Totals()
		if !ok || coll+sets+fees != dep {
			t.Fatalf("conservation after restart: %d+%d+%d != %d (%v)", coll, sets, fees, dep, ok)
		}
	})
	t.Logf("phase 1: %d orders, %d cancels, %d trades; phase 2: %d orders, %d cancels, %d trades",
		len(a.orders), len(a.canceled), len(a.trades), len(b.orders), len(b.canceled), len(b.trades))
}
