package clock

import (
	"testing"
	"time"
)

// TestManualFiresOnlyWhenAdvancedPastDue: a timer fires when the clock
// reaches its time, not before; a stopped timer never fires.
func TestManualFiresOnlyWhenAdvancedPastDue(t *testing.T) {
	t0 := time.Unix(1_700_000_000, 0)
	c := NewManual(t0)
	due := c.NewTimer(10 * time.Second)
	stopped := c.NewTimer(10 * time.Second)
	if !stopped.Stop() || stopped.Stop() {
		t.Fatal("Stop: want true once, then false")
	}
	if c.Pending() != 1 {
		t.Fatalf("pending = %d, want 1", c.Pending())
	}
	c.Advance(9 * time.Second)
	select {
	case <-due.C():
		t.Fatal("fired before its time")
	default:
	}
	c.Advance(time.Second)
	if got := <-due.C(); !got.Equal(t0.Add(10 * time.Second)) {
		t.Fatalf("fired at %v, want %v", got, t0.Add(10*time.Second))
	}
	select {
	case <-stopped.C():
		t.Fatal("a stopped timer fired")
	default:
	}
	if due.Stop() {
		t.Fatal("Stop after firing: want false")
	}
	if !c.Now().Equal(t0.Add(10 * time.Second)) {
		t.Fatalf("Now = %v", c.Now())
	}
}

// TestManualAfterFuncAndWaitForTimers: AfterFunc runs f once due; a test
// can wait until a goroutine is parked on the clock before advancing it.
func TestManualAfterFuncAndWaitForTimers(t *testing.T) {
	c := NewManual(time.Unix(0, 0))
	ran := make(chan struct{})
	go c.AfterFunc(time.Minute, func() { close(ran) })
	c.WaitForTimers(1)
	c.Advance(time.Minute)
	<-ran // a missing call hangs until the test deadline
	if c.NewTimer(0) == nil || c.Pending() != 0 {
		t.Fatal("a timer due now fires at once and is not pending")
	}
}

// TestSystemIsTheRealClock: System's timers fire (the channel delivers).
func TestSystemIsTheRealClock(t *testing.T) {
	var c Clock = System{}
	if d := time.Since(c.Now()); d < 0 || d > time.Hour {
		t.Fatalf("System.Now is %v from time.Now", d)
	}
	<-c.NewTimer(time.Millisecond).C()
}
