//go:build linux

package book_test

import (
	"syscall"
	"unsafe"
)

// threadCPU is the calling OS thread's CPU time in ns, from
// clock_gettime(CLOCK_THREAD_CPUTIME_ID), which (unlike getrusage) includes
// the running slice up to now.
func threadCPU() int64 {
	var ts syscall.Timespec
	const clockThreadCPUTimeID = 3
	if _, _, e := syscall.Syscall(syscall.SYS_CLOCK_GETTIME, clockThreadCPUTimeID, uintptr(unsafe.Pointer(&ts)), 0); e != 0 {
		return 0
	}
	return ts.Nano()
}
