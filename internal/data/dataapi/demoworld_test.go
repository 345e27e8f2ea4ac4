package dataapi_test

import (
	"testing"

	"pmx/internal/data/ledger"
	"pmx/internal/demo"
)

// demoEvents generates a demo world's ledger events in order: the one
// loader of the route, board and market benchmarks and tests.
func demoEvents(tb testing.TB, o demo.Options) []ledger.Event {
	tb.Helper()
	var evs []ledger.Event
	if err := demo.Generate(o, func(e *ledger.Event) error {
		evs = append(evs, *e)
		return nil
	}); err != nil {
		tb.Fatal(err)
	}
	return evs
}
