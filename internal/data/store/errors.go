package store

import "fmt"

// RejectedError is an event the store refused on its merits (an unknown
// market, a duplicate slot, a redeem before resolution...): the caller's
// batch is at fault, and nothing of it was applied. Any other error from
// Apply is the store's own failure.
type RejectedError struct {
	Event int    // 1-based index of the event in the batch
	Kind  string // its kind
	Err   error
}

func (e *RejectedError) Error() string {
	return fmt.Sprintf("event %d (%s): %v", e.Event, e.Kind, e.Err)
}

func (e *RejectedError) Unwrap() error { return e.Err }
