package engine_test

import (
	"fmt"
	"os"

	"pmx/internal/exchange/engine"
	"pmx/internal/exchange/engine/tally"
)

// Example shows the whole life cycle: open (recover), submit, read, close.
func Example() {
	dir, _ := os.MkdirTemp("", "engine-example")
	defer os.RemoveAll(dir)

	cfg := engine.Config{Dir: dir, SnapshotEvery: 1000, Validate: tally.Validate}
	e, rec, err := engine.Open(cfg, engine.Machine[tally.Event](tally.New()))
	if err != nil {
		panic(err)
	}
	fmt.Println("recovered through", rec.Journal.LastSeq)

	// ts is the caller's timestamp for the command; the engine never reads a clock.
	res, _ := e.Submit(1_700_000_000_000, tally.Encode("alice", 5))
	fmt.Println(res.Seq, res.Events[0].Balance)
	res, _ = e.Submit(1_700_000_000_001, tally.Encode("alice", -9))
	fmt.Println(res.Seq, res.Events[0].Rejected)
	e.Close()

	// A restart replays the journal to the same state.
	e, rec, _ = engine.Open(cfg, engine.Machine[tally.Event](tally.New()))
	defer e.Close()
	e.View(func(m engine.Machine[tally.Event], seq uint64) {
		fmt.Println("replayed", rec.Replayed, "alice", m.(*tally.Machine).Balance("alice"), "at", seq)
	})
	// Output:
	// recovered through 0
	// 1 5
	// 2 insufficient
	// replayed 2 alice 5 at 2
}
