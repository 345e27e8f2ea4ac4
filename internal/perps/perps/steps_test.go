package perps

import "testing"

// TestStepsOrderAndBound: the first due step wins (lowest id among equal due
// times), outcomes are read by id, and only the newest resolved steps are
// kept.
func TestStepsOrderAndBound(t *testing.T) {
	q := steps[*COIDWait]{next: 1}
	for _, due := range []int64{30, 20, 20} {
		q.add(&COIDWait{}, due)
	}
	if i := q.first(); i != 1 || q.pend[i].ID != 2 || q.nextDue() != 20 {
		t.Fatalf("first = %d (id %d), nextDue %d; want index 1, id 2, due 20", i, q.pend[i].ID, q.nextDue())
	}
	w := q.take(1)
	q.resolve(w, ItemResult{Status: "ok", OID: 7})
	if out, ok := q.outcome(2); !ok || out.OID != 7 || w.Due != 0 {
		t.Fatalf("outcome(2) = %+v %v, due %d", out, ok, w.Due)
	}
	if _, ok := q.outcome(1); ok || len(q.pend) != 2 {
		t.Fatalf("pending step 1 has an outcome, or pend is %d long", len(q.pend))
	}
	for i := 0; i < 2*keptSteps; i++ {
		q.resolve(q.take(0), ItemResult{Status: "ok"})
		if len(q.pend) == 0 {
			q.add(&COIDWait{}, 1)
		}
	}
	if len(q.done) > 2*keptSteps {
		t.Fatalf("%d resolved steps kept, bound %d", len(q.done), 2*keptSteps)
	}
	if _, ok := q.outcome(2); ok {
		t.Fatal("the oldest outcome is still kept")
	}
	if _, ok := q.outcome(q.next - 2); !ok {
		t.Fatal("the newest outcome was dropped")
	}
}
