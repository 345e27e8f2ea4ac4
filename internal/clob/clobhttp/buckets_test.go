package clobhttp_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"pmx/internal/clob/clob"
	"pmx/internal/clob/clobengine"
)

// batch builds a POST /orders body of n resting BUYs at 0.01.
func (tr *trader) batch(t testing.TB, n int) string {
	parts := make([]string, n)
	for i := range parts {
		wire, _ := tr.w.sign(limitOrder(yesA, "BUY", 1, 5))
		parts[i] = fmt.Sprintf(`{"order":%s,"owner":%q,"orderType":"GTC","postOnly":false}`, wire, tr.c.APIKey)
	}
	return "[" + strings.Join(parts, ",") + "]"
}

// TestSignerOrderBucket: the Standard order bucket (40/s, burst 60) is
// exact to the token on an injected clock; a batch is admitted only whole;
// the headers report the balance, the reset and the tier; 429 carries the
// minimum wait.
func TestSignerOrderBucket(t *testing.T) {
	x, clk := newClocked(t)
	a := x.trader(t, priv0)
	x.fund(t, a.w.addr, 1000, 0)
	for i := range 4 {
		r := a.call(t, "POST", "/orders", a.batch(t, 15))
		if r.status != 200 || r.header.Get("Svc-RateLimit-Remaining") != fmt.Sprint(60-15*(i+1)) ||
			r.header.Get("Svc-RateLimit-Tier") != "Standard" || r.header.Get("Svc-RateLimit-Reset") != fmt.Sprint(now0) {
			t.Fatalf("batch %d: %d %v %s", i, r.status, r.header, r.body)
		}
	}
	// Empty: one order needs 25 ms.
	r, _ := a.post(t, limitOrder(yesA, "BUY", 1, 5), "GTC", false)
	r.wantError(t, 429, msg(clob.ErrTooManyRequests))
	if r.header.Get("Retry-After") != "1" || r.header.Get("Svc-RateLimit-Reset") != fmt.Sprint(now0+1) {
		t.Fatalf("429 headers %v", r.header)
	}
	clk.set(clk.Now().Add(25 * time.Millisecond))
	if r, _ := a.post(t, limitOrder(yesA, "BUY", 1, 5), "GTC", false); r.status != 200 {
		t.Fatalf("after 25 ms: %d %s", r.status, r.body)
	}
	// 14 tokens after 350 ms: a batch of 15 is refused whole, nothing placed.
	clk.set(clk.Now().Add(350 * time.Millisecond))
	var before, after int
	_ = x.svc.View(func(m *clobengine.Machine) { before = m.LiveCount() })
	a.call(t, "POST", "/orders", a.batch(t, 15)).wantError(t, 429, msg(clob.ErrTooManyRequests))
	_ = x.svc.View(func(m *clobengine.Machine) { after = m.LiveCount() })
	if before != after {
		t.Fatalf("a refused batch placed %d orders", after-before)
	}
	clk.set(clk.Now().Add(25 * time.Millisecond))
	if r := a.call(t, "POST", "/orders", a.batch(t, 15)); r.status != 200 || r.header.Get("Svc-RateLimit-Remaining") != "0" {
		t.Fatalf("batch of exactly the balance: %d %v", r.status, r.header)
	}
}

// TestSignerCancelDebt: cancel-all takes one token first and one per order
// canceled afterwards; Standard may go into debt, and further cancels stay
// blocked until the bucket can pay.
func TestSignerCancelDebt(t *testing.T) {
	x, clk := newClocked(t)
	a := x.trader(t, priv0)
	x.fund(t, a.w.addr, 1000, 0)
	addr := strings.ToLower(a.w.addr)
	x.must(t, clobengine.Command{Op: clobengine.OpTier, Addr: addr, Tier: 7}) // Elite: burst 900 orders
	if err := x.svc.RecomputeTiers(); err != nil {
		t.Fatal(err)
	}
	for range 10 {
		if r := a.call(t, "POST", "/orders", a.batch(t, 15)); r.status != 200 {
			t.Fatalf("%s", r.body)
		}
	}
	x.must(t, clobengine.Command{Op: clobengine.OpTier, Addr: addr, Tier: -1})
	_ = x.svc.RecomputeTiers()
	r := a.call(t, "DELETE", "/cancel-all", "")
	if r.status != 200 || r.header.Get("Svc-RateLimit-Remaining") != "-31" { // 120 - 1 - 150
		t.Fatalf("cancel-all: %d %v", r.status, r.header)
	}
	r = a.call(t, "DELETE", "/order", fmt.Sprintf(`{"orderID":"0x%064x"}`, 1))
	r.wantError(t, 429, msg(clob.ErrTooManyRequests))
	if r.header.Get("Retry-After") != "1" || r.header.Get("Svc-RateLimit-Remaining") != "-31" {
		t.Fatalf("in debt: %v", r.header)
	}
	clk.set(clk.Now().Add(400 * time.Millisecond)) // 32 tokens: balance 1
	if r := a.call(t, "DELETE", "/order", fmt.Sprintf(`{"orderID":"0x%064x"}`, 1)); r.status != 200 {
		t.Fatalf("after paying the debt: %d %s", r.status, r.body)
	}
}

// TestSignerBucketWarnMode: in warn mode a request the bucket cannot pay
// is processed and flagged.
func TestSignerBucketWarnMode(t *testing.T) {
	clk := &fixedClock{t: time.Unix(now0, 0)}
	x := newExchange(t, "", clk, "warn")
	a := x.trader(t, priv0)
	x.fund(t, a.w.addr, 1000, 0)
	for range 4 {
		a.call(t, "POST", "/orders", a.batch(t, 15))
	}
	r, _ := a.post(t, limitOrder(yesA, "BUY", 1, 5), "GTC", false)
	if r.status != 200 || r.header.Get("Svc-RateLimit-Warning") != "true" {
		t.Fatalf("warn mode: %d %v %s", r.status, r.header, r.body)
	}
}
