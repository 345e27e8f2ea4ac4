package perps

// A pending modify (pendmod.go) and a cancel-by-coid waiting for its create
// (coidwait.go) are the same thing: a step with an id and a due time whose
// outcome is kept, once resolved, for the submitter who reads it after the
// command that resolved it (ModifyOutcome, COIDCancelOutcome). steps holds
// one kind of them. (An in-flight order is not one: its due time and its
// held-cancel outcome are state of the order itself, inflight.go.)

// Step is the part every kind of pending step shares.
type Step struct {
	ID  uint64      `json:"id"`
	Due int64       `json:"due"`           // 0 once resolved
	Out *ItemResult `json:"out,omitempty"` // the outcome once resolved
}

func (s *Step) step() *Step { return s }

type stepper interface{ step() *Step }

// keptSteps bounds the resolved steps of one kind kept for their waiters.
const keptSteps = 1024

// steps is one kind of pending step. Invariant: pend holds exactly the
// unresolved steps (Due > 0, Out nil), in id order; done the most recently
// resolved ones (Due 0, Out set) in resolution order, at most 2*keptSteps;
// next is the id of the next step (from 1).
type steps[P stepper] struct {
	pend, done []P
	next       uint64
}

// add makes s pending, due at due, with the next id.
func (q *steps[P]) add(s P, due int64) *Step {
	st := s.step()
	st.ID, st.Due = q.next, due
	q.next++
	q.pend = append(q.pend, s)
	return st
}

// first is the index in pend of the step due first (lowest id among equal
// due times), or -1.
func (q *steps[P]) first() int {
	best := -1
	for i, s := range q.pend {
		if best < 0 || s.step().Due < q.pend[best].step().Due {
			best = i
		}
	}
	return best
}

// nextDue is the earliest due time of a pending step (0: none).
func (q *steps[P]) nextDue() int64 {
	if i := q.first(); i >= 0 {
		return q.pend[i].step().Due
	}
	return 0
}

// take removes pend[i] and returns it; resolve must follow.
func (q *steps[P]) take(i int) P {
	s := q.pend[i]
	q.pend = append(q.pend[:i], q.pend[i+1:]...)
	return s
}

// resolve keeps out as the outcome of s (just taken off pend).
func (q *steps[P]) resolve(s P, out ItemResult) {
	st := s.step()
	st.Due, st.Out = 0, &out
	q.done = append(q.done, s)
	if len(q.done) > 2*keptSteps {
		q.done = append([]P(nil), q.done[len(q.done)-keptSteps:]...)
	}
}

// outcome is the kept outcome of step id, once resolved.
func (q *steps[P]) outcome(id uint64) (ItemResult, bool) {
	for i := len(q.done) - 1; i >= 0; i-- { // newest first: waiters read right after the resolution
		if st := q.done[i].step(); st.ID == id {
			return *st.Out, true
		}
	}
	return ItemResult{}, false
}
