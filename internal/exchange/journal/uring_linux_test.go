package journal

import (
	"errors"
	"os"
	"path/filepath"
	"sync/atomic"
	"syscall"
	"testing"

	"pmx/internal/cpuclock"
)

// TestDefaultJournalKeepsItsRings: on Linux a journal with the default
// sync has a ring for its groups and one for its fills, and still has both
// after groups have committed (a ring is dropped only when it fails); a
// journal given its own Sync has none and calls that Sync. Which groups
// take the ring is TestRingSyncOnlyWhenTheProcessorIsWanted's.
func TestDefaultJournalKeepsItsRings(t *testing.T) {
	j, _, err := Open(t.TempDir(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer j.Close()
	for range 50 {
		if _, err := j.Append(1, []byte("x")); err != nil {
			t.Fatal(err)
		}
	}
	if j.ring == nil || j.zring == nil {
		t.Fatalf("rings: groups %v, fills %v", j.ring != nil, j.zring != nil)
	}
	var calls atomic.Int64
	k, _, err := Open(t.TempDir(), Options{Sync: func(f *os.File) error { calls.Add(1); return syncData(f) }})
	if err != nil {
		t.Fatal(err)
	}
	defer k.Close()
	if _, err := k.Append(1, []byte("x")); err != nil {
		t.Fatal(err)
	}
	if k.ring != nil || k.zring != nil || calls.Load() == 0 {
		t.Fatalf("ring %v, Sync called %d times", k.ring != nil, calls.Load())
	}
}

// TestRingSyncAnswersItsOwnCompletion: each sync through the ring returns
// the outcome of its own fsync, whether it naps (other goroutines
// runnable) or blocks (none): a good file's nil and a closed file's EBADF
// alternate, so a sync that took an earlier or later completion, or
// returned before its own, answers wrong.
func TestRingSyncAnswersItsOwnCompletion(t *testing.T) {
	var runnable atomic.Int64
	u, f := mustRingAndFile(t, func() int { return int(runnable.Load()) })
	closed, err := os.Create(filepath.Join(t.TempDir(), "g"))
	if err != nil {
		t.Fatal(err)
	}
	closed.Close()
	for i := range 200 {
		runnable.Store(int64(i / 2 % 2)) // nap and block, each with both outcomes
		if _, err := f.WriteAt([]byte("record"), int64(i)*8); err != nil {
			t.Fatal(err)
		}
		if err := u.fdatasync(f); err != nil {
			t.Fatalf("sync %d of a good file: %v", i, err)
		}
		if err := u.fdatasync(closed); !errors.Is(err, syscall.EBADF) {
			t.Fatalf("sync %d of a closed file: %v, want EBADF", i, err)
		}
		if h, tl := atomic.LoadUint32(u.cqHead), atomic.LoadUint32(u.cqTail); h != tl {
			t.Fatalf("after sync %d: %d completions left", i, tl-h)
		}
	}
}

// BenchmarkSyncDirectVsRing: one 12 KiB overwrite (a group of a 20-order
// placement run) plus its fdatasync, called directly or through the ring
// (waiting blocked, as when nothing else is runnable, or parked, as when
// something is). cpu-ns/op counts every thread of the process, the ring's
// kernel worker included.
func BenchmarkSyncDirectVsRing(b *testing.B) {
	for _, mode := range []string{"direct", "ring-blocked", "ring-parked"} {
		b.Run(mode, func(b *testing.B) {
			f, err := os.Create(filepath.Join(b.TempDir(), "sync"))
			if err != nil {
				b.Fatal(err)
			}
			defer f.Close()
			buf := make([]byte, 12<<10)
			if _, err := f.WriteAt(make([]byte, 64<<20), 0); err != nil {
				b.Fatal(err)
			}
			syncData(f)
			runnable := 0
			if mode == "ring-parked" {
				runnable = 1
			}
			u := newURing(func() int { return runnable })
			if u == nil {
				b.Fatal("no io_uring")
			}
			defer u.close()
			sync := syncData
			if mode != "direct" {
				sync = u.fdatasync
			}
			cpu := cpuclock.Start()
			defer cpu.Report(b)
			off := int64(0)
			for b.Loop() {
				if _, err := f.WriteAt(buf, off); err != nil {
					b.Fatal(err)
				}
				off = (off + int64(len(buf))) % (64 << 20)
				if err := sync(f); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// TestRingSyncAllocatesNothing: a parked wait (the deadline, the poller's
// callback) allocates nothing per sync.
func TestRingSyncAllocatesNothing(t *testing.T) {
	u, f := mustRingAndFile(t, func() int { return 1 })
	buf := make([]byte, 12<<10) // written first, so that the sync outlasts the hold and parks
	if n := testing.AllocsPerRun(50, func() {
		if _, err := f.WriteAt(buf, 0); err != nil {
			t.Fatal(err)
		}
		if err := u.fdatasync(f); err != nil {
			t.Fatal(err)
		}
	}); n != 0 {
		t.Fatalf("%v allocations per sync", n)
	}
}

// TestRingSyncOnlyWhenTheProcessorIsWanted: a group syncs through the ring
// when other goroutines were runnable as the previous group's sync ended and
// are as this one's begins, and with fdatasync in the flusher's own thread
// otherwise (the ring's completion count says which).
func TestRingSyncOnlyWhenTheProcessorIsWanted(t *testing.T) {
	var runnable atomic.Int64
	j, _, err := Open(t.TempDir(), Options{runQueue: func() int { return int(runnable.Load()) }})
	if err != nil {
		t.Fatal(err)
	}
	defer j.Close()
	completions := func() uint32 { return atomic.LoadUint32(j.ring.cqHead) }
	busy := []bool{false, true, true, false, true, true, true, false, false, true, false, true, true}
	for i, b := range busy {
		runnable.Store(0)
		if b {
			runnable.Store(3)
		}
		before, c0 := j.Groups(), completions()
		if _, err := j.Append(1, []byte("x")); err != nil {
			t.Fatal(err)
		}
		synced, viaRing := j.Groups()-before, completions()-c0
		want := uint32(0)
		if b && i > 0 && busy[i-1] {
			want = uint32(synced)
		}
		if synced != 1 || viaRing != want {
			t.Fatalf("append %d (others runnable: %v, before: %v): %d groups, %d through the ring", i, b, i > 0 && busy[i-1], synced, viaRing)
		}
	}
}

// mustRingAndFile returns a ring reading runQueue and an empty file, both
// closed when the test ends; a machine without io_uring fails the test.
func mustRingAndFile(t *testing.T, runQueue func() int) (*uring, *os.File) {
	t.Helper()
	u := newURing(runQueue)
	if u == nil {
		t.Fatal("io_uring unavailable (kernel, seccomp): this test needs it")
	}
	t.Cleanup(u.close)
	f, err := os.Create(filepath.Join(t.TempDir(), "f"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	return u, f
}

// TestRingThatFailsIsDroppedForFdatasync: a ring that fails as a ring (its
// descriptor gone) is dropped for good and the group is synced directly:
// every append still succeeds, the records read back, and the journal
// keeps fdatasync from then on.
func TestRingThatFailsIsDroppedForFdatasync(t *testing.T) {
	dir := t.TempDir()
	j, _, err := Open(dir, Options{runQueue: func() int { return 1 }}) // always wanted: the ring's way
	if err != nil {
		t.Fatal(err)
	}
	if j.ring == nil {
		t.Fatal("io_uring unavailable (kernel, seccomp): this test needs it")
	}
	if _, err := j.Append(1, []byte("before")); err != nil { // the first group syncs directly, then the ring is wanted
		t.Fatal(err)
	}
	if err := j.ring.pf.Close(); err != nil { // the ring's descriptor, closed under it
		t.Fatal(err)
	}
	for i := range 5 {
		if _, err := j.Append(int64(i+2), []byte("after")); err != nil {
			t.Fatalf("append %d: %v", i, err)
		}
	}
	if j.ring != nil { // read after Append returned: the flusher's write happened before
		t.Fatal("the failed ring is still in use")
	}
	if err := j.Close(); err != nil {
		t.Fatal(err)
	}
	k, rec, err := Open(dir, Options{Sync: syncData})
	if err != nil {
		t.Fatal(err)
	}
	defer k.Close()
	if rec.LastSeq != 6 {
		t.Fatalf("replayed up to %d, want 6", rec.LastSeq)
	}
}
