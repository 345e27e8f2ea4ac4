package perpshttp

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
)

// leg is a TP/SL createOrders item: o's fields plus tr {market, trp, tpsl}.
// slip and parent (0: absent) are tr.slip_bps and tr.parent_oid.
type leg struct {
	o      ord
	market bool
	trp    string
	kind   string
	slip   int
	parent uint64
}

func (l leg) keyed() string {
	k := strings.TrimSuffix(l.o.keyed(), "}")
	tr := fmt.Sprintf(`{"trp":%q,"tpsl":%q`, l.trp, l.kind)
	if l.market {
		tr = fmt.Sprintf(`{"market":true,"trp":%q,"tpsl":%q`, l.trp, l.kind)
	}
	if l.slip != 0 {
		tr += fmt.Sprintf(`,"slip_bps":%d`, l.slip)
	}
	if l.parent != 0 {
		tr += fmt.Sprintf(`,"parent_oid":%d`, l.parent)
	}
	return k + `,"tr":` + tr + "}}"
}

// compact: [market?, trp, tpsl, slip_bps?, parent_oid?], slip_bps 0 when
// only parent_oid is sent.
func (l leg) compact() []any {
	tr := []any{l.trp, l.kind}
	if l.market {
		tr = append([]any{true}, tr...)
	}
	if l.slip != 0 || l.parent != 0 {
		tr = append(tr, l.slip)
	}
	if l.parent != 0 {
		tr = append(tr, int(l.parent))
	}
	return append(l.o.compact(), tr)
}

// placeGroup signs and sends createOrders with grp: entry (nil for a
// position group) then the legs.
func (tr *trader) placeGroup(grp string, entry *ord, legs ...leg) []ack {
	tr.e.t.Helper()
	var keyed []string
	rows := []any{}
	if entry != nil {
		keyed, rows = append(keyed, entry.keyed()), append(rows, entry.compact())
	}
	for _, l := range legs {
		keyed, rows = append(keyed, l.keyed()), append(rows, l.compact())
	}
	op := `{"type":"createOrders","args":[` + strings.Join(keyed, ",") + `],"grp":"` + grp + `"}`
	code, body := tr.signed("POST", "/v1/trade/orders", tr.proxy, op, []any{"createOrders", rows, grp}, "")
	return tr.acks(code, body, len(keyed))
}

func (tr *trader) acks(code int, body string, n int) []ack {
	tr.e.t.Helper()
	var acks []ack
	if err := json.Unmarshal([]byte(body), &acks); err != nil || len(acks) != n {
		tr.e.t.Fatalf("place: %d %s", code, body)
	}
	return acks
}

// positions is the number of open positions in tr's portfolio.
func (tr *trader) positions() int {
	tr.e.t.Helper()
	var p struct{ Positions []any }
	if code, body := tr.read("/v1/account/portfolio", &p); code != 200 {
		tr.e.t.Fatalf("portfolio: %d %s", code, body)
	}
	return len(p.Positions)
}

// TestTPSLBracketTakeProfitFiresOnMarkRiseAndClosesPosition: a bracket
// entry (buy 0.5 at 60,000) with a market TP at 62,000 and SL at 58,000;
// the legs are untriggered until the entry fills, then armed; modifying
// a leg or the entry is refused with order_has_tpsl; the mark (index) rises
// to 62,000 and the TP's reduce-only exit closes the position against a
// bid, the SL is cancelled; the private tpsl channel pushes the TP's
// lifecycle (untriggered, armed, triggered).
func TestTPSLBracketTakeProfitFiresOnMarkRiseAndClosesPosition(t *testing.T) {
	e := newEnv(t, Options{})
	e.instrument()
	e.adminPost("/admin/perps/index", `{"instrument_id":1,"price":"60000"}`)
	long, mm := e.trader(1, "100000"), e.trader(2, "1000000")
	w := e.dial(t)
	w.auth(long)
	if d := w.call("sub", `"chs":["tpsl"]`); string(d) != `[{"status":"ok"}]` {
		t.Fatalf("sub: %s", d)
	}
	entry := ord{iid: 1, buy: true, p: "60000", qty: "0.5"}
	sell := ord{iid: 1, qty: "0.5", ro: boolp(true)}
	acks := long.placeGroup("order", &entry, leg{o: sell, market: true, trp: "62000", kind: "tp"},
		leg{o: sell, market: true, trp: "58000", kind: "sl"})
	for _, a := range acks {
		if a.Status != "ok" {
			t.Fatalf("bracket acks: %+v", acks)
		}
	}
	tp, sl := acks[1].OID, acks[2].OID
	if o := long.order(tp); o.Status != "untriggered" {
		t.Fatalf("tp before the entry fills: %+v", o)
	}
	for _, oid := range []uint64{tp, acks[0].OID} {
		if it := long.modify(mod{oid: oid, p: "60000", qty: "0.6"}); it[0].Error != "order_has_tpsl" {
			t.Errorf("modify %d: %+v, want order_has_tpsl", oid, it[0])
		}
	}
	mm.placeOK(ord{iid: 1, p: "60000", qty: "0.5"})
	long.waitStatus(tp, "armed")
	if long.positions() != 1 {
		t.Fatal("no position after the entry filled")
	}
	mm.placeOK(ord{iid: 1, buy: true, p: "61900", qty: "1"})
	e.adminPost("/admin/perps/index", `{"instrument_id":1,"price":"62000"}`)
	long.waitStatus(tp, "triggered")
	long.waitStatus(sl, "cancelled")
	f := long.waitFills(2)[0]
	if f.Side != "short" || f.Quantity != "0.5" || f.Price != "61900" {
		t.Fatalf("exit fill: %+v", f)
	}
	if n := long.positions(); n != 0 {
		t.Fatalf("positions after the TP: %d", n)
	}
	// The private tpsl channel pushed the TP leg's lifecycle on tpsl::1.
	var seen []string
	for len(seen) == 0 || seen[len(seen)-1] != "triggered" {
		_, d := w.pushOn("tpsl::1")
		var p struct {
			OID uint64 `json:"oid"`
			St  string `json:"st"`
		}
		if err := json.Unmarshal(d, &p); err != nil {
			t.Fatalf("tpsl push %s: %v", d, err)
		}
		if p.OID == tp {
			seen = append(seen, p.St)
		}
	}
	if strings.Join(seen, ",") != "untriggered,armed,triggered" {
		t.Errorf("tp pushes: %v", seen)
	}
}

// TestTPSLPositionStopLossFiresOnMarkFallAndClosesWholePosition: a
// position-scoped SL (qty "0", market) on a 0.3 long closes all of it when
// the mark falls to the trigger; a second position SL on the instrument is
// refused, and a TP the mark has already crossed is refused; the leg
// survives a restart.
func TestTPSLPositionStopLossFiresOnMarkFallAndClosesWholePosition(t *testing.T) {
	e := newEnv(t, Options{})
	e.instrument()
	e.adminPost("/admin/perps/index", `{"instrument_id":1,"price":"60000"}`)
	long, mm := e.trader(1, "100000"), e.trader(2, "1000000")
	mm.placeOK(ord{iid: 1, p: "60000", qty: "0.3"})
	long.placeOK(ord{iid: 1, buy: true, p: "60000", qty: "0.3", tif: "ioc"})
	sl := leg{o: ord{iid: 1, qty: "0", ro: boolp(true)}, market: true, trp: "57000", kind: "sl"}
	a := long.placeGroup("position", nil, sl)[0]
	if a.Status != "ok" {
		t.Fatalf("position sl: %+v", a)
	}
	if o := long.order(a.OID); o.Status != "armed" {
		t.Fatalf("position sl: %+v", o)
	}
	if d := long.placeGroup("position", nil, sl)[0]; d.Status != "err" {
		t.Errorf("second position sl: %+v", d)
	}
	crossed := sl
	crossed.trp, crossed.kind = "59000", "tp" // a TP below the mark of a long
	if d := long.placeGroup("position", nil, crossed)[0]; d.Error != "invalid_command" {
		t.Errorf("crossed sl: %+v", d)
	}
	if it := long.modify(mod{oid: a.OID, p: "57000", qty: "0.3"}); it[0].Error != "order_has_tpsl" {
		t.Errorf("modify a leg: %+v", it[0])
	}
	e.restart() // the leg is replayed from the journal (tr and grp on the record)
	if o := long.order(a.OID); o.Status != "armed" {
		t.Fatalf("position sl after a restart: %+v", o)
	}
	mm.placeOK(ord{iid: 1, buy: true, p: "56900", qty: "1"})
	e.adminPost("/admin/perps/index", `{"instrument_id":1,"price":"57000"}`)
	long.waitStatus(a.OID, "triggered")
	f := long.waitFills(2)[0]
	if f.Side != "short" || f.Quantity != "0.3" || f.Price != "56900" {
		t.Fatalf("exit fill: %+v", f)
	}
	if n := long.positions(); n != 0 {
		t.Fatalf("positions after the SL: %d", n)
	}
}
