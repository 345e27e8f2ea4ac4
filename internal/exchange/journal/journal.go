package journal

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"sync"
	"sync/atomic"
	"time"
)

// Options configure a Journal. The zero value is usable.
type Options struct {
	// SegmentBytes is the size after which the current segment is closed and
	// a new one started (checked after each group commit, so a segment may
	// exceed it by one group). Default 64 MiB.
	SegmentBytes int64
	// Sync replaces fdatasync, for fault injection in tests. nil in
	// production.
	Sync func(*os.File) error
	// Linger lets a group wait up to this long for more records before
	// its write and fdatasync. An fdatasync costs the machine far more CPU
	// than its records' own work (on a VM each one is I/O exits and
	// interrupts), so a CPU-bound server with many concurrent producers
	// serves more records per second with fewer, larger groups. It waits
	// only when the previous group held more than one record (a lone
	// producer never waits), and only while the process has more runnable
	// goroutines than the group has records (linger.go). Durability is
	// unchanged: nothing is reported committed before its fsync returned.
	// 0 (default): no lingering.
	Linger time.Duration

	// Tests only: the run-queue reader and the linger step (default
	// runnableGoroutines and Linger/8); the zero-fill chunk and margin
	// (default fillChunk, fillMargin).
	runQueue   func() int
	lingerStep time.Duration
	fillChunk  int64
	fillMargin int64
}

// Recovery describes what Open found at the tail of the journal.
type Recovery struct {
	// TruncatedBytes is the size of the torn or corrupt tail that Open
	// cleared past the last good record of the last segment: from that
	// record's end through the segment's last nonzero byte (0 on a clean
	// shutdown, when only the zero-filled space follows). Open overwrites
	// those bytes with zeros rather than cutting the file (zerofill.go).
	TruncatedBytes int64
	// LastSeq is the last good record's sequence number (0 if none ever).
	LastSeq uint64
}

// ErrClosed is returned by appends after Close.
var ErrClosed = errors.New("journal: closed")

// Journal is an append-only, group-committed command log in one directory.
//
// Appends from any number of goroutines are encoded into the current group
// under a mutex, in sequence order. A single flusher goroutine takes the whole
// group, writes it with one write call, fdatasyncs it once, and only then
// releases every waiter of that group. While it syncs, the next group fills.
// Nothing is reported committed before its fsync returned; after a failed
// write or fsync the journal refuses all further appends (a failed fsync
// cannot be retried safely: the kernel may have dropped the dirty pages).
type Journal struct {
	dir  string
	opts Options

	mu      sync.Mutex
	cur     *Commit // group being filled
	next    uint64  // sequence number of the next append
	err     error   // sticky: write/sync failure or ErrClosed
	closing bool

	wake    chan struct{} // cap 1: "the current group is not empty"
	quit    chan struct{} // closed when Close begins (ends a linger)
	stopped chan struct{} // closed when the flusher exits

	durable atomic.Uint64 // last fsynced sequence number
	groups  atomic.Uint64 // group commits (fsyncs) done

	// Owned by the flusher goroutine (and Open/Close around it); the flusher
	// changes f and off under zmu, which fills read them under.
	f     *os.File
	off   int64 // write offset: the end of the last record in f
	spare []byte
	ring  *uring // syncs a group off the processor (uring_linux.go); nil: fdatasync
	busy  bool   // goroutines were runnable as the last group's sync ended (sync)

	// Zero-filled space ahead of off (zerofill.go).
	zmu     sync.Mutex
	zcond   *sync.Cond
	zend    int64    // f's bytes [off, zend) are zeros and durable
	filling bool     // a fill or prepareNext is in flight
	nextF   *os.File // the prepared next segment (nextName), or nil
	nextZ   int64    // its zeroed length
	fills   sync.WaitGroup
	zring   *uring     // the fills' ring (one fill at a time); nil: fdatasync
	zrunq   func() int // the fills' run-queue reader

	segMu sync.Mutex
	segs  []uint64 // first seq of every segment, ascending; last is active
	// tail is what Open read and checked of the last segment, handed to the
	// first reader so start-up (Open, then Replay) reads that file once.
	tail *segTail
}

// segTail is the checked good prefix of a segment: buf holds exactly its
// records from first on, as on disk after Open's truncation. The file may
// since have grown past len(buf); it never changes below that.
type segTail struct {
	first uint64
	buf   []byte
}

// Commit is the durability handle of one group commit, shared by every
// record in the group.
type Commit struct {
	done chan struct{}
	err  error
	buf  []byte
	last uint64
	n    int
}

// Wait blocks until the group is fsynced and returns the write or sync error.
func (c *Commit) Wait() error {
	<-c.done
	return c.err
}

// Done is closed once the group is durable or failed.
func (c *Commit) Done() <-chan struct{} { return c.done }

// Err is valid after Done is closed.
func (c *Commit) Err() error { return c.err }

func failed(err error) *Commit {
	c := &Commit{done: make(chan struct{}), err: err}
	close(c.done)
	return c
}

// Open opens or creates the journal in dir. It clears (zeroes) a torn or
// corrupt tail of the last segment (such a record was never acknowledged:
// its group never finished fsync), continues after the last good record,
// and zero-fills ahead of it (zerofill.go) before returning.
func Open(dir string, opts Options) (*Journal, Recovery, error) {
	if opts.SegmentBytes <= 0 {
		opts.SegmentBytes = 64 << 20
	}
	ringOK := opts.Sync == nil
	if opts.Sync == nil {
		opts.Sync = syncData
	}
	fillRunQueue := opts.runQueue // the fills' own reader: runnableGoroutines' is not safe to share
	if opts.runQueue == nil {
		opts.runQueue, fillRunQueue = runnableGoroutines(), runnableGoroutines()
	}
	if opts.lingerStep <= 0 {
		opts.lingerStep = max(opts.Linger/8, time.Microsecond)
	}
	if opts.fillChunk <= 0 {
		opts.fillChunk, opts.fillMargin = fillChunk, fillMargin
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, Recovery{}, err
	}
	segs, err := listSegments(dir)
	if err != nil {
		return nil, Recovery{}, err
	}
	j := &Journal{dir: dir, opts: opts, zrunq: fillRunQueue, wake: make(chan struct{}, 1), quit: make(chan struct{}), stopped: make(chan struct{})}
	j.zcond = sync.NewCond(&j.zmu)
	// A next segment prepared before a crash or Close is not reused.
	if err := os.Remove(filepath.Join(dir, nextName)); err != nil && !os.IsNotExist(err) {
		return nil, Recovery{}, err
	}
	var rec Recovery
	if len(segs) == 0 {
		segs = []uint64{1}
		f, err := createSegment(dir, 1)
		if err != nil {
			return nil, rec, err
		}
		j.f, j.next = f, 1
	} else {
		first := segs[len(segs)-1]
		path := segmentPath(dir, first)
		buf, err := os.ReadFile(path)
		if err != nil {
			return nil, rec, err
		}
		good, count := scanTail(buf, first)
		f, err := os.OpenFile(path, os.O_WRONLY, 0o644)
		if err != nil {
			return nil, rec, err
		}
		// Past the last good record: zeros, then perhaps the torn remnant
		// of the group that was being synced, then zeros. Zero the remnant
		// (the invariant in zerofill.go) and sync the whole file, which a
		// killed process may have left with dirty pages.
		damaged := int64(lastNonZero(buf[good:]) + 1)
		rec.TruncatedBytes = damaged
		if err := writeZeros(f, int64(good), damaged, syncData); err != nil {
			f.Close()
			return nil, rec, fmt.Errorf("journal: clearing torn tail of %s: %w", path, err)
		}
		j.f, j.off, j.zend, j.next = f, int64(good), int64(len(buf)), first+count
		if good > 0 {
			j.tail = &segTail{first: first, buf: buf[:good]}
		}
	}
	// The first fill is synchronous: the first group need not wait for it.
	if n := j.fillSize(j.zend); j.zend-j.off < opts.fillMargin && n > 0 {
		if err := writeZeros(j.f, j.zend, n, syncData); err != nil {
			j.f.Close()
			return nil, rec, fmt.Errorf("journal: zero-filling ahead: %w", err)
		}
		j.zend += n
	}
	j.segs = segs
	j.durable.Store(j.next - 1)
	rec.LastSeq = j.next - 1
	j.cur = &Commit{done: make(chan struct{})}
	if ringOK {
		j.ring, j.zring = newURing(opts.runQueue), newURing(fillRunQueue)
	}
	go j.flusher()
	return j, rec, nil
}

// Dir is the journal's directory.
func (j *Journal) Dir() string { return j.dir }

// LastSeq is the sequence number of the last durable record.
func (j *Journal) LastSeq() uint64 { return j.durable.Load() }

// Groups is the number of group commits (one write and one fdatasync each)
// so far; records per group = appended records / Groups.
func (j *Journal) Groups() uint64 { return j.groups.Load() }

// FirstSeq is the first sequence number still held (segments before it were
// pruned).
func (j *Journal) FirstSeq() uint64 {
	j.segMu.Lock()
	defer j.segMu.Unlock()
	return j.segs[0]
}

// Enqueue assigns the next sequence number to a record and adds it to the
// current group without waiting. The caller must Wait on the returned
// Commit before treating the record as durable. Records become durable in
// sequence order: when a Commit is done, so is every earlier one.
// On failure seq is 0 and the Commit is already failed.
func (j *Journal) Enqueue(ts int64, payload []byte) (uint64, *Commit) {
	if len(payload) > MaxPayload {
		return 0, failed(ErrTooLarge)
	}
	j.mu.Lock()
	if j.err != nil {
		err := j.err
		j.mu.Unlock()
		return 0, failed(err)
	}
	seq := j.next
	j.next++
	c := j.cur
	c.buf = AppendRecord(c.buf, seq, ts, payload)
	c.last = seq
	c.n++
	j.mu.Unlock()
	select {
	case j.wake <- struct{}{}:
	default:
	}
	return seq, c
}

// Append journals one record and returns after it is fsynced.
func (j *Journal) Append(ts int64, payload []byte) (uint64, error) {
	seq, c := j.Enqueue(ts, payload)
	return seq, c.Wait()
}

// flusher is the only writer of segment files.
func (j *Journal) flusher() {
	defer close(j.stopped)
	lastN := 0
	for range j.wake {
		if j.opts.Linger > 0 && lastN > 1 && j.linger() == 0 && !j.isClosing() {
			continue // nothing queued yet: the next record's wake lingers for it
		}
		// Waiters of the group just synced are being woken and will append
		// again at once. If far fewer records are queued than last time,
		// yield a few times so they join this group instead of each paying
		// for an fsync of its own. This only shapes groups; it never delays
		// an acknowledgement by more than a few scheduler passes.
		for range 4 {
			j.mu.Lock()
			n := j.cur.n
			j.mu.Unlock()
			if n >= lastN/2 {
				break
			}
			runtime.Gosched()
		}
		j.mu.Lock()
		c := j.cur
		if c.n == 0 {
			closing := j.closing
			j.mu.Unlock()
			if closing {
				return
			}
			continue
		}
		j.cur = &Commit{done: make(chan struct{}), buf: j.spare[:0]}
		j.spare = nil
		werr := j.err
		j.mu.Unlock()
		lastN = c.n

		if werr == nil || werr == ErrClosed {
			werr = j.write(c)
		}
		if werr != nil && werr != ErrClosed {
			j.mu.Lock()
			j.err = werr
			j.mu.Unlock()
		} else {
			werr = nil
			j.durable.Store(c.last)
			j.groups.Add(1)
		}
		c.err = werr
		j.spare, c.buf = c.buf, nil
		close(c.done)
		// Loop again: records enqueued while we synced are waiting.
		select {
		case j.wake <- struct{}{}:
		default:
		}
	}
}

func (j *Journal) isClosing() bool {
	j.mu.Lock()
	defer j.mu.Unlock()
	return j.closing
}

// queued is the current group's record count.
func (j *Journal) queued() int {
	j.mu.Lock()
	defer j.mu.Unlock()
	return j.cur.n
}

// write makes one group durable and rotates the segment if it is full.
// The group goes into the zero-filled space when it fits (an overwrite:
// the fdatasync commits data only); otherwise it extends the file.
func (j *Journal) write(c *Commit) error {
	n := int64(len(c.buf))
	j.waitFill(n)
	if _, err := j.f.WriteAt(c.buf, j.off); err != nil {
		return fmt.Errorf("journal: write: %w", err)
	}
	if err := j.sync(); err != nil {
		return fmt.Errorf("journal: fdatasync: %w", err)
	}
	j.zmu.Lock()
	j.off += n
	j.zend = max(j.zend, j.off)
	j.zmu.Unlock()
	if j.off >= j.opts.SegmentBytes {
		// The group is durable; a rotation failure only stops later appends.
		if err := j.rotate(c.last + 1); err != nil {
			j.fail(err)
			return nil
		}
	}
	j.maybeFill()
	return nil
}

// sync is the group's fdatasync. It goes through the flusher's ring only
// while the processor is wanted: other goroutines were still runnable when
// the previous group's sync ended, and are now. Otherwise a blocking
// fdatasync in this thread is quicker (the ring's worker is one more thread
// to wake: ~30 µs more per sync here) and holding the processor costs
// nothing, as when producers only wait for their records (the journal's
// and engine's benchmarks) or a lone client places orders.
func (j *Journal) sync() error {
	var err error
	if j.busy && j.opts.runQueue() > 0 {
		err = j.syncVia(&j.ring, j.f)
	} else {
		err = j.opts.Sync(j.f)
	}
	j.busy = j.opts.runQueue() > 0
	return err
}

// syncVia syncs f through *ring while it works, else with opts.Sync. A
// ring that fails as a ring is dropped for good; the sync is then done
// directly, which is harmless even if the ring's ran too.
func (j *Journal) syncVia(ring **uring, f *os.File) error {
	if u := *ring; u != nil {
		err := u.fdatasync(f)
		if err != errRing {
			return err
		}
		u.close()
		*ring = nil
	}
	return j.opts.Sync(f)
}

// rotate starts a new segment whose first record will be seq first: the
// prepared one if there is one (renamed, then the directory synced, as
// createSegment does), else a new empty file.
func (j *Journal) rotate(first uint64) error {
	j.zmu.Lock()
	for j.filling {
		j.zcond.Wait()
	}
	f, zend := j.nextF, j.nextZ
	j.nextF = nil
	j.zmu.Unlock()
	var err error
	if f != nil {
		if err = os.Rename(filepath.Join(j.dir, nextName), segmentPath(j.dir, first)); err == nil {
			err = syncDir(j.dir)
		}
		if err != nil {
			f.Close()
		}
	} else {
		f, err = createSegment(j.dir, first)
	}
	if err != nil {
		return fmt.Errorf("journal: rotate: %w", err)
	}
	old := j.f
	j.zmu.Lock()
	j.f, j.off, j.zend = f, 0, zend
	j.zmu.Unlock()
	j.segMu.Lock()
	j.segs = append(j.segs, first)
	j.segMu.Unlock()
	return old.Close()
}

// PruneThrough removes whole segments whose records all have sequence
// numbers <= seq (typically the oldest snapshot kept). The active segment is
// never removed.
func (j *Journal) PruneThrough(seq uint64) error {
	j.segMu.Lock()
	defer j.segMu.Unlock()
	k := 0
	for k+1 < len(j.segs) && j.segs[k+1] <= seq+1 {
		k++
	}
	if k == 0 {
		return nil
	}
	for _, first := range j.segs[:k] {
		if err := os.Remove(segmentPath(j.dir, first)); err != nil && !os.IsNotExist(err) {
			return err
		}
	}
	j.segs = append(j.segs[:0], j.segs[k:]...)
	return syncDir(j.dir)
}

// Close waits for every enqueued record to be written and synced, then
// closes the segment. Later appends fail with ErrClosed.
func (j *Journal) Close() error {
	j.mu.Lock()
	if j.closing {
		j.mu.Unlock()
		<-j.stopped
		return nil
	}
	j.closing = true
	if j.err == nil {
		j.err = ErrClosed
	}
	close(j.quit)
	j.mu.Unlock()
	select {
	case j.wake <- struct{}{}:
	default:
	}
	<-j.stopped
	j.fills.Wait()
	for _, u := range []*uring{j.ring, j.zring} {
		if u != nil {
			u.close()
		}
	}
	if j.nextF != nil {
		j.nextF.Close() // left on disk; the next Open removes it
	}
	return j.f.Close()
}
