//go:build perpsaudit

package perps

import "testing"

// TestAuditCatchesDisagreement: the audit is not vacuous: a balance that
// does not match its credits, an open order missing from the book and an
// open-interest drift are each reported.
func TestAuditCatchesDisagreement(t *testing.T) {
	f := newFlight(t, Config{})
	oid := f.place(acA, true, "100", "1")
	if err := f.m.check(); err != nil {
		t.Fatalf("a consistent machine: %v", err)
	}
	for name, corrupt := range map[string]func(m *Machine) func(){
		"balance": func(m *Machine) func() { m.accts[acA].Balance++; return func() { m.accts[acA].Balance-- } },
		"open order not in book": func(m *Machine) func() {
			o := m.orders[oid]
			o.Due = 5
			return func() { o.Due = 0 }
		},
		"open interest": func(m *Machine) func() { m.inst[1].OpenInterest += 3; return func() { m.inst[1].OpenInterest -= 3 } },
	} {
		undo := corrupt(f.m)
		if f.m.check() == nil {
			t.Errorf("%s: not caught", name)
		}
		undo()
	}
}
