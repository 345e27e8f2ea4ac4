package secp

import (
	"syscall"
	"testing"
	"time"
)

// cpuMeter reports process CPU time per op ("cpu-ns/op") beside wall time:
// on a shared, loaded machine wall time swings with other tenants, while CPU
// time per op stays close to the cost of the work itself.
type cpuMeter struct{ start time.Duration }

func cpuNow() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

func startCPU() cpuMeter { return cpuMeter{cpuNow()} }

func (m cpuMeter) report(b *testing.B) {
	b.ReportMetric(float64(cpuNow()-m.start)/float64(b.N), "cpu-ns/op")
}
