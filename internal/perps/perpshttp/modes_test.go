package perpshttp

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"pmx/internal/perps/perps"
)

// placeHdr places orders and also returns the Retry-After header.
func (tr *trader) placeHdr(os ...ord) (code int, body, retryAfter string) {
	tr.e.t.Helper()
	keyed, rows := make([]string, len(os)), []any{}
	for i, o := range os {
		keyed[i] = o.keyed()
		rows = append(rows, o.compact())
	}
	e := tr.e
	salt, ts := e.salt.Add(1), e.now()
	sig := tr.proxy.sign(tOpDigest([]any{"createOrders", rows}, salt, ts))
	b := fmt.Sprintf(`{"op":{"type":"createOrders","args":[%s]},"sig":%q,"salt":%d,"ts":%d}`, strings.Join(keyed, ","), sig, salt, ts)
	res, err := http.Post(e.api.URL+"/v1/trade/orders", "application/json", bytes.NewReader([]byte(b)))
	if err != nil {
		e.t.Fatal(err)
	}
	defer res.Body.Close()
	raw, _ := io.ReadAll(res.Body)
	return res.StatusCode, strings.TrimSpace(string(raw)), res.Header.Get("Retry-After")
}

func (e *env) setMode(body string) string {
	e.t.Helper()
	code, b := e.do("POST", e.admin.URL+"/admin/perps/mode", []byte(body), nil, nil)
	if code != 200 {
		e.t.Fatalf("set mode %s: %d %s", body, code, b)
	}
	return strings.TrimSpace(b)
}

func (e *env) cancelOnlyFlag() bool {
	e.t.Helper()
	var x struct {
		CancelOnly bool `json:"cancel_only"`
	}
	e.get("/v1/info/exchange", &x)
	return x.CancelOnly
}

// waitDue polls (bounded) until the engine has an in-flight step pending.
func (e *env) waitDue(t *testing.T) {
	t.Helper()
	for range 10000 {
		var due int64
		e.srv.view(func(m *perps.Machine) { due = m.NextDue() })
		if due > 0 {
			return
		}
		time.Sleep(time.Millisecond)
	}
	t.Fatal("no in-flight step")
}

// bids is instrument 1's bid levels.
func (e *env) bids() [][2]string {
	var bk struct{ Bids [][2]string }
	e.get("/v1/info/book?instrument_id=1&depth=10", &bk)
	return bk.Bids
}

// waitBids waits until instrument 1 has n bid levels (the pump completing
// a due step) and returns them.
func (e *env) waitBids(t *testing.T, n int) [][2]string {
	t.Helper()
	for range 10000 {
		if b := e.bids(); len(b) == n {
			return b
		}
		time.Sleep(time.Millisecond)
	}
	t.Fatal("the order never entered the book")
	return nil
}

// notAnswered fails if a held request has already been answered.
func notAnswered(t *testing.T, done <-chan []item, what string) {
	t.Helper()
	select {
	case it := <-done:
		t.Fatalf("%s: %+v", what, it)
	default:
	}
}

// TestCancelOnlyMode: new orders 503 cancel_only_mode (REST and WebSocket),
// cancels keep working, a cancel racing an accept is order_in_flight,
// modifies are refused, the flag is on /v1/info/exchange, and the mode is
// journaled (it survives a restart).
func TestCancelOnlyMode(t *testing.T) {
	e := newEnv(t, Options{AcceptDelay: 20 * time.Millisecond})
	e.instrument()
	a := e.trader(1, "100000")
	resting := a.placeOK(ord{iid: 1, buy: true, p: "90", qty: "1"})
	e.advance(20 * time.Millisecond)
	e.waitNoDue(t)
	inflight := a.placeOK(ord{iid: 1, buy: true, p: "91", qty: "1"})
	if e.cancelOnlyFlag() {
		t.Fatal("cancel_only before the operator set it")
	}
	if got := e.setMode(`{"mode":"cancel_only","retry_after_seconds":30}`); got != `{"mode":"cancel_only","retry_after_seconds":30}` {
		t.Errorf("set mode answer %s", got)
	}
	if !e.cancelOnlyFlag() {
		t.Error("cancel_only flag not set on /v1/info/exchange")
	}
	code, body, ra := a.placeHdr(ord{iid: 1, buy: true, p: "92", qty: "1", po: true})
	if code != 503 || body != `[{"status":"err","error":"cancel_only_mode"}]` || ra != "30" {
		t.Errorf("place in cancel-only: %d %s Retry-After %q", code, body, ra)
	}
	w := e.dial(t)
	if d := w.signedPost(a, `{"type":"createOrders","args":[`+ord{iid: 1, buy: true, p: "92", qty: "1"}.keyed()+`]}`,
		[]any{"createOrders", []any{ord{iid: 1, buy: true, p: "92", qty: "1"}.compact()}}); string(d) != `[{"status":"err","error":"cancel_only_mode"}]` {
		t.Errorf("WebSocket place in cancel-only: %s", d)
	}
	if it := a.cancel(inflight); it[0].Error != "order_in_flight" {
		t.Errorf("cancel of an order whose accept is in flight: %+v", it)
	}
	if it := a.modify(mod{oid: resting, p: "89", qty: "1"}); it[0].Error != "cancel_only_mode" {
		t.Errorf("modify in cancel-only: %+v", it)
	}
	if it := a.cancel(resting); it[0].Status != "ok" {
		t.Errorf("cancel in cancel-only: %+v", it)
	}
	e.restart()
	if !e.cancelOnlyFlag() {
		t.Error("the mode did not survive a restart")
	}
	var m modeWire
	if e.do("GET", e.admin.URL+"/admin/perps/mode", nil, nil, &m); m.Mode != "cancel_only" || m.RetryAfter != 30 {
		t.Errorf("GET mode after restart: %+v", m)
	}
	if code, b := e.do("POST", e.admin.URL+"/admin/perps/mode", []byte(`{"mode":"halted"}`), nil, nil); code != 422 || !strings.Contains(b, "invalid mode") {
		t.Errorf("unknown mode: %d %s", code, b)
	}
	if got := e.setMode(`{"mode":"normal"}`); got != `{"mode":"normal"}` || e.cancelOnlyFlag() {
		t.Errorf("back to normal: %s", got)
	}
	a.placeOK(ord{iid: 1, buy: true, p: "92", qty: "1"})
}

// waitNoDue polls (bounded) until no in-flight step is pending (the pump
// completed them).
func (e *env) waitNoDue(t *testing.T) {
	t.Helper()
	for range 10000 {
		var due int64
		e.srv.view(func(m *perps.Machine) { due = m.NextDue() })
		if due == 0 {
			return
		}
		time.Sleep(time.Millisecond)
	}
	t.Fatal("in-flight steps never completed")
}

// TestPostOnlyMode: only post-only orders; a request with none is 503 with
// code post_only_mode, retry_after_seconds and Retry-After; in a mixed batch
// the other orders get post_only_mode one by one; cancels work.
func TestPostOnlyMode(t *testing.T) {
	e := newEnv(t, Options{})
	e.instrument()
	a := e.trader(1, "100000")
	resting := a.placeOK(ord{iid: 1, buy: true, p: "90", qty: "1"})
	e.setMode(`{"mode":"post_only","retry_after_seconds":7}`)
	cases := []struct {
		name       string
		orders     []ord
		code       int
		body, hdr  string
		wantStatus []string
	}{
		{"no post-only order", []ord{{iid: 1, buy: true, p: "91", qty: "1"}}, 503,
			`[{"status":"err","error":"post_only_mode","code":"post_only_mode","retry_after_seconds":7}]`, "7", nil},
		{"post-only order", []ord{{iid: 1, buy: true, p: "91", qty: "1", po: true}}, 200, "", "", []string{"ok"}},
		{"mixed batch", []ord{{iid: 1, buy: true, p: "91", qty: "1", tif: "ioc"}, {iid: 1, buy: true, p: "92", qty: "1", po: true}}, 200, "", "",
			[]string{"post_only_mode", "ok"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			code, body, ra := a.placeHdr(c.orders...)
			if code != c.code || ra != c.hdr || c.body != "" && body != c.body {
				t.Fatalf("%d %s Retry-After %q", code, body, ra)
			}
			if c.wantStatus == nil {
				return
			}
			var acks []ack
			json.Unmarshal([]byte(body), &acks)
			for i, want := range c.wantStatus {
				if i >= len(acks) || acks[i].Status != want && acks[i].Error != want {
					t.Errorf("ack %d: %s, want %s", i, body, want)
				}
			}
		})
	}
	if e.cancelOnlyFlag() {
		t.Error("post-only mode is not cancel-only")
	}
	if it := a.cancel(resting); it[0].Status != "ok" {
		t.Errorf("cancel in post-only: %+v", it)
	}
}

// TestAwaitingRiskChecks: with a risk delay an order is acknowledged with its
// oid but is not in the book; a cancel then removes it at once (no waiting
// for the delay); a modify is order_in_flight; an uncancelled order enters
// the book when its risk step is due (the pump).
func TestAwaitingRiskChecks(t *testing.T) {
	e := newEnv(t, Options{RiskDelay: 20 * time.Millisecond})
	e.instrument()
	a := e.trader(1, "100000")
	gone := a.placeOK(ord{iid: 1, buy: true, p: "100", qty: "1"})
	stays := a.placeOK(ord{iid: 1, buy: true, p: "99", qty: "1"})
	if it := a.cancel(gone); len(it) != 1 || it[0].Status != "ok" || it[0].OID != gone {
		t.Errorf("cancel while awaiting risk checks: %+v", it)
	}
	if o := a.order(gone); o.Status != "cancelled" {
		t.Errorf("cancelled order: %+v", o)
	}
	if it := a.modify(mod{oid: stays, p: "98", qty: "1"}); it[0].Error != "order_in_flight" {
		t.Errorf("modify while awaiting risk checks: %+v", it)
	}
	e.advance(20 * time.Millisecond)
	if b := e.waitBids(t, 1); b[0][0] != "99" {
		t.Errorf("book %v", b)
	}
}

// TestModifyAlreadyPending: with a modify delay a modify's answer is its
// final outcome, given when the window ends; a second modify of the order
// meanwhile is modify_already_pending.
func TestModifyAlreadyPending(t *testing.T) {
	e := newEnv(t, Options{ModifyDelay: 20 * time.Millisecond})
	e.instrument()
	a := e.trader(1, "100000")
	oid := a.placeOK(ord{iid: 1, buy: true, p: "100", qty: "1"})
	done := make(chan []item, 1)
	go func() { done <- a.modify(mod{oid: oid, p: "99", qty: "2"}) }()
	e.waitDue(t)
	if it := a.modify(mod{oid: oid, p: "98", qty: "1"}); it[0].Error != "modify_already_pending" {
		t.Errorf("second modify: %+v", it)
	}
	notAnswered(t, done, "answered before the window ended")
	e.advance(20 * time.Millisecond)
	it := <-done
	var w struct{ P, Qty string }
	if len(it) != 1 || it[0].Status != "ok" || json.Unmarshal(it[0].Order, &w) != nil || w.P != "99" || w.Qty != "2" {
		t.Errorf("modify outcome: %+v", it)
	}
	if o := a.order(oid); o.Price != "99" {
		t.Errorf("order after the modify: %+v", o)
	}
}

// TestFlightJournaledAcrossRestart: the in-flight windows replay as they
// were; a restart with other flags switches after the replay (a journaled
// config command), and the admin route shows the windows in force.
func TestFlightJournaledAcrossRestart(t *testing.T) {
	e := newEnv(t, Options{AcceptDelay: 20 * time.Millisecond, NoHeldCancels: true})
	e.instrument()
	a := e.trader(1, "100000")
	oid := a.placeOK(ord{iid: 1, buy: true, p: "100", qty: "1"})
	bids := func() int { return len(e.bids()) }
	e.opt.AcceptDelay, e.opt.NoHeldCancels = 0, false
	e.restart()
	// Replayed under the journaled 20 ms window: still in flight.
	if bids() != 0 || a.order(oid).Status != "open" {
		t.Fatalf("after restart: bids %d, order %+v", bids(), a.order(oid))
	}
	var fl perps.Flight
	if e.do("GET", e.admin.URL+"/admin/perps/flight", nil, nil, &fl); fl != (perps.Flight{}) {
		t.Errorf("windows in force after the switch: %+v", fl)
	}
	e.advance(20 * time.Millisecond)
	e.waitNoDue(t) // the pump runs: a step was pending at start
	if bids() != 1 {
		t.Fatalf("the in-flight order did not enter the book")
	}
	a.placeOK(ord{iid: 1, buy: true, p: "99", qty: "1"}) // zero window: in the book at once
	if bids() != 2 {
		t.Errorf("new order not in the book at once")
	}
	var before [32]byte
	e.srv.view(func(m *perps.Machine) { before = m.Hash() })
	e.restart() // same flags: nothing journaled, same state
	var after [32]byte
	e.srv.view(func(m *perps.Machine) { after = m.Hash() })
	if before != after {
		t.Error("a restart with unchanged flags changed the state")
	}
	e.opt.RiskDelay = 5 * time.Millisecond
	e.restart()
	if e.do("GET", e.admin.URL+"/admin/perps/flight", nil, nil, &fl); fl != (perps.Flight{RiskMs: 5}) {
		t.Errorf("windows after the second switch: %+v", fl)
	}
}

// TestPendingModifyOverWebSocket: over the socket too the answer to a
// pending modify is its final outcome, and post-only mode answers with the
// REST body.
func TestPendingModifyOverWebSocket(t *testing.T) {
	e := newEnv(t, Options{ModifyDelay: 20 * time.Millisecond})
	e.instrument()
	a := e.trader(1, "100000")
	oid := a.placeOK(ord{iid: 1, buy: true, p: "100", qty: "1"})
	w := e.dial(t)
	done := make(chan json.RawMessage, 1)
	go func() {
		done <- w.signedPost(a, fmt.Sprintf(`{"type":"modifyOrders","args":[{"oid":%d,"p":"99","qty":"2"}]}`, oid),
			[]any{"modifyOrders", []any{[]any{int(oid), "99", "2"}}})
	}()
	e.waitDue(t)
	if it := a.modify(mod{oid: oid, p: "98", qty: "1"}); it[0].Error != "modify_already_pending" {
		t.Errorf("second modify: %+v", it)
	}
	e.advance(20 * time.Millisecond)
	d := <-done
	var it []item
	if json.Unmarshal(d, &it) != nil || len(it) != 1 || it[0].Status != "ok" || !strings.Contains(string(it[0].Order), `"p":"99"`) {
		t.Errorf("WebSocket modify outcome: %s", d)
	}
	e.setMode(`{"mode":"post_only","retry_after_seconds":3}`)
	o := ord{iid: 1, buy: false, p: "200", qty: "1"}
	if d := w.signedPost(a, `{"type":"createOrders","args":[`+o.keyed()+`]}`, []any{"createOrders", []any{o.compact()}}); string(d) != `[{"status":"err","error":"post_only_mode","code":"post_only_mode","retry_after_seconds":3}]` {
		t.Errorf("WebSocket place in post-only mode: %s", d)
	}
}
