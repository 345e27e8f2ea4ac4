package perps

import (
	"bytes"
	"testing"
)

const (
	acA = "0x00000000000000000000000000000000000000aa"
	acB = "0x00000000000000000000000000000000000000bb"
)

// flight is a machine with one instrument, two funded accounts and a clock.
type flight struct {
	t  *testing.T
	m  *Machine
	ts int64
}

func newFlight(t *testing.T, cfg Config) *flight {
	f := &flight{t: t, m: New(cfg), ts: 1000}
	f.do(Command{Kind: KCreateInstrument, Instrument: &InstrumentSpec{Symbol: "BTC-USD", Category: "crypto", PriceDecimals: 1, QtyDecimals: 3, MaxLeverage: 20}})
	f.do(Command{Kind: KDeposit, Account: acA, Amount: "100000"})
	f.do(Command{Kind: KDeposit, Account: acB, Amount: "100000"})
	return f
}

func (f *flight) do(c Command) Event {
	f.t.Helper()
	evs := f.m.Apply(0, f.ts, c.Encode(), nil)
	return evs[0]
}

func (f *flight) place(acct string, buy bool, p, q string) uint64 {
	f.t.Helper()
	ev := f.do(Command{Kind: KCreateOrders, Account: acct, Orders: []OrderReq{{IID: 1, Buy: buy, P: sp(p), Qty: q}}})
	if len(ev.Acks) != 1 || ev.Acks[0].Status != "ok" {
		f.t.Fatalf("place: %+v %s", ev.Acks, ev.Err)
	}
	return ev.Acks[0].OID
}

func (f *flight) cancel(acct string, oid uint64) ItemResult {
	f.t.Helper()
	return f.do(Command{Kind: KCancel, Account: acct, OIDs: []uint64{oid}}).Items[0]
}

func (f *flight) status(oid uint64) string { return f.m.orders[oid].Status }

// TestCancelStateTable walks every row of the contract's cancel state table
// and every cancel/modify identifier the in-flight windows produce.
func TestCancelStateTable(t *testing.T) {
	t.Run("held cancel succeeds once the accept completes", func(t *testing.T) {
		f := newFlight(t, Config{AcceptDelayMs: 20})
		oid := f.place(acA, true, "100", "1")
		if r := f.cancel(acA, oid); r.Status != StatusHeld || r.Due != 1020 {
			t.Fatalf("first cancel: %+v", r)
		}
		if r := f.cancel(acA, oid); r.Error != "order_not_pending_engine" {
			t.Errorf("second cancel while one is held: %+v", r)
		}
		if f.m.HeldOutcome(oid) != "" || f.m.NextDue() != 1020 {
			t.Fatalf("resolved before the accept completed")
		}
		f.ts = 1020
		ev := f.do(Command{Kind: KTick})
		if f.m.HeldOutcome(oid) != "ok" || f.status(oid) != StCancelled || len(ev.Orders) == 0 {
			t.Errorf("after the accept: outcome %q status %q orders %v", f.m.HeldOutcome(oid), f.status(oid), ev.Orders)
		}
		if r := f.cancel(acA, oid); r.Error != "order_already_terminal" {
			t.Errorf("cancel after: %+v", r)
		}
	})
	t.Run("held cancel of an order that filled on entry", func(t *testing.T) {
		f := newFlight(t, Config{AcceptDelayMs: 20})
		ask := f.place(acB, false, "100", "1")
		f.ts = 1020
		f.do(Command{Kind: KTick}) // the ask rests
		oid := f.place(acA, true, "100", "1")
		f.cancel(acA, oid)
		f.ts = 1040
		f.do(Command{Kind: KTick})
		if f.m.HeldOutcome(oid) != "order_already_terminal" || f.status(oid) != StFilled || f.status(ask) != StFilled {
			t.Errorf("outcome %q, statuses %q %q", f.m.HeldOutcome(oid), f.status(oid), f.status(ask))
		}
	})
	t.Run("held cancels disabled", func(t *testing.T) {
		f := newFlight(t, Config{AcceptDelayMs: 20, NoHeldCancels: true})
		oid := f.place(acA, true, "100", "1")
		if r := f.cancel(acA, oid); r.Error != "order_in_flight" {
			t.Errorf("cancel: %+v", r)
		}
		f.ts = 1020
		f.do(Command{Kind: KTick})
		if f.status(oid) != StOpen || f.cancel(acA, oid).Status != "ok" {
			t.Errorf("after the accept the order rests and cancels normally")
		}
	})
	t.Run("taker delay", func(t *testing.T) {
		f := newFlight(t, Config{TakerDelayMs: 20})
		ask := f.place(acB, false, "100", "1") // rests at once: nothing to match
		oid := f.place(acA, true, "101", "1")  // would match: waits
		if r := f.cancel(acA, oid); r.Error != "order_in_flight" {
			t.Errorf("cancel in taker delay: %+v", r)
		}
		ev := f.do(Command{Kind: KModify, Account: acA, Modifies: []ModifyReq{{OID: oid, P: "99", Qty: "1"}}})
		if ev.Items[0].Error != "order_in_flight" {
			t.Errorf("modify in taker delay: %+v", ev.Items[0])
		}
		f.ts = 1019
		f.do(Command{Kind: KTick})
		if f.status(ask) != StOpen {
			t.Fatal("matched before the delay ended")
		}
		f.ts = 1020
		f.do(Command{Kind: KTick})
		if f.status(oid) != StFilled || f.status(ask) != StFilled {
			t.Errorf("after the delay: %q %q", f.status(oid), f.status(ask))
		}
	})
	t.Run("accept then taker delay; modify in flight", func(t *testing.T) {
		f := newFlight(t, Config{AcceptDelayMs: 10, TakerDelayMs: 20})
		f.place(acB, false, "100", "1")
		f.ts = 1010
		f.do(Command{Kind: KTick})
		oid := f.place(acA, true, "100", "1")
		ev := f.do(Command{Kind: KModify, Account: acA, Modifies: []ModifyReq{{OID: oid, P: "99", Qty: "1"}}})
		if ev.Items[0].Error != "order_in_flight" {
			t.Errorf("modify during accept: %+v", ev.Items[0])
		}
		f.ts = 1020 // accept done, would match: taker delay until 1040
		f.do(Command{Kind: KTick})
		if r := f.cancel(acA, oid); r.Error != "order_in_flight" || f.m.NextDue() != 1040 {
			t.Errorf("cancel in taker delay after accept: %+v due %d", r, f.m.NextDue())
		}
		// The in-flight state survives a snapshot.
		var buf bytes.Buffer
		f.m.Snapshot(&buf)
		r := New(f.m.cfg)
		if err := r.Restore(&buf); err != nil || r.Hash() != f.m.Hash() || r.NextDue() != 1040 {
			t.Fatalf("restore: %v", err)
		}
		f.m = r
		f.ts = 1040
		f.do(Command{Kind: KTick})
		if f.status(oid) != StFilled {
			t.Errorf("after restore and delay: %q", f.status(oid))
		}
	})
	t.Run("zero delays: the windows have zero length", func(t *testing.T) {
		f := newFlight(t, Config{})
		oid := f.place(acA, true, "100", "1")
		if r := f.cancel(acA, oid); r.Status != "ok" {
			t.Errorf("cancel: %+v", r)
		}
	})
}
