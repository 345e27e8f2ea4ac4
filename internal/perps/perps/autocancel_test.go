package perps

import "testing"

// TestAutoCancelRules: arming needs a deadline at least 5 s ahead
// (auto_cancel_deadline_too_soon), disarming is always allowed, a trigger
// cancels every open order with status auto_cancelled and disarms, and the
// triggers of one UTC day are limited (auto_cancel_daily_limit_reached),
// with a fresh allowance the next day.
func TestAutoCancelRules(t *testing.T) {
	const a = "0x00000000000000000000000000000000000000aa"
	m := New(Config{})
	seq := uint64(0)
	do := func(ts int64, c Command) Event {
		t.Helper()
		seq++
		return m.Apply(seq, ts, cmd(c), nil)[0]
	}
	ts := int64(10 * dayMs)
	do(ts, Command{Kind: KCreateInstrument, Instrument: &InstrumentSpec{Symbol: "BTC-USD", Category: "crypto", PriceDecimals: 1, QtyDecimals: 3, MaxLeverage: 20}})
	do(ts, Command{Kind: KDeposit, Account: a, Amount: "100000"})
	arm := func(ts, dl int64) string {
		return do(ts, Command{Kind: KAutoCancel, Account: a, Deadline: dl, DailyLimit: 2}).Err
	}
	if e := arm(ts, ts+4999); e != "auto_cancel_deadline_too_soon" {
		t.Fatalf("4.999 s ahead: %q", e)
	}
	if e := arm(ts, 0); e != "" {
		t.Fatalf("disarm: %q", e)
	}
	for round := range 2 {
		ack := do(ts, Command{Kind: KCreateOrders, Account: a, Orders: []OrderReq{{IID: 1, Buy: true, P: sp("100"), Qty: "1"}}}).Acks[0]
		if e := arm(ts, ts+5000); e != "" || m.NextAutoCancel() != ts+5000 {
			t.Fatalf("round %d: arm %q next %d", round, e, m.NextAutoCancel())
		}
		do(ts+4999, Command{Kind: KAutoCancelFire})
		if st := m.orders[ack.OID].Status; st != StOpen {
			t.Fatalf("round %d: before the deadline: %s", round, st)
		}
		ev := do(ts+5000, Command{Kind: KAutoCancelFire})
		if st := m.orders[ack.OID].Status; st != StAutoCancelled || len(ev.Orders) != 1 || ev.Orders[0].Status != StAutoCancelled {
			t.Fatalf("round %d: at the deadline: %s, pushed %+v", round, st, ev.Orders)
		}
		if m.NextAutoCancel() != 0 {
			t.Fatalf("round %d: still armed", round)
		}
		ts += 6000
	}
	if e := arm(ts, ts+5000); e != "auto_cancel_daily_limit_reached" {
		t.Fatalf("third trigger of the day: %q", e)
	}
	if e := arm(ts, 0); e != "" {
		t.Fatalf("disarm at the limit: %q", e)
	}
	if e := arm(11*dayMs, 11*dayMs+5000); e != "" {
		t.Fatalf("next UTC day: %q", e)
	}
}
