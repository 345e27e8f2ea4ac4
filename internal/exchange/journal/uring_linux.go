package journal

import (
	"errors"
	"os"
	"sync/atomic"
	"syscall"
	"time"
	"unsafe"
)

// A group's fdatasync (and a zero-fill's) without holding a processor
// (docs/perf/placement.md, eighth pass).
//
// A goroutine blocked in fdatasync keeps its P (the runtime's monitor rarely
// takes it back under steady load), so on two cores a sync of ~0.5 ms leaves
// one core to run every other goroutine meanwhile. An fsync handed to
// io_uring runs in the kernel's worker thread instead, and the flusher:
//   - first holds its P for uringHold in a timed io_uring_enter, as a
//     blocking fdatasync would: goroutines runnable at that moment are often
//     a group's producers, about to block again, and once the processors
//     idle a blocking wait hears of the completion soonest;
//   - then, while other goroutines are runnable, waits parked (no P held),
//     woken by whichever comes first: the network poller, which watches the
//     ring's descriptor (prompt while the processors idle; a busy scheduler
//     reads it only when its run queues are empty, or every 10 ms), or a
//     read deadline uringNap away (a runtime timer, which every scheduling
//     pass checks: prompt while they are busy), and looks again;
//   - with nothing else runnable, blocks in io_uring_enter.
// The journal takes this way only while the processor is wanted (sync):
// otherwise it calls fdatasync itself.
// Without io_uring (old kernels, seccomp filters), or should the ring
// itself fail, the journal calls fdatasync as before (syncVia).

const (
	sysIOUringSetup = 425 // the same number on every Linux architecture
	sysIOUringEnter = 426

	opFsync        = 3
	fsyncDatasync  = 1
	enterGetEvents = 1
	enterExtArg    = 8
	featSingleMmap = 1

	offSQRing = 0
	offCQRing = 0x8000000
	offSQEs   = 0x10000000

	// uringNap is the longest the flusher stays parked between looks at
	// the completion ring.
	uringNap = 50 * time.Microsecond
	// uringHold is how long the flusher holds its processor before it
	// parks, if other goroutines are still runnable then.
	uringHold = 50 * time.Microsecond
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

// uring is a one-entry io_uring used by one goroutine at a time: a
// journal has one for its flusher (ring) and one for its fills (zring).
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
	pf             *os.File           // the ring's descriptor in the network poller
	rc             syscall.RawConn    // pf's
	readyFn        func(uintptr) bool // u.ready, made once (a method value allocates)
	runQueue       func() int
	// A timed wait's argument and timeout, in the heap (never moved) as
	// the kernel reads them by address; arg points at ts.
	arg getEventsArg
	ts  syscall.Timespec
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
	u.arg.ts = uint64(uintptr(unsafe.Pointer(&u.ts)))
	u.readyFn = u.ready
	// Non-blocking, so that os.NewFile puts it in the poller (readable:
	// a completion is waiting).
	if syscall.SetNonblock(u.fd, true) != nil {
		u.close()
		return nil
	}
	u.pf = os.NewFile(uintptr(u.fd), "io_uring")
	if u.rc, err = u.pf.SyscallConn(); err != nil || u.pf.SetReadDeadline(time.Time{}) != nil { // not in the poller: no deadlines
		u.close()
		return nil
	}
	return u
}

// fdatasync makes f's written data durable, as syncData does.
func (u *uring) fdatasync(f *os.File) error {
	*u.sqe = sqe{opcode: opFsync, fd: int32(f.Fd()), opFlags: fsyncDatasync}
	*u.sqArray = 0 // the one entry
	tail := atomic.LoadUint32(u.sqTail)
	atomic.StoreUint32(u.sqTail, tail+1)
	if err := u.enter(1, 0, 0, nil); err != nil {
		return errRing // the caller stops using the ring and syncs itself
	}
	// Held first, as a blocking fdatasync would: goroutines made runnable
	// just now are usually a group's producers, about to block again,
	// which the other processor serves meanwhile.
	if err := u.wait(uringHold); err != nil {
		return errRing
	}
	for !u.ready(0) {
		if u.runQueue() == 0 { // nothing to give the processor to
			if err := u.wait(0); err != nil {
				return errRing
			}
			continue
		}
		// Work that outlasted the hold: parked until the ring is
		// readable or the nap is over; either way the loop looks again
		// (an error here is only the deadline).
		u.pf.SetReadDeadline(time.Now().Add(uringNap))
		if err := u.rc.Read(u.readyFn); err != nil && !errors.Is(err, os.ErrDeadlineExceeded) {
			if err := u.wait(0); err != nil { // the poller failed us: block
				return errRing
			}
		}
	}
	if res := u.reap(); res < 0 {
		return syscall.Errno(-res)
	}
	return nil
}

// wait blocks until the completion arrives, or for at most d (0: no limit).
func (u *uring) wait(d time.Duration) error {
	if d == 0 {
		return u.enter(0, 1, enterGetEvents, nil)
	}
	u.ts = syscall.NsecToTimespec(int64(d))
	err := u.enter(0, 1, enterGetEvents|enterExtArg, &u.arg)
	if err == syscall.ETIME {
		return nil
	}
	return err
}

// ready reports whether a completion is waiting (RawConn.Read's callback:
// false parks the caller until the descriptor is readable or the deadline).
func (u *uring) ready(uintptr) bool {
	return atomic.LoadUint32(u.cqHead) != atomic.LoadUint32(u.cqTail)
}

// reap takes the completion's result; one has arrived (ready).
func (u *uring) reap() int32 {
	head := atomic.LoadUint32(u.cqHead)
	c := (*cqe)(unsafe.Add(u.cqes, uintptr(head&*u.cqMask)*unsafe.Sizeof(cqe{})))
	res := c.res
	atomic.StoreUint32(u.cqHead, head+1)
	return res
}

// getEventsArg is struct io_uring_getevents_arg (IORING_ENTER_EXT_ARG).
type getEventsArg struct {
	sigmask   uint64
	sigmaskSz uint32
	minWait   uint32
	ts        uint64 // *struct __kernel_timespec
}

// enter submits and/or waits; a wait interrupted by a signal is retried
// (a timed one then waits its whole time again: it is short).
func (u *uring) enter(submit, minComplete, flags uint32, arg *getEventsArg) error {
	argp, argSz := uintptr(0), uintptr(0)
	if arg != nil {
		argp, argSz = uintptr(unsafe.Pointer(arg)), unsafe.Sizeof(*arg)
	}
	for {
		n, _, errno := syscall.Syscall6(sysIOUringEnter, uintptr(u.fd), uintptr(submit), uintptr(minComplete), uintptr(flags), argp, argSz)
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
	if u.pf != nil {
		u.pf.Close()
	} else {
		syscall.Close(u.fd)
	}
}
