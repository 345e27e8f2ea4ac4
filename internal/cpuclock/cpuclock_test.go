package cpuclock

import "testing"

// TestProcessAdvancesWithWork: spinning on the CPU moves the clock.
func TestProcessAdvancesWithWork(t *testing.T) {
	m := Start()
	x := 0
	for i := 0; m.Since() <= 0 && i < 1<<40; i++ {
		x += i
	}
	if m.Since() <= 0 {
		t.Fatalf("CPU clock did not advance (%d)", x)
	}
}
