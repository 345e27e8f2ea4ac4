package journal

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
)

// Zero-filled space ahead of the write offset, as PostgreSQL keeps its WAL.
//
// A group commit that appends to a file makes its fdatasync commit the new
// size and extents through the filesystem's journal as well as the data:
// measured on ext4 here, a 32 KB append + fdatasync costs 480–670 µs wall
// and 150–215 µs CPU, an overwrite of zeros written and synced earlier
// 240–320 µs and 80–113 µs (fallocate's unwritten extents save nothing:
// 400–590 µs, 150–190 µs). So the current segment keeps real zeros, written
// and fdatasynced before any record goes there, ahead of its write offset:
// when fewer than fillMargin bytes are left, a goroutine writes the next
// fillChunk bytes of zeros and syncs them while groups keep committing
// below. Near SegmentBytes it instead prepares the next segment's first
// chunk under nextName, which rotation renames into place.
//
// On disk a segment is therefore its records followed by zeros (or by
// nothing: segments written before this, or whose zeros were used up). A
// record never starts with a zero word (its length is at least 16), so the
// end of the log is the first place no record decodes; Open and every
// reader already stop there.
//
// Invariant (what makes a stale remnant harmless): after Open, every byte of
// the last segment past the write offset is zero and durable, and while the
// journal runs only the flusher writes there, group after group in sequence
// order. So after a crash the bytes past the last good record are the
// remnant of the group that was being synced (and zeros), never records of
// an earlier run; Open zeroes every nonzero byte past the last good record
// and syncs before accepting appends, so a remnant longer than the records
// later written over its start can never be read as their successor.
const (
	fillChunk  = 1 << 20
	fillMargin = fillChunk / 2
	nextName   = "next.wal.tmp" // not a segment name: listSegments skips it
)

// zeros is fillChunk bytes of zeros, shared read-only.
var zeros = make([]byte, fillChunk)

// lastNonZero is the index of the last nonzero byte of b, or -1.
func lastNonZero(b []byte) int {
	for end := len(b); end > 0; {
		start := max(end-len(zeros), 0)
		if !bytes.Equal(b[start:end], zeros[:end-start]) {
			for i := end - 1; ; i-- {
				if b[i] != 0 {
					return i
				}
			}
		}
		end = start
	}
	return -1
}

// writeZeros writes n zero bytes at off and syncs them.
func writeZeros(f *os.File, off, n int64, sync func(*os.File) error) error {
	for n > 0 {
		k := min(n, int64(len(zeros)))
		if _, err := f.WriteAt(zeros[:k], off); err != nil {
			return err
		}
		off, n = off+k, n-k
	}
	return sync(f)
}

// fillSize is how many bytes of zeros to add to a file zeroed through zend.
func (j *Journal) fillSize(zend int64) int64 {
	return max(min(j.opts.fillChunk, j.opts.SegmentBytes-zend), 0)
}

// maybeFill starts extending the zeroed space if the write offset came
// within the margin of its end. Called by the flusher (and Open) only, so
// no group is being written while a fill starts.
func (j *Journal) maybeFill() {
	j.zmu.Lock()
	defer j.zmu.Unlock()
	if j.filling || j.zend-j.off >= j.opts.fillMargin {
		return
	}
	if n := j.fillSize(j.zend); n > 0 {
		j.filling = true
		j.fills.Add(1)
		go j.fill(j.f, j.zend, n)
		return
	}
	if j.nextF == nil {
		j.filling = true
		j.fills.Add(1)
		go j.prepareNext()
	}
}

// fill writes n zeros at off of f (the current segment) and syncs them.
// Groups keep committing below off meanwhile; one that would not fit
// waits in waitFill.
func (j *Journal) fill(f *os.File, off, n int64) {
	defer j.fills.Done()
	err := writeZeros(f, off, n, j.fillSync)
	j.zmu.Lock()
	if err == nil && f == j.f {
		j.zend = max(j.zend, off+n)
	}
	j.endFill()
	if err != nil {
		j.fail(fmt.Errorf("journal: zero-filling ahead: %w", err))
	}
}

// prepareNext creates the next segment under a temporary name with its
// first chunk of zeros durable, so that rotation is a rename.
func (j *Journal) prepareNext() {
	defer j.fills.Done()
	path := filepath.Join(j.dir, nextName)
	n := j.fillSize(0)
	f, err := os.OpenFile(path, os.O_CREATE|os.O_TRUNC|os.O_WRONLY, 0o644)
	if err == nil {
		if err = writeZeros(f, 0, n, j.fillSync); err != nil {
			f.Close()
		}
	}
	j.zmu.Lock()
	if err == nil {
		j.nextF, j.nextZ = f, n
	}
	j.endFill()
	if err != nil {
		j.fail(fmt.Errorf("journal: preparing the next segment: %w", err))
	}
}

// fillSync is a fill's fdatasync, through the fills' own ring (syncVia)
// while other goroutines are runnable.
func (j *Journal) fillSync(f *os.File) error {
	if j.zrunq() > 0 {
		return j.syncVia(&j.zring, f)
	}
	return j.opts.Sync(f)
}

// endFill ends a fill; zmu is held and is released.
func (j *Journal) endFill() {
	j.filling = false
	j.zcond.Broadcast()
	j.zmu.Unlock()
}

// waitFill waits until no fill is in flight if the next n bytes at the
// write offset go past the zeroed space (a fill writes there).
func (j *Journal) waitFill(n int64) {
	j.zmu.Lock()
	defer j.zmu.Unlock()
	for j.off+n > j.zend && j.filling {
		j.zcond.Wait()
	}
}

// fail makes err the journal's sticky error.
func (j *Journal) fail(err error) {
	j.mu.Lock()
	if j.err == nil || j.err == ErrClosed {
		j.err = err
	}
	j.mu.Unlock()
}
