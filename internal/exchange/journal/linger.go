package journal

import (
	"runtime/metrics"
	"time"
)

// When a group stops lingering.
//
// Waiting "while records keep arriving" makes a convoy under load: the group
// waits until every producer has joined it, then the whole server idles
// through the fsync, then every producer works at once again (measured: a
// tenth of the CPU idle at 64 concurrent signed placements). The better
// moment to sync is while there is still other work to overlap it with.
// Runnable goroutines are the work the process has queued; a group that
// holds at least as many records as there are runnable goroutines stops
// waiting. Then about half of the busy producers are in each group and the
// others keep the processors busy while it syncs; and when nothing is
// runnable (everyone waits for this group) it syncs at once.
//
// The run queue is read every Linger/8 (runtime/metrics: tens of ns), and
// the linger never exceeds Options.Linger in all.

// runnableGoroutines returns a reader of the scheduler's run-queue length.
// Each reader has its own sample (metrics.Read is not safe on a shared one):
// a journal has one for its flusher and one for its fills.
func runnableGoroutines() func() int {
	s := []metrics.Sample{{Name: "/sched/goroutines/runnable:goroutines"}}
	return func() int {
		metrics.Read(s)
		if s[0].Value.Kind() != metrics.KindUint64 {
			return 0 // not reported by this runtime: never linger
		}
		return int(s[0].Value.Uint64())
	}
}

// linger holds the current group open while it holds fewer records than
// there are runnable goroutines (see above). Close cuts it short. It
// returns the group's size when it began (0: nothing to group yet).
func (j *Journal) linger() int {
	n := j.queued()
	if n == 0 || n >= j.opts.runQueue() { // nothing to group yet, or enough
		return n
	}
	step := j.opts.lingerStep
	t := time.NewTimer(step)
	defer t.Stop()
	for waited := step; ; waited += step {
		select {
		case <-t.C:
		case <-j.quit:
			return n
		}
		if waited >= j.opts.Linger || j.queued() >= j.opts.runQueue() {
			return n
		}
		t.Reset(step)
	}
}
