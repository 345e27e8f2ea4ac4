package perpshttp

import (
	"testing"
	"time"

	"pmx/internal/perps/perps"
)

// heldWait polls (bounded) until oid has a held cancel.
func (e *env) heldWait(t *testing.T, oid uint64) {
	t.Helper()
	for range 10000 {
		var held bool
		e.srv.view(func(m *perps.Machine) { _, held = m.InFlight(oid) })
		if held {
			return
		}
		time.Sleep(time.Millisecond)
	}
	t.Fatalf("order %d: no held cancel", oid)
}

// TestHeldCancelOverHTTP: with an accept delay the cancel of an order whose
// accept is in flight is held and its HTTP answer is the final outcome,
// given once the accept completed; a second cancel meanwhile is
// order_not_pending_engine; a modify is order_in_flight.
func TestHeldCancelOverHTTP(t *testing.T) {
	e := newEnv(t, Options{AcceptDelay: 20 * time.Millisecond})
	e.instrument()
	a := e.trader(1, "100000")
	oid := a.placeOK(ord{iid: 1, buy: true, p: "100", qty: "1"})
	if it := a.modify(mod{oid: oid, p: "99", qty: "1"}); it[0].Error != "order_in_flight" {
		t.Errorf("modify in flight: %+v", it)
	}
	done := make(chan []item, 1)
	go func() { done <- a.cancel(oid) }()
	e.heldWait(t, oid)
	if it := a.cancel(oid); it[0].Error != "order_not_pending_engine" {
		t.Errorf("second cancel: %+v", it)
	}
	notAnswered(t, done, "held cancel answered before the accept completed")
	e.advance(20 * time.Millisecond)
	if it := <-done; len(it) != 1 || it[0].Status != "ok" || it[0].OID != oid {
		t.Errorf("held cancel outcome: %+v", it)
	}
	if o := a.order(oid); o.Status != "cancelled" {
		t.Errorf("order after the held cancel: %+v", o)
	}
}

// TestAcceptDelayPump: an accepted order enters the book when its accept is
// due without any other traffic (the server's KTick pump).
func TestAcceptDelayPump(t *testing.T) {
	e := newEnv(t, Options{AcceptDelay: 20 * time.Millisecond, NoHeldCancels: true})
	e.instrument()
	a := e.trader(1, "100000")
	oid := a.placeOK(ord{iid: 1, buy: true, p: "100", qty: "1"})
	if it := a.cancel(oid); it[0].Error != "order_in_flight" {
		t.Errorf("cancel with held cancels disabled: %+v", it)
	}
	e.advance(20 * time.Millisecond)
	e.waitBids(t, 1)
}
