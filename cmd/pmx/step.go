package main

import (
	"log/slog"
	"time"
)

// stillEvery is the longest quiet time during a start-up step.
const stillEvery = 5 * time.Second

// step runs one opaque start-up step (one whose work reports no progress of
// its own), logging its start, a "still ..." line every few seconds, and its
// end with the time it took, so a start is never silent for long.
func step[T any](log *slog.Logger, what string, fn func() (T, error)) (T, error) {
	start := time.Now()
	log.Info(what)
	done := make(chan struct{})
	go func() {
		t := time.NewTicker(stillEvery)
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case <-t.C:
				log.Info("still "+what, "elapsed", time.Since(start).Round(time.Second).String())
			}
		}
	}()
	v, err := fn()
	close(done)
	if err == nil {
		log.Info("done "+what, "elapsed", time.Since(start).Round(time.Millisecond).String())
	}
	return v, err
}
