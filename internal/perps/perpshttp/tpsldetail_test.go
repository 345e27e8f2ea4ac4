package perpshttp

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"
)

// legData reads an order's OrderData.tpsl.
func (tr *trader) legData(oid uint64) (status string, tpsl map[string]any) {
	tr.e.t.Helper()
	var rows []struct {
		Status string         `json:"status"`
		TPSL   map[string]any `json:"tpsl"`
	}
	tr.read(fmt.Sprintf("/v1/account/orders?order_id=%d", oid), &rows)
	if len(rows) != 1 {
		tr.e.t.Fatalf("order %d: %v", oid, rows)
	}
	return rows[0].Status, rows[0].TPSL
}

// TestTPSLSlipBpsLimitsTheTriggeredMarketExit: a long of 0.5 with a
// position SL at 58,000 (market, slip_bps 100 = 1 %); bids of 0.2 at 57,500
// and 1 at 57,000. The mark falls to 58,000: the exit is an IOC sell
// limited at 58,000 · 0.99 = 57,420, so it takes the 0.2 at 57,500 and not
// the bid 1.7 % away, and its rest expires (ioc_expired). The leg's
// OrderData.tpsl shows slip_bps. A slip_bps over 10,000, or on a limit
// exit, is invalid_command.
func TestTPSLSlipBpsLimitsTheTriggeredMarketExit(t *testing.T) {
	e := newEnv(t, Options{})
	e.instrument()
	e.adminPost("/admin/perps/index", `{"instrument_id":1,"price":"60000"}`)
	long, mm := e.trader(1, "100000"), e.trader(2, "1000000")
	mm.placeOK(ord{iid: 1, p: "60000", qty: "0.5"})
	long.placeOK(ord{iid: 1, buy: true, p: "60000", qty: "0.5"})
	exit := ord{iid: 1, qty: "0", ro: boolp(true)}
	for _, bad := range []leg{{o: exit, market: true, trp: "58000", kind: "sl", slip: 10001}} {
		if a := long.placeGroup("position", nil, bad); a[0].Error != "invalid_command" {
			t.Errorf("slip_bps %d: %+v", bad.slip, a)
		}
	}
	limitExit := ord{iid: 1, p: "57000", qty: "0.5", ro: boolp(true)}
	if a := long.placeGroup("order", &ord{iid: 1, buy: true, p: "50000", qty: "0.5"}, leg{o: limitExit, trp: "58000", kind: "sl", slip: 50}); a[1].Error != "invalid_command" {
		t.Errorf("slip_bps on a limit exit: %+v", a)
	}
	acks := long.placeGroup("position", nil, leg{o: exit, market: true, trp: "58000", kind: "sl", slip: 100})
	if acks[0].Status != "ok" {
		t.Fatalf("sl: %+v", acks)
	}
	sl := acks[0].OID
	if _, d := long.legData(sl); d["slip_bps"] != 100.0 || d["scope"] != "position" {
		t.Errorf("leg tpsl: %v", d)
	}
	mm.placeOK(ord{iid: 1, buy: true, p: "57500", qty: "0.2"})
	mm.placeOK(ord{iid: 1, buy: true, p: "57000", qty: "1"})
	e.adminPost("/admin/perps/index", `{"instrument_id":1,"price":"58000"}`)
	long.waitStatus(sl, "triggered")
	f := long.waitFills(2)[0]
	if f.Price != "57500" || f.Quantity != "0.2" || f.Side != "short" {
		t.Fatalf("exit fill: %+v", f)
	}
	exitOrder := long.order(f.OrderID)
	if exitOrder.Status != "ioc_expired" || exitOrder.Price != "57420" || exitOrder.Filled != "0.2" {
		t.Errorf("exit order: %+v", exitOrder)
	}
	var p struct{ Positions []struct{ Size string } }
	if long.read("/v1/account/portfolio", &p); len(p.Positions) != 1 || p.Positions[0].Size != "0.3" {
		t.Errorf("position after the limited exit: %+v", p.Positions)
	}
}

// TestTPSLParentOIDAttachesLegsToARestingOrder: grp "order" without an
// entry, each leg naming a resting order in tr.parent_oid, attaches a TP
// and an SL to it: untriggered (OrderData.tpsl.parent_oid set, armed_qty the
// order's quantity) until it fills in full, then armed; the TP fires on a
// mark rise and closes the position. An unknown or foreign parent is
// order_not_found, a parent with legs order_has_tpsl, a terminal one
// order_already_terminal, a leg on the parent's own side invalid_command.
func TestTPSLParentOIDAttachesLegsToARestingOrder(t *testing.T) {
	e := newEnv(t, Options{})
	e.instrument()
	e.adminPost("/admin/perps/index", `{"instrument_id":1,"price":"60000"}`)
	long, mm := e.trader(1, "100000"), e.trader(2, "1000000")
	entry := long.placeOK(ord{iid: 1, buy: true, p: "60000", qty: "0.5"})
	sell := ord{iid: 1, qty: "0.5", ro: boolp(true)}
	foreign := mm.placeOK(ord{iid: 1, p: "65000", qty: "0.1"})
	for _, c := range []struct {
		name string
		l    leg
		want string
	}{
		{"unknown parent", leg{o: sell, market: true, trp: "62000", kind: "tp", parent: 999999}, "order_not_found"},
		{"another account's order", leg{o: sell, market: true, trp: "62000", kind: "tp", parent: foreign}, "order_not_found"},
		{"leg on the parent's side", leg{o: ord{iid: 1, buy: true, qty: "0.5", ro: boolp(true)}, market: true, trp: "58000", kind: "tp", parent: entry}, "invalid_command"},
	} {
		if a := long.placeGroup("order", nil, c.l); a[0].Error != c.want {
			t.Errorf("%s: %+v, want %s", c.name, a, c.want)
		}
	}
	acks := long.placeGroup("order", nil, leg{o: sell, market: true, trp: "62000", kind: "tp", parent: entry},
		leg{o: sell, market: true, trp: "58000", kind: "sl", parent: entry})
	if acks[0].Status != "ok" || acks[1].Status != "ok" {
		t.Fatalf("attach: %+v", acks)
	}
	tp, sl := acks[0].OID, acks[1].OID
	st, d := long.legData(tp)
	if st != "untriggered" || d["parent_oid"] != float64(entry) || d["armed_qty"] != "0.5" || d["kind"] != "tp" || d["scope"] != "order" {
		t.Errorf("attached tp: %s %v", st, d)
	}
	if a := long.placeGroup("order", nil, leg{o: sell, market: true, trp: "63000", kind: "tp", parent: entry}); a[0].Error != "order_has_tpsl" {
		t.Errorf("second attach: %+v", a)
	}
	if it := long.modify(mod{oid: entry, p: "60000", qty: "0.6"}); it[0].Error != "order_has_tpsl" {
		t.Errorf("modify of the parent: %+v", it)
	}
	mm.placeOK(ord{iid: 1, p: "60000", qty: "0.5"})
	long.waitStatus(tp, "armed")
	long.waitStatus(sl, "armed")
	mm.placeOK(ord{iid: 1, buy: true, p: "61900", qty: "1"})
	e.adminPost("/admin/perps/index", `{"instrument_id":1,"price":"62000"}`)
	long.waitStatus(tp, "triggered")
	long.waitStatus(sl, "cancelled")
	if n := long.positions(); n != 0 {
		t.Errorf("positions after the TP: %d", n)
	}
	if a := long.placeGroup("order", nil, leg{o: sell, market: true, trp: "63000", kind: "tp", parent: entry}); a[0].Error != "order_already_terminal" {
		t.Errorf("attach to a filled parent: %+v", a)
	}
}

// TestTPSLCancelLegByClientOrderID: a leg sent with c is cancelled by
// cancelOrdersCOID (cancelled, the answer carries its oid); a second leg
// or an order cannot take a live leg's coid for a leg (duplicate_order).
func TestTPSLCancelLegByClientOrderID(t *testing.T) {
	e := newEnv(t, Options{})
	e.instrument()
	e.adminPost("/admin/perps/index", `{"instrument_id":1,"price":"60000"}`)
	long, mm := e.trader(1, "100000"), e.trader(2, "1000000")
	mm.placeOK(ord{iid: 1, p: "60000", qty: "0.5"})
	long.placeOK(ord{iid: 1, buy: true, p: "60000", qty: "0.5"})
	coid := strings.Repeat("ab", 16)
	acks := long.placeGroup("position", nil, leg{o: ord{iid: 1, qty: "0", ro: boolp(true), c: coid}, market: true, trp: "70000", kind: "tp"})
	if acks[0].Status != "ok" || acks[0].COID != coid {
		t.Fatalf("tp: %+v", acks)
	}
	tp := acks[0].OID
	if a := long.placeGroup("position", nil, leg{o: ord{iid: 1, qty: "0", ro: boolp(true), c: coid}, market: true, trp: "50000", kind: "sl"}); a[0].Error != "duplicate_order" {
		t.Errorf("second leg with the coid: %+v", a)
	}
	it := long.cancelCOID(coid)
	if len(it) != 1 || it[0].Status != "ok" || it[0].OID != tp {
		t.Fatalf("cancel by coid: %+v", it)
	}
	if o := long.order(tp); o.Status != "cancelled" {
		t.Errorf("leg after the cancel: %+v", o)
	}
	if it := long.cancelCOID(coid); it[0].Error != "order_unknown" {
		t.Errorf("second cancel by coid: %+v", it)
	}
}

// TestTPSLLegsExpireWhenTheInstrumentSettles: a's position SL is live when
// its instrument settles; it can never fire, so it ends expired (perps.md
// §9.3), pushed on orders and tpsl.
func TestTPSLLegsExpireWhenTheInstrumentSettles(t *testing.T) {
	e, a, _, _, _, _ := retireEnv(t)
	acks := a.placeGroup("position", nil, leg{o: ord{iid: 1, qty: "0", ro: boolp(true)}, market: true, trp: "50000", kind: "sl"})
	if acks[0].Status != "ok" {
		t.Fatalf("sl: %+v", acks)
	}
	sl := acks[0].OID
	e.adminDo("/admin/perps/close-only", `{"instrument_id":1}`)
	for range 3 {
		e.adminPost("/admin/perps/index", `{"instrument_id":1,"price":"59000"}`)
		e.advance(50 * time.Second)
	}
	e.adminPost("/admin/perps/index", `{"instrument_id":1,"price":"59000"}`)
	e.advance(10 * time.Second)
	ws := e.dial(t)
	ws.auth(a)
	ws.call("sub", `"chs":["tpsl"]`)
	if code, body := e.adminDo("/admin/perps/settle", `{"instrument_id":1}`); code != 200 {
		t.Fatalf("settle: %d %s", code, body)
	}
	if st, _ := a.legData(sl); st != "expired" {
		t.Errorf("leg after settlement: %s", st)
	}
	_, d := ws.pushOn("tpsl::1")
	var push struct {
		OID uint64 `json:"oid"`
		St  string `json:"st"`
	}
	if err := json.Unmarshal(d, &push); err != nil || push.OID != sl || push.St != "expired" {
		t.Errorf("tpsl push: %s", d)
	}
}
