package perpshttp

import (
	"fmt"
	"testing"
	"time"
)

func (tr *trader) autoCancel(at int64) (int, string) {
	keyed := fmt.Sprintf(`{"type":"autoCancel","args":{"time":%d}}`, at)
	return tr.signed("PATCH", "/v1/trade/auto-cancel", tr.proxy, keyed, []any{"autoCancel", []any{int(at)}}, "")
}

// waitStatus polls the order until its status is want.
func (tr *trader) waitStatus(oid uint64, want string) {
	tr.e.t.Helper()
	var o orderRow
	for range 500 {
		if o = tr.order(oid); o.Status == want {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
	tr.e.t.Fatalf("order %d: %+v, want status %s", oid, o, want)
}

// TestAutoCancelArmingAndTrigger: the contract's arming rows (a past
// deadline is a plain 400, under 5 s ahead auto_cancel_deadline_too_soon,
// the daily limit auto_cancel_daily_limit_reached, disarming always
// allowed) and the state-table row: at the deadline every open order ends
// auto_cancelled.
func TestAutoCancelArmingAndTrigger(t *testing.T) {
	e := newEnv(t, Options{AutoCancelDaily: 1})
	e.instrument()
	a := e.trader(1, "100000")
	now := int64(e.now())
	for _, c := range []struct {
		name string
		at   int64
		code int
		body string
	}{
		{"past deadline", now - 1, 400, `{"status":"err","error":"invalid request: time: the deadline is in the past"}`},
		{"under 5 s ahead", now + 4999, 422, `{"status":"err","error":"auto_cancel_deadline_too_soon"}`},
		{"disarm", 0, 200, `{"status":"ok","deadline":0}`},
		{"5 s ahead", now + 5000, 200, fmt.Sprintf(`{"status":"ok","deadline":%d}`, now+5000)},
	} {
		if code, body := a.autoCancel(c.at); code != c.code || body != c.body+"\n" {
			t.Errorf("%s: %d %s, want %d %s", c.name, code, body, c.code, c.body)
		}
	}
	keyed := fmt.Sprintf(`{"type":"autoCancel","args":{"time":%d}}`, now+6000)
	if code, body := a.signed("PATCH", "/v1/trade/auto-cancel", a.proxy, keyed, []any{"autoCancel", []any{int(now + 6000)}},
		fmt.Sprintf(`,"exp":%d`, now+1000)); code != 400 || body != `{"status":"err","error":"invalid request: exp: not allowed on autoCancel"}`+"\n" {
		t.Errorf("exp on autoCancel: %d %s", code, body)
	}
	oid := a.placeOK(ord{iid: 1, buy: true, p: "100", qty: "1"})
	e.advance(5 * time.Second)
	a.waitStatus(oid, "auto_cancelled")
	// The day's one trigger is used: arming again is refused, disarming is not.
	if code, body := a.autoCancel(int64(e.now()) + 10_000); code != 422 || body != `{"status":"err","error":"auto_cancel_daily_limit_reached"}`+"\n" {
		t.Errorf("daily limit: %d %s", code, body)
	}
	if code, body := a.autoCancel(0); code != 200 {
		t.Errorf("disarm at the limit: %d %s", code, body)
	}
	// Over the WebSocket.
	w := e.dial(t)
	w.auth(a)
	e.advance(24 * time.Hour) // a new UTC day: a fresh allowance
	at := int64(e.now()) + 60_000
	d := w.signedPost(a, fmt.Sprintf(`{"type":"autoCancel","args":{"time":%d}}`, at), []any{"autoCancel", []any{int(at)}})
	if string(d) != fmt.Sprintf(`{"status":"ok","deadline":%d}`, at) {
		t.Errorf("ws autoCancel: %s", d)
	}
}
