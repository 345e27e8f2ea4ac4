package journal

import (
	"syscall"
	"testing"
	"time"
)

// cpuTime is this process's user+system CPU time. On a shared machine wall
// time per op swings with other load; CPU time per op of a single-threaded
// loop does not, and 1e9/cpu-ns is what one free core would sustain.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

func reportCPU(b *testing.B, start time.Duration) {
	b.ReportMetric(float64(cpuTime()-start)/float64(b.N), "cpu-ns/op")
}
