package perps

import (
	"bytes"
	"testing"
)

func (f *flight) cancelCOID(acct string, coids ...string) []ItemResult {
	f.t.Helper()
	return f.do(Command{Kind: KCancelCOID, Account: acct, COIDs: coids}).Items
}

func (f *flight) placeCOID(acct, coid string) uint64 {
	f.t.Helper()
	ev := f.do(Command{Kind: KCreateOrders, Account: acct, Orders: []OrderReq{{IID: 1, Buy: true, P: sp("100"), Qty: "1", C: coid}}})
	if len(ev.Acks) != 1 || ev.Acks[0].Status != "ok" {
		f.t.Fatalf("place: %+v %s", ev.Acks, ev.Err)
	}
	return ev.Acks[0].OID
}

const (
	coidX = "0000000000000000000000000000000a"
	coidY = "0000000000000000000000000000000b"
)

// TestCancelByCOIDWaitsForARacingCreate: perps.md §9.6, cancel-by-coid waits
// for a racing create, then order_unknown.
func TestCancelByCOIDWaitsForARacingCreate(t *testing.T) {
	t.Run("without the window an unknown coid is order_unknown at once", func(t *testing.T) {
		f := newFlight(t, Config{})
		if r := f.cancelCOID(acA, coidX); r[0].Error != "order_unknown" || r[0].COID != coidX {
			t.Fatalf("%+v", r)
		}
	})
	t.Run("the create lands inside the window: the order is cancelled", func(t *testing.T) {
		f := newFlight(t, Config{COIDWaitMs: 100})
		r := f.cancelCOID(acA, coidX)
		if r[0].Status != StatusHeld || r[0].Due != 1100 || r[0].CC == 0 || f.m.COIDWaiting() != 1 {
			t.Fatalf("cancel: %+v", r)
		}
		f.ts = 1050
		oid := f.placeCOID(acA, coidX)
		out, ok := f.m.COIDCancelOutcome(r[0].CC)
		if !ok || out.Status != "ok" || out.COID != coidX || f.status(oid) != StCancelled || f.m.COIDWaiting() != 0 {
			t.Fatalf("outcome %+v %v, order %s", out, ok, f.status(oid))
		}
	})
	t.Run("no create in time: order_unknown at the due time, and a later create stands", func(t *testing.T) {
		f := newFlight(t, Config{COIDWaitMs: 100})
		r := f.cancelCOID(acA, coidX, coidY)
		f.ts = 1050
		f.placeCOID(acB, coidY) // another account's coid is not this one's
		if _, ok := f.m.COIDCancelOutcome(r[1].CC); ok {
			t.Fatal("resolved by another account's order")
		}
		if f.m.NextDue() != 1100 {
			t.Fatalf("next due %d", f.m.NextDue())
		}
		f.tick(1100)
		for i, coid := range []string{coidX, coidY} {
			if out, ok := f.m.COIDCancelOutcome(r[i].CC); !ok || out.Error != "order_unknown" || out.COID != coid {
				t.Errorf("%s: %+v %v", coid, out, ok)
			}
		}
		f.ts = 1100 // a create applied at the due time is too late
		if oid := f.placeCOID(acA, coidX); f.status(oid) != StOpen {
			t.Errorf("late create: %s", f.status(oid))
		}
	})
	t.Run("the new order's accept is in flight: the cancel is held with it", func(t *testing.T) {
		f := newFlight(t, Config{COIDWaitMs: 100, AcceptDelayMs: 5})
		r := f.cancelCOID(acA, coidX)
		oid := f.placeCOID(acA, coidX)
		out, ok := f.m.COIDCancelOutcome(r[0].CC)
		if !ok || out.Status != StatusHeld || out.OID != oid {
			t.Fatalf("outcome %+v %v", out, ok)
		}
		f.tick(1005)
		if got := f.m.HeldOutcome(oid); got != "ok" || f.status(oid) != StCancelled {
			t.Errorf("held outcome %q, order %s", got, f.status(oid))
		}
	})
	t.Run("a snapshot keeps the waiting cancel", func(t *testing.T) {
		f := newFlight(t, Config{COIDWaitMs: 100})
		r := f.cancelCOID(acA, coidX)
		var snap bytes.Buffer
		if err := f.m.Snapshot(&snap); err != nil {
			t.Fatal(err)
		}
		g := New(Config{})
		if err := g.Restore(&snap); err != nil {
			t.Fatal(err)
		}
		f.m = g
		f.ts = 1010
		f.placeCOID(acA, coidX)
		if out, ok := f.m.COIDCancelOutcome(r[0].CC); !ok || out.Status != "ok" {
			t.Fatalf("after restore: %+v %v", out, ok)
		}
	})
}
