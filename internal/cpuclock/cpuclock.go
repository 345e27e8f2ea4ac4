// Package cpuclock reads this process's CPU time (user and system, all
// threads). On a shared machine wall time per operation swings with other
// tenants, while CPU time per operation stays close to the cost of the work,
// so the benchmarks report it beside wall time ("cpu-ns/op").
package cpuclock

import (
	"testing"
	"time"
)

// Process is this process's CPU time so far (0 where it cannot be read).
func Process() time.Duration { return process() }

// Meter measures CPU time from its start.
type Meter struct{ start time.Duration }

// Start starts a meter.
func Start() Meter { return Meter{Process()} }

// Since is the CPU time used since the meter started.
func (m Meter) Since() time.Duration { return Process() - m.start }

// Report adds "cpu-ns/op" to b: the CPU time since Start per b.N.
func (m Meter) Report(b *testing.B) {
	b.ReportMetric(float64(m.Since())/float64(b.N), "cpu-ns/op")
}
