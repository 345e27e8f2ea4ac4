// Package engine runs a deterministic state machine behind a journal: one
// goroutine owns the machine and applies commands strictly in sequence
// order, and a command is applied and acknowledged only after its journal
// record is fsynced.
//
// The flow of one command:
//
//	producer goroutine (many, in parallel)
//	  Validate(cmd)                      parse/check without touching state
//	  journal.Enqueue -> seq, commit     under the engine mutex, so queue order = seq order
//	  queue <- request
//	apply goroutine (one)
//	  commit.Wait()                      fsync done (group commit, shared)
//	  machine.Apply(seq, ts, cmd)        events
//	  ack producer; publish events to subscribers
//
// Pipelining falls out of the split: while the apply goroutine applies group
// N, the journal's flusher fsyncs group N+1 and producers fill group N+2.
// Order is preserved because sequence numbers are assigned and requests
// queued under one mutex, and the journal makes groups durable in order.
package engine

import "io"

// Machine is the deterministic state machine the engine runs. E is its
// event type.
//
// Determinism contract: Apply's effect and events depend only on the state
// and its arguments. No wall clock (use ts, which the producer chose and the
// journal recorded), no randomness, no map iteration order, no I/O. Replaying
// the journal into a fresh or restored machine must reproduce the same Hash.
type Machine[E any] interface {
	// Apply executes one journaled command and appends its events to out.
	// A command the machine refuses is still applied: it emits a rejection
	// event, because it is in the journal and replay must see the same.
	Apply(seq uint64, ts int64, cmd []byte, out []E) []E
	// Snapshot writes the full state; Restore replaces the state with one
	// written by Snapshot.
	Snapshot(w io.Writer) error
	Restore(r io.Reader) error
	// Hash is a digest of the full state, equal for equal states.
	Hash() [32]byte
}

// DecodedApplier is a Machine that can take a live command already decoded
// (Engine.SubmitDecoded): ApplyDecoded(seq, ts, cmd, hint, out) must do
// exactly what Apply(seq, ts, cmd, out) does; hint saves decoding cmd a
// second time on the live path.
type DecodedApplier[E any] interface {
	ApplyDecoded(seq uint64, ts int64, cmd []byte, hint any, out []E) []E
}

// Result is what a producer gets back for an applied command.
type Result[E any] struct {
	Seq uint64
	// Events are the command's events. The slice is shared with
	// subscribers: read it, never modify it.
	Events []E
}

// Applied is one applied command as subscribers see it.
type Applied[E any] struct {
	Seq    uint64
	TS     int64
	Events []E // shared with the producer's Result: read-only
}
