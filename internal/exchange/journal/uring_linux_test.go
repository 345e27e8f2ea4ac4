package journal

import (
	"errors"
	"os"
	"path/filepath"
	"sync/atomic"
	"syscall"
	"testing"
)

// TestGroupSyncGoesThroughTheRing: on Linux a journal with the default
// sync syncs its groups through io_uring, and keeps doing so; a journal
// given its own Sync never uses the ring.
func TestGroupSyncGoesThroughTheRing(t *testing.T) {
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
	u := newURing(func() int { return int(runnable.Load()) })
	if u == nil {
		t.Fatal("io_uring unavailable (kernel, seccomp): this test needs it")
	}
	defer u.close()
	f, err := os.Create(filepath.Join(t.TempDir(), "f"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
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
