//go:build linux

package book_test

import "syscall"

// threadCPU is the calling OS thread's CPU time in ns (RUSAGE_THREAD).
func threadCPU() int64 {
	var ru syscall.Rusage
	if syscall.Getrusage(1 /* RUSAGE_THREAD */, &ru) != nil {
		return 0
	}
	return ru.Utime.Nano() + ru.Stime.Nano()
}
