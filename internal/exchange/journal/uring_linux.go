package journal

import (
	"errors"
	"os"
	"sync/atomic"
	"syscall"
	"time"
	"unsafe"
)

// A group's fdatasync without holding a processor (docs/perf/placement.md,
// the eighth pass).
//
// A goroutine blocked in fdatasync keeps its P (the runtime's monitor rarely
// takes it back under steady load), so on two cores a sync of ~0.5 ms leaves
// one core to run every other goroutine meanwhile. An fsync handed to
// io_uring runs in the kernel's own worker thread; the flusher then sleeps on
// a timer and reads the completion ring between naps. Timers are checked by
// every scheduling pass (unlike the network poller, which a busy scheduler
// reads only when its run queues are empty), so the flusher learns of the
// completion within about a nap. When nothing else is runnable there is no
// one to give the processor to: it waits in io_uring_enter as a blocking
// fdatasync would, without a nap's delay.

const (
	sysIOUringSetup = 425 // the same number on every Linux architecture
	sysIOUringEnter = 426

	opFsync        = 3
	fsyncDatasync  = 1
	enterGetEvents = 1
	featSingleMmap = 1

	offSQRing = 0
	offCQRing = 0x8000000
	offSQEs   = 0x10000000

	// uringNap is how long the flusher sleeps between looks at the
	// completion ring while other goroutines are runnable.
	uringNap = 50 * time.Microsecond
)

type sqringOffsets struct {
	head, tail, ringMask, ringEntries, flags, dropped, array, resv1 uint32
	userAddr                                                        uint64
}

type cqringOffsets struct {
	head, tail, ringMask, ringEntries, overflow, cqes, flags, resv1 uint32
	userAddr                                                        uint64
}

type uringParams struct {
	sqEntries, cqEntries, flags, sqThreadCPU, sqThreadIdle, features, wqFD uint32
	resv                                                                   [3]uint32
	sqOff                                                                  sqringOffsets
	cqOff                                                                  cqringOffsets
}

type sqe struct {
	opcode      uint8
	flags       uint8
	ioprio      uint16
	fd          int32
	off         uint64
	addr        uint64
	len         uint32
	opFlags     uint32
	userData    uint64
	bufIndex    uint16
	personality uint16
	spliceFDIn  int32
	addr3       uint64
	pad         uint64
}

type cqe struct {
	userData uint64
	res      int32
	flags    uint32
}

// errRing: the ring failed as a ring (not the sync): fdatasync directly.
var errRing = errors.New("journal: io_uring failed")

// uring is a one-entry io_uring used only by the flusher goroutine.
type uring struct {
	fd             int
	sqMem, sqeMem  []byte
	cqMem          []byte // aliases sqMem with a single mapping
	sqTail, sqMask *uint32
	sqArray        *uint32
	cqHead, cqTail *uint32
	cqMask         *uint32
	cqes           unsafe.Pointer
	sqe            *sqe
	timer          *time.Timer
	runQueue       func() int
}

// newURing sets a ring up, or returns nil where io_uring is missing or
// forbidden (old kernels, seccomp filters): the flusher then calls
// fdatasync itself.
func newURing(runQueue func() int) *uring {
	var p uringParams
	fd, _, errno := syscall.RawSyscall(sysIOUringSetup, 1, uintptr(unsafe.Pointer(&p)), 0)
	if errno != 0 {
		return nil
	}
	u := &uring{fd: int(fd), runQueue: runQueue}
	sqSize := int(p.sqOff.array + p.sqEntries*4)
	cqSize := int(p.cqOff.cqes + p.cqEntries*uint32(unsafe.Sizeof(cqe{})))
	single := p.features&featSingleMmap != 0
	if single {
		sqSize = max(sqSize, cqSize)
	}
	var err error
	if u.sqMem, err = syscall.Mmap(u.fd, offSQRing, sqSize, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_SHARED|syscall.MAP_POPULATE); err != nil {
		u.close()
		return nil
	}
	u.cqMem = u.sqMem
	if !single {
		if u.cqMem, err = syscall.Mmap(u.fd, offCQRing, cqSize, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_SHARED|syscall.MAP_POPULATE); err != nil {
			u.cqMem = nil
			u.close()
			return nil
		}
	}
	if u.sqeMem, err = syscall.Mmap(u.fd, offSQEs, int(p.sqEntries)*int(unsafe.Sizeof(sqe{})), syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_SHARED|syscall.MAP_POPULATE); err != nil {
		u.close()
		return nil
	}
	u32 := func(mem []byte, off uint32) *uint32 { return (*uint32)(unsafe.Pointer(&mem[off])) }
	u.sqTail, u.sqMask, u.sqArray = u32(u.sqMem, p.sqOff.tail), u32(u.sqMem, p.sqOff.ringMask), u32(u.sqMem, p.sqOff.array)
	u.cqHead, u.cqTail, u.cqMask = u32(u.cqMem, p.cqOff.head), u32(u.cqMem, p.cqOff.tail), u32(u.cqMem, p.cqOff.ringMask)
	u.cqes = unsafe.Pointer(&u.cqMem[p.cqOff.cqes])
	u.sqe = (*sqe)(unsafe.Pointer(&u.sqeMem[0]))
	u.timer = time.NewTimer(time.Hour)
	u.timer.Stop()
	return u
}

// fdatasync makes f's written data durable, as syncData does.
func (u *uring) fdatasync(f *os.File) error {
	*u.sqe = sqe{opcode: opFsync, fd: int32(f.Fd()), opFlags: fsyncDatasync}
	*u.sqArray = 0 // the one entry
	tail := atomic.LoadUint32(u.sqTail)
	atomic.StoreUint32(u.sqTail, tail+1)
	if err := u.enter(1, 0, 0); err != nil {
		return errRing // the caller stops using the ring and syncs itself
	}
	for {
		if res, ok := u.reap(); ok {
			if res < 0 {
				return syscall.Errno(-res)
			}
			return nil
		}
		if u.runQueue() == 0 { // nothing to give the processor to
			if err := u.enter(0, 1, enterGetEvents); err != nil {
				return errRing
			}
			continue
		}
		u.timer.Reset(uringNap)
		<-u.timer.C
	}
}

// reap takes the completion, if it has arrived.
func (u *uring) reap() (int32, bool) {
	head := atomic.LoadUint32(u.cqHead)
	if head == atomic.LoadUint32(u.cqTail) {
		return 0, false
	}
	c := (*cqe)(unsafe.Add(u.cqes, uintptr(head&*u.cqMask)*unsafe.Sizeof(cqe{})))
	res := c.res
	atomic.StoreUint32(u.cqHead, head+1)
	return res, true
}

// enter submits and/or waits; a wait interrupted by a signal is retried.
func (u *uring) enter(submit, minComplete, flags uint32) error {
	for {
		n, _, errno := syscall.Syscall6(sysIOUringEnter, uintptr(u.fd), uintptr(submit), uintptr(minComplete), uintptr(flags), 0, 0)
		switch {
		case errno == syscall.EINTR && submit == 0:
			continue
		case errno != 0:
			return errno
		case uint32(n) != submit:
			return errRing
		}
		return nil
	}
}

func (u *uring) close() {
	if u.sqeMem != nil {
		syscall.Munmap(u.sqeMem)
	}
	if u.cqMem != nil && unsafe.SliceData(u.cqMem) != unsafe.SliceData(u.sqMem) {
		syscall.Munmap(u.cqMem)
	}
	if u.sqMem != nil {
		syscall.Munmap(u.sqMem)
	}
	syscall.Close(u.fd)
}
