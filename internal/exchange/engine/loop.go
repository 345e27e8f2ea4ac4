package engine

import (
	"bytes"

	"pmx/internal/exchange/journal"
)

// loop is the only goroutine that touches the machine.
func (e *Engine[E]) loop() {
	defer close(e.stopped)
	batch := make([]*request[E], 0, e.cfg.MaxBatch)
	var published []Applied[E]
	for {
		r, ok := <-e.queue
		if !ok {
			return
		}
		batch = append(batch[:0], r)
	drain:
		for len(batch) < e.cfg.MaxBatch {
			select {
			case r, ok := <-e.queue:
				if !ok {
					break drain
				}
				batch = append(batch, r)
			default:
				break drain
			}
		}
		// A fresh event buffer per batch: producers and subscribers keep
		// sub-slices of it. Sized for one event per command (appends grow
		// it when a command emits more; earlier sub-slices stay valid).
		e.evbuf = make([]E, 0, len(batch))
		published = published[:0]
		for _, r := range batch {
			switch {
			case r.kind != kindCommand:
				e.controlOne(r)
			case e.applyOne(r):
				published = append(published, Applied[E]{Seq: r.seq, TS: r.ts, Events: r.res.Events})
			}
			r.done <- struct{}{}
		}
		if len(published) > 0 && e.publish(published) {
			published = nil // subscribers own it now
		}
	}
}

// applyOne applies a command once its group is durable. It reports whether
// the command was applied.
func (e *Engine[E]) applyOne(r *request[E]) bool {
	if err := r.commit.Wait(); err != nil {
		// Not durable, so never applied. The journal is now failed and
		// refuses every later record, so the state stays a prefix.
		r.err = err
		return false
	}
	// Invariant: commands arrive in sequence order without gaps.
	if r.seq != e.applied+1 {
		panic("engine: sequence gap in apply loop")
	}
	start := len(e.evbuf)
	if da, ok := e.m.(DecodedApplier[E]); r.hint != nil && ok {
		e.evbuf = da.ApplyDecoded(r.seq, r.ts, r.cmd, r.hint, e.evbuf)
	} else {
		e.evbuf = e.m.Apply(r.seq, r.ts, r.cmd, e.evbuf)
	}
	e.applied = r.seq
	r.res = Result[E]{Seq: r.seq, Events: e.evbuf[start:len(e.evbuf):len(e.evbuf)]}
	if e.cfg.SnapshotEvery > 0 && r.seq%e.cfg.SnapshotEvery == 0 && !e.snapBusy.Load() {
		e.backgroundSnapshot()
	}
	return true
}

func (e *Engine[E]) controlOne(r *request[E]) {
	switch r.kind {
	case kindHash:
		r.hash, r.seq = e.m.Hash(), e.applied
	case kindView:
		r.view(e.m, e.applied)
	case kindSnapshot:
		e.snapWG.Wait() // never two writers
		payload, err := e.serialize()
		if err == nil {
			err = e.writeSnapshot(e.applied, payload)
		}
		r.seq, r.err = e.applied, err
	}
}

func (e *Engine[E]) serialize() ([]byte, error) {
	var buf bytes.Buffer
	if err := e.m.Snapshot(&buf); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// backgroundSnapshot serializes the state now (it must be consistent at
// e.applied) and writes it off the apply goroutine.
func (e *Engine[E]) backgroundSnapshot() {
	payload, err := e.serialize()
	if err != nil {
		e.snapErr.Store(&err)
		return
	}
	seq := e.applied
	e.snapBusy.Store(true)
	e.snapWG.Add(1)
	go func() {
		defer e.snapWG.Done()
		defer e.snapBusy.Store(false)
		if err := e.writeSnapshot(seq, payload); err != nil {
			e.snapErr.Store(&err)
		}
	}()
}

// writeSnapshot stores a snapshot, keeps the newest few and prunes the
// journal through the oldest kept one.
func (e *Engine[E]) writeSnapshot(seq uint64, payload []byte) error {
	if err := journal.WriteSnapshot(e.snapDir, seq, payload); err != nil {
		return err
	}
	oldest, err := journal.PruneSnapshots(e.snapDir, e.cfg.KeepSnapshots)
	if err != nil || e.cfg.NoPrune {
		return err
	}
	return e.j.PruneThrough(oldest)
}
