package clobhttp_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"pmx/internal/clob/clob"
	"pmx/internal/clob/clobengine"
	"pmx/internal/cpuclock"
	"pmx/internal/loadgen"
)

// benchInFlight is the number of connections, one request in flight on each.
const benchInFlight = 64

// benchOrders signs total requests of n orders each, alternately a YES BUY
// and a NO BUY at 50 cents: each NO mints against a resting YES and each
// YES against a resting NO, so what rests at 50 stays within the requests in
// flight and the figure is placement at a steady depth, not a growing book
// (the full path: L2, parse, verify, journal fsync, match, settle, ack).
// clobengine's BenchmarkMatchDeepBook measures matching into a deep book.
func benchOrders(b *testing.B, tr *trader, n, total int) [][]byte {
	bodies := make([][]byte, total)
	for i := range bodies {
		parts := make([]string, n)
		for j := range n {
			tok := yesA
			if (i*n+j)%2 == 1 {
				tok = noA
			}
			parts[j] = benchBody(b, tr, limitOrder(tok, "BUY", 50, 5))
		}
		if n == 1 {
			bodies[i] = []byte(parts[0])
		} else {
			bodies[i] = []byte("[" + strings.Join(parts, ",") + "]")
		}
	}
	return bodies
}

func benchBody(b *testing.B, tr *trader, o testOrder) string {
	wire, _ := tr.w.sign(o)
	return fmt.Sprintf(`{"order":%s,"owner":%q,"orderType":"GTC","postOnly":false,"deferExec":false}`, wire, tr.c.APIKey)
}

// benchSeedDepth is the resting book the exchange benchmarks start from:
// YES and NO BUYs on 20 levels each (10–29 cents), which no 50-cent order
// of benchOrders reaches.
const benchSeedDepth = 200

func seedBook(b *testing.B, x *xenv, tr *trader) {
	for i := range benchSeedDepth {
		tok := yesA
		if i%2 == 1 {
			tok = noA
		}
		body := benchBody(b, tr, limitOrder(tok, "BUY", int64(10+(i/2)%20), 5))
		if r := x.do(b, "POST", "/order", l2(tr.w.addr, tr.c, now0, "POST", "/order", body), body); r.status != 200 || !bytes.Contains(r.body, []byte(`"status":"live"`)) {
			b.Fatalf("seed order: %d %s", r.status, r.body)
		}
	}
}

// drive sends reqs over conns (one in flight each), checks each answer with
// ok, and reports requests/s, orders/s and p99.
func drive(b *testing.B, host string, reqs [][]byte, perReq int, ok func(int, []byte) bool) {
	conns := make([]*loadgen.Conn, benchInFlight)
	for i := range conns {
		c, err := loadgen.Dial(host)
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { c.Close() })
		conns[i] = c
	}
	lat := make([]time.Duration, len(reqs))
	var next atomic.Int64
	var wg sync.WaitGroup
	b.ResetTimer()
	cpu0 := cpuclock.Process()
	for _, c := range conns {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var body []byte
			for {
				i := next.Add(1) - 1
				if i >= int64(len(reqs)) {
					return
				}
				t0 := time.Now()
				code, b2, err := c.Do(reqs[i], body)
				body = b2
				if err != nil || !ok(code, body) {
					panic(fmt.Sprint(code, string(body), err))
				}
				lat[i] = time.Since(t0)
			}
		}()
	}
	wg.Wait()
	b.StopTimer()
	// CPU of this process (server and load generator) per order: steadier
	// than wall time on a shared machine.
	b.ReportMetric(float64(cpuclock.Process()-cpu0)/float64(len(reqs)*perReq), "cpu-ns/order")
	slices.Sort(lat)
	b.ReportMetric(float64(len(reqs))/b.Elapsed().Seconds(), "requests/s")
	b.ReportMetric(float64(len(reqs)*perReq)/b.Elapsed().Seconds(), "orders/s")
	b.ReportMetric(float64(lat[len(lat)*99/100].Microseconds()), "p99-µs")
}

func benchExchange(b *testing.B, n int) {
	x := newExchange(b, "", &fixedClock{t: time.Unix(now0, 0)}, "off")
	tr := x.trader(b, priv0)
	x.fund(b, tr.w.addr, 10_000_000, 0)
	seedBook(b, x, tr)
	path := "/order"
	if n > 1 {
		path = "/orders"
	}
	bodies := benchOrders(b, tr, n, b.N)
	host := strings.TrimPrefix(x.srv.URL, "http://")
	reqs := make([][]byte, len(bodies))
	for i, body := range bodies {
		var hdr strings.Builder
		for k, v := range l2(tr.w.addr, tr.c, now0, "POST", path, string(body)) {
			fmt.Fprintf(&hdr, "%s: %s\r\n", k, v[0])
		}
		hdr.WriteString("Content-Type: application/json\r\n")
		reqs[i] = loadgen.Request("POST", host, path, hdr.String(), body)
	}
	b.ReportAllocs()
	drive(b, host, reqs, n, func(code int, body []byte) bool {
		return code == 200 && bytes.Contains(body, []byte(`"success":true`))
	})
	x.svc.View(func(m *clobengine.Machine) { b.ReportMetric(float64(m.LiveCount()), "live") })
}

// benchBare serves, on the same net/http listener stack, an endpoint that
// only reads the same request bodies and recovers each order's signer: the
// reference the exchange's signed-order path is measured against.
func benchBare(b *testing.B, n int) {
	x := newExchange(b, "", &fixedClock{t: time.Unix(now0, 0)}, "off")
	tr := x.trader(b, priv0)
	d := clob.NewDomains(137)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		var batch []clob.NewOrder
		if n == 1 {
			batch = make([]clob.NewOrder, 1)
			json.Unmarshal(body, &batch[0])
		} else {
			json.Unmarshal(body, &batch)
		}
		for _, no := range batch {
			o, err := clob.ParseOrder(no.Order)
			if err != nil {
				http.Error(w, err.Error(), 400)
				return
			}
			if _, err := o.Verify(d, false); err != nil {
				http.Error(w, err.Error(), 400)
				return
			}
		}
		w.Write([]byte(`{"success":true}`))
	}))
	b.Cleanup(srv.Close)
	bodies := benchOrders(b, tr, n, b.N)
	host := strings.TrimPrefix(srv.URL, "http://")
	reqs := make([][]byte, len(bodies))
	for i, body := range bodies {
		reqs[i] = loadgen.Request("POST", host, "/order", "Content-Type: application/json\r\n", body)
	}
	b.ReportAllocs()
	drive(b, host, reqs, n, func(code int, body []byte) bool { return code == 200 })
}

// Run side by side: go test -run '^$' -bench 'CLOB' ./internal/clob/clobhttp
func BenchmarkCLOBOrderSingle(b *testing.B)  { benchExchange(b, 1) }
func BenchmarkCLOBBareSingle(b *testing.B)   { benchBare(b, 1) }
func BenchmarkCLOBOrderBatch15(b *testing.B) { benchExchange(b, 15) }
func BenchmarkCLOBBareBatch15(b *testing.B)  { benchBare(b, 15) }
