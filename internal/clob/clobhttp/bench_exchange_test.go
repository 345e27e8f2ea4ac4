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
	"pmx/internal/cpuclock"
	"pmx/internal/loadgen"
)

// benchInFlight is the number of connections, one request in flight on each.
const benchInFlight = 64

// benchOrders signs total requests of n orders each: pairs of a YES BUY
// and a NO BUY at complementary prices, so every second order mints
// against the first and the book stays small (the full path: L2, parse,
// verify, journal fsync, match, settle, ack).
func benchOrders(b *testing.B, tr *trader, n, total int) [][]byte {
	bodies := make([][]byte, total)
	for i := range bodies {
		parts := make([]string, n)
		for j := range n {
			k := i*n + j
			c := int64(30 + (k/2)%40)
			tok := yesA
			if k%2 == 1 {
				tok, c = noA, 100-c
			}
			wire, _ := tr.w.sign(limitOrder(tok, "BUY", c, 5))
			parts[j] = fmt.Sprintf(`{"order":%s,"owner":%q,"orderType":"GTC","postOnly":false,"deferExec":false}`, wire, tr.c.APIKey)
		}
		if n == 1 {
			bodies[i] = []byte(parts[0])
		} else {
			bodies[i] = []byte("[" + strings.Join(parts, ",") + "]")
		}
	}
	return bodies
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
