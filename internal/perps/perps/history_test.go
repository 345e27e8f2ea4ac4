package perps

import (
	"bytes"
	"testing"
)

// TestEquityAndPnLHistorySampling: equity is sampled after each command that
// changed an account's money (last sample per bucket, stamped with its own
// time) and at the first command of each engine hour for accounts holding a
// position; realized pnl and fees add up per bucket, stamped at the bucket's
// start; pages hold at most the limit, oldest first, with more.
func TestEquityAndPnLHistorySampling(t *testing.T) {
	m := New(Config{})
	m.cfg.MakerPPM, m.cfg.TakerPPM = 0, 400
	a, b := "0xa", "0xb"
	var seq uint64
	at := func(ts int64, c Command) Event {
		seq++
		return m.Apply(seq, ts, cmd(c), nil)[0]
	}
	const h0 = 100 * hourMs
	at(h0, Command{Kind: KCreateInstrument, Instrument: &InstrumentSpec{Symbol: "X-USD", Category: "index", PriceDecimals: 2, QtyDecimals: 2, MaxLeverage: 10}})
	at(h0+1000, Command{Kind: KDeposit, Account: a, Amount: "1000"})
	at(h0+2000, Command{Kind: KDeposit, Account: b, Amount: "1000"})
	at(h0+3000, Command{Kind: KDeposit, Account: a, Amount: "500"}) // same minute: replaces the sample
	eq, more := m.EquityHistory(a, minuteMs, 0, MaxMs, 10)
	if more || len(eq) != 1 || eq[0] != (HistPoint{h0 + 3000, 1500e6}) {
		t.Fatalf("after two deposits in one minute: %+v more %v", eq, more)
	}
	// b sells 1 @10 to a (taker, 0.04% of 10 = 0.004 fee).
	at(h0+minuteMs, Command{Kind: KCreateOrders, Account: b, Orders: []OrderReq{{IID: 1, P: sp("10"), Qty: "1"}}})
	at(h0+2*minuteMs, Command{Kind: KCreateOrders, Account: a, Orders: []OrderReq{{IID: 1, Buy: true, P: sp("10"), Qty: "1", TIF: sp("ioc")}}})
	pnl, _ := m.PnLHistory(a, hourMs, 0, MaxMs, 10)
	if len(pnl) != 1 || pnl[0] != (HistPoint{h0, -4000}) {
		t.Fatalf("a's pnl after paying a taker fee: %+v", pnl)
	}
	if p, _ := m.PnLHistory(b, hourMs, 0, MaxMs, 10); len(p) != 1 || p[0].V != 0 {
		t.Fatalf("b's pnl (maker, no fee): %+v", p)
	}
	// The index moves; nothing touches a, but the next hour's first command
	// samples every account with a position.
	at(h0+3*minuteMs, Command{Kind: KIndex, IID: 1, Price: "12"})
	at(h0+hourMs+5, Command{Kind: KTick})
	eq, _ = m.EquityHistory(a, hourMs, 0, MaxMs, 10)
	if len(eq) != 2 || eq[1] != (HistPoint{h0 + hourMs + 5, 1500e6 - 4000 + 2e6}) {
		t.Fatalf("hourly pass: %+v", eq)
	}
	// a sells 1 @12 to b: +2 realized, −0.0048 fee, in the second hour.
	at(h0+hourMs+minuteMs, Command{Kind: KCreateOrders, Account: b, Orders: []OrderReq{{IID: 1, Buy: true, P: sp("12"), Qty: "1"}}})
	at(h0+hourMs+2*minuteMs, Command{Kind: KCreateOrders, Account: a, Orders: []OrderReq{{IID: 1, P: sp("12"), Qty: "1", TIF: sp("ioc")}}})
	pnl, _ = m.PnLHistory(a, hourMs, 0, MaxMs, 10)
	if len(pnl) != 2 || pnl[1] != (HistPoint{h0 + hourMs, 2e6 - 4800}) {
		t.Fatalf("second hour's pnl: %+v", pnl)
	}
	if p, _ := m.PnLHistory(a, 4*hourMs, 0, MaxMs, 10); len(p) != 1 || p[0] != (HistPoint{h0 / (4 * hourMs) * 4 * hourMs, 2e6 - 8800}) {
		t.Fatalf("4h bucket sums both hours: %+v", p)
	}
	if p, more := m.PnLHistory(a, hourMs, 0, MaxMs, 1); len(p) != 1 || !more || p[0].TS != h0 {
		t.Fatalf("page of one: %+v more %v", p, more)
	}
	if p, _ := m.PnLHistory(a, hourMs, h0+hourMs+30*minuteMs, MaxMs, 10); len(p) != 1 || p[0].TS != h0+hourMs {
		t.Fatalf("a bucket overlapping start is answered: %+v", p)
	}
	if p, _ := m.EquityHistory(a, dayMs, 0, MaxMs, 10); len(p) != 1 || p[0].TS != h0+hourMs+2*minuteMs {
		t.Fatalf("one day bucket, its last sample: %+v", p)
	}
	if p, _ := m.EquityHistory("0xnobody", hourMs, 0, MaxMs, 10); len(p) != 0 {
		t.Fatalf("unknown account: %+v", p)
	}
	// The history is state: a snapshot restores it.
	var buf bytes.Buffer
	m.Snapshot(&buf)
	m2 := New(Config{})
	if err := m2.Restore(&buf); err != nil {
		t.Fatal(err)
	}
	if m2.Hash() != m.Hash() {
		t.Fatal("restored history differs")
	}
}

// TestHistoryIsBounded: a series keeps at most keep×5/4 buckets however many
// minutes an account is active.
func TestHistoryIsBounded(t *testing.T) {
	m := New(Config{})
	for i := int64(0); i < 5000; i++ {
		m.Apply(uint64(i+1), i*minuteMs, cmd(Command{Kind: KDeposit, Account: "0xa", Amount: "1"}), nil)
	}
	h := m.accts["0xa"].Hist
	if n := len(h.EqMin); n > eqMinKeep*5/4 || n < eqMinKeep {
		t.Fatalf("minute series holds %d", n)
	}
	if h.EqMin[len(h.EqMin)-1].TS != 4999*minuteMs {
		t.Fatal("the newest sample was dropped")
	}
	if n := len(h.EqMin) + len(h.EqHour) + len(h.EqDay) + len(h.PnLHour) + len(h.PnLDay); n > histBound {
		t.Fatalf("%d points", n)
	}
}
