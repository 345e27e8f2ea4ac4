package perpshttp

import (
	"testing"
	"time"
)

// TestCancelByCOIDWaitsForARacingCreate (perps.md §9.6): with the window set,
// a cancel-by-coid sent before its order's create answers ok once the create
// lands, and an unknown coid answers order_unknown when the window ends. The
// server's clock is the test's: nothing depends on real time passing.
func TestCancelByCOIDWaitsForARacingCreate(t *testing.T) {
	const coid, other = "00000000000000000000000000000c01", "00000000000000000000000000000c02"
	e := newEnv(t, Options{COIDWait: 100 * time.Millisecond})
	e.instrument()
	a := e.trader(1, "100000")

	done := make(chan []item, 1)
	go func() { done <- a.cancelCOID(coid) }()
	e.waitDue(t) // the cancel is waiting in the engine
	oid := a.placeOK(ord{iid: 1, buy: true, p: "100", qty: "1", c: coid})
	if it := <-done; len(it) != 1 || it[0].Status != "ok" {
		t.Fatalf("cancel racing its create: %+v", it)
	}
	if o := a.order(oid); o.Status != "cancelled" {
		t.Errorf("order after the racing cancel: %+v", o)
	}

	go func() { done <- a.cancelCOID(other) }()
	e.waitDue(t)
	notAnswered(t, done, "answered before the window ended")
	e.advance(100 * time.Millisecond)
	if it := <-done; len(it) != 1 || it[0].Error != "order_unknown" {
		t.Fatalf("unknown coid after the window: %+v", it)
	}
}

// TestCancelByCOIDThenHeld: a cancel-by-coid whose racing create lands with
// its accept in flight becomes a held cancel of the new order, and its
// answer is that held cancel's outcome once the accept completes.
func TestCancelByCOIDThenHeld(t *testing.T) {
	const coid = "00000000000000000000000000000c03"
	e := newEnv(t, Options{COIDWait: 100 * time.Millisecond, AcceptDelay: 50 * time.Millisecond})
	e.instrument()
	a := e.trader(1, "100000")

	done := make(chan []item, 1)
	go func() { done <- a.cancelCOID(coid) }()
	e.waitDue(t)
	oid := a.placeOK(ord{iid: 1, buy: true, p: "100", qty: "1", c: coid})
	e.advance(50 * time.Millisecond) // the accept completes
	if it := <-done; len(it) != 1 || it[0].Status != "ok" || it[0].OID != oid {
		t.Fatalf("cancel held behind the accept: %+v", it)
	}
	if o := a.order(oid); o.Status != "cancelled" {
		t.Errorf("order after the held cancel: %+v", o)
	}
}
