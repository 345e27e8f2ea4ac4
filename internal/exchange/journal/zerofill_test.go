package journal

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// smallFill makes zero-filling and rotation happen every few records.
func smallFill(segBytes int64) Options {
	return Options{SegmentBytes: segBytes, fillChunk: 256, fillMargin: 128}
}

// TestZeroFilledAhead: the segment holds zeros past its records, extended
// as they come, and records go there without growing the file each group.
func TestZeroFilledAhead(t *testing.T) {
	dir := t.TempDir()
	j, _ := openT(t, dir, smallFill(1<<20))
	for range 50 {
		appendN(t, j, 1)
		j.zmu.Lock()
		off, zend := j.off, j.zend
		j.zmu.Unlock()
		b, _ := os.ReadFile(segmentPath(dir, 1))
		if int64(recordsEnd(b)) != off || lastNonZero(b[off:]) >= 0 || int64(len(b)) < zend {
			t.Fatalf("records end %d (off %d), %d bytes (zeroed through %d), nonzero past records at %d",
				recordsEnd(b), off, len(b), zend, lastNonZero(b[off:]))
		}
	}
	j.Close()
	b, _ := os.ReadFile(segmentPath(dir, 1))
	if end := recordsEnd(b); len(b)-end < 128-RecordOverhead-8 {
		t.Fatalf("%d bytes of zeros after %d of records: the fill did not stay ahead", len(b)-end, end)
	}
	j2, rec := openT(t, dir, Options{})
	if rec.TruncatedBytes != 0 || rec.LastSeq != 50 {
		t.Fatalf("clean reopen: %+v", rec)
	}
	checkReplay(t, j2, 1, 50)
}

// TestOldFormatJournal: segments as journals wrote them before zero-filling
// (records only, the last one possibly torn) open, replay and continue.
func TestOldFormatJournal(t *testing.T) {
	dir := t.TempDir()
	var seg []byte
	first := uint64(1)
	for seq := uint64(1); seq <= 30; seq++ {
		seg = AppendRecord(seg, seq, int64(seq)*10, payloadFor(seq))
		if len(seg) >= 200 || seq == 30 {
			if seq == 30 {
				seg = seg[:len(seg)-4] // torn last record
			}
			if err := os.WriteFile(segmentPath(dir, first), seg, 0o644); err != nil {
				t.Fatal(err)
			}
			seg, first = nil, seq+1
		}
	}
	j, rec := openT(t, dir, Options{SegmentBytes: 200})
	if rec.LastSeq != 29 || rec.TruncatedBytes != RecordOverhead+int64(len(payloadFor(30)))-4 {
		t.Fatalf("recovery %+v", rec)
	}
	checkReplay(t, j, 1, 29)
	appendN(t, j, 40)
	j.Close()
	j2, rec := openT(t, dir, Options{SegmentBytes: 200})
	if rec.LastSeq != 69 || rec.TruncatedBytes != 0 {
		t.Fatalf("reopen %+v", rec)
	}
	checkReplay(t, j2, 1, 69)
}

// TestCrashDuringFill: a crash before a fill's fdatasync may leave any
// prefix of its zeros (or none). Nothing acknowledged is lost, nothing is
// reported torn, and the journal zero-fills again and continues.
func TestCrashDuringFill(t *testing.T) {
	for _, keep := range []int{0, 1, 7, 100} { // zero bytes left past the records
		t.Run(fmt.Sprint(keep), func(t *testing.T) {
			dir := t.TempDir()
			j, _ := openT(t, dir, smallFill(1<<20))
			appendN(t, j, 20)
			j.Close()
			path := segmentPath(dir, 1)
			b, _ := os.ReadFile(path)
			os.WriteFile(path, b[:min(recordsEnd(b)+keep, len(b))], 0o644)
			j2, rec := openT(t, dir, smallFill(1<<20))
			if rec.LastSeq != 20 || rec.TruncatedBytes != 0 {
				t.Fatalf("recovery %+v", rec)
			}
			appendN(t, j2, 20)
			checkReplay(t, j2, 1, 40)
		})
	}
}

// TestSyncFailureAnywhere fails the nth fdatasync, whether a group's or a
// fill's: the journal refuses appends from then on, and a reopen finds
// every acknowledged record and continues.
func TestSyncFailureAnywhere(t *testing.T) {
	for n := range 12 {
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			dir := t.TempDir()
			opts := smallFill(600)
			opts.Sync = failingSync(n)
			j, _ := openT(t, dir, opts)
			var acked uint64
			for i := range 40 {
				seq, err := j.Append(int64(i), []byte("x"))
				if err != nil {
					break
				}
				acked = seq
			}
			if _, err := j.Append(0, []byte("y")); err == nil {
				t.Fatal("appends still accepted after a failed fdatasync")
			}
			j.Close()
			j2, rec := openT(t, dir, smallFill(600))
			if rec.LastSeq < acked {
				t.Fatalf("recovered through %d, %d was acknowledged", rec.LastSeq, acked)
			}
			if _, err := j2.Append(0, []byte("z")); err != nil {
				t.Fatal(err)
			}
			n := 0
			if err := j2.Replay(1, func(Record) error { n++; return nil }); err != nil || uint64(n) != rec.LastSeq+1 {
				t.Fatalf("replayed %d: %v", n, err)
			}
		})
	}
}

// model is what a journal must hold: payloads by sequence number, and the
// byte length of each record (to find where the last segment's records end
// without trusting the code under test).
type model struct{ payloads [][]byte }

func (m *model) last() uint64 { return uint64(len(m.payloads)) }

func (m *model) add(seq uint64, p []byte) error {
	if seq != m.last()+1 {
		return fmt.Errorf("seq %d after %d", seq, m.last())
	}
	m.payloads = append(m.payloads, p)
	return nil
}

// endIn is the end offset of the records of the segment starting at first.
func (m *model) endIn(first uint64) int64 {
	var end int64
	for seq := first; seq <= m.last(); seq++ {
		end += int64(RecordOverhead + len(m.payloads[seq-1]))
	}
	return end
}

// TestReopenRandomized runs a journal through many crash cycles, seeded:
// each cycle appends records of random sizes, closes, and may leave the
// remnant of an unacknowledged group past the last record, torn in one of
// the ways a crash tears it. The next cycle sometimes writes records of
// exactly the remnant's sizes, so a remnant record left behind would sit
// where a successor is expected. Every reopen must find exactly the model:
// the acknowledged records plus the remnant's intact leading records.
func TestReopenRandomized(t *testing.T) {
	rng := rand.New(rand.NewPCG(15, 7))
	dir := t.TempDir()
	opts := smallFill(3000)
	var m model
	var sizes []int // sizes of the last remnant's records
	for cycle := range 100 {
		j, rec, err := Open(dir, opts)
		if err != nil {
			t.Fatal(err)
		}
		if rec.LastSeq != m.last() {
			t.Fatalf("cycle %d: recovered through %d, model %d (%+v)", cycle, rec.LastSeq, m.last(), rec)
		}
		want := m.last()
		if err := j.Replay(1, func(r Record) error {
			if r.Seq > want || !bytes.Equal(r.Payload, m.payloads[r.Seq-1]) {
				return fmt.Errorf("record %d differs", r.Seq)
			}
			return nil
		}); err != nil {
			t.Fatalf("cycle %d: %v", cycle, err)
		}
		// Half the time after a tear, write fewer records than the remnant
		// had from its torn record on, each of its size, and no remnant:
		// the next Open must not take the remnant's next record for theirs.
		k, mimic := 1+rng.IntN(25), len(sizes) > 1 && rng.IntN(2) == 0
		if mimic {
			k = 1 + rng.IntN(len(sizes)-1)
		}
		for i := range k {
			size := rng.IntN(300)
			if mimic {
				size = sizes[i]
			}
			p := make([]byte, size)
			for b := range p {
				p[b] = byte(rng.Uint32())
			}
			seq, err := j.Append(int64(cycle), p)
			if err != nil {
				t.Fatal(err)
			}
			if err := m.add(seq, p); err != nil {
				t.Fatal(err)
			}
		}
		if err := j.Close(); err != nil {
			t.Fatal(err)
		}
		if sizes = nil; !mimic {
			sizes = leaveRemnant(t, dir, &m, rng)
		}
	}
}

// leaveRemnant writes an unacknowledged group past the last segment's
// records and tears it (a flipped byte, an unwritten suffix, or an
// unwritten page in the middle), or leaves none. It adds the remnant's
// records that stay intact to m and returns the remnant's record sizes.
func leaveRemnant(t *testing.T, dir string, m *model, rng *rand.Rand) []int {
	t.Helper()
	mode := rng.IntN(4)
	if mode == 0 {
		return nil
	}
	segs, _ := listSegments(dir)
	first := segs[len(segs)-1]
	off := m.endIn(first)
	var group []byte
	var sizes, ends []int
	var payloads [][]byte
	for i := range 1 + rng.IntN(6) {
		p := fmt.Appendf(nil, "remnant-%d-%d", m.last()+1+uint64(i), rng.IntN(1<<20))
		p = append(p, bytes.Repeat([]byte{0xa5}, rng.IntN(200))...)
		group = AppendRecord(group, m.last()+1+uint64(i), -1, p)
		sizes, ends, payloads = append(sizes, len(p)), append(ends, len(group)), append(payloads, p)
	}
	// The torn region of the group from byte from on: its bytes read as
	// zeros (mode 2 through the end, mode 3 a middle part), or (mode 1)
	// one byte is flipped.
	orig := bytes.Clone(group)
	from := rng.IntN(len(group))
	switch mode {
	case 1:
		group[from] ^= byte(1 + rng.IntN(255))
	case 2:
		clear(group[from:])
	case 3:
		clear(group[from : from+1+rng.IntN(len(group)-from)])
	}
	f, err := os.OpenFile(segmentPath(dir, first), os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteAt(group, off); err != nil {
		t.Fatal(err)
	}
	f.Close()
	// The leading records the tear left unchanged are recovered.
	start := 0
	for i, end := range ends {
		if !bytes.Equal(group[start:end], orig[start:end]) {
			return sizes[i:]
		}
		if err := m.add(m.last()+1, payloads[i]); err != nil {
			t.Fatal(err)
		}
		start = end
	}
	return nil
}

// TestReadersFollowGrowingJournal: readers made while appends continue
// (across zero-filled space, fills and rotations) each read exactly the
// records durable when they were made.
func TestReadersFollowGrowingJournal(t *testing.T) {
	dir := t.TempDir()
	j, _ := openT(t, dir, smallFill(1500))
	const producers, each = 4, 150
	var wg sync.WaitGroup
	var stop atomic.Bool
	for p := range producers {
		wg.Go(func() {
			for i := range each {
				if _, err := j.Append(int64(p), payloadFor(uint64(p*each+i))); err != nil {
					t.Error(err)
					return
				}
			}
		})
	}
	var rwg sync.WaitGroup
	rwg.Go(func() {
		rng := rand.New(rand.NewPCG(1, 2))
		for !stop.Load() {
			last := j.LastSeq()
			from := uint64(1)
			if last > 0 {
				from = 1 + rng.Uint64N(last)
			}
			r, err := j.NewReader(from)
			if err != nil {
				t.Error(err)
				return
			}
			next := from
			for {
				rec, err := r.Next()
				if err == io.EOF {
					break
				}
				if err != nil || rec.Seq != next {
					t.Errorf("reader from %d: seq %d, want %d: %v", from, rec.Seq, next, err)
					r.Close()
					return
				}
				next++
			}
			r.Close()
			if next <= last {
				t.Errorf("reader from %d stopped at %d before %d", from, next, last)
				return
			}
		}
	})
	wg.Wait()
	stop.Store(true)
	rwg.Wait()
	if segs, _ := listSegments(dir); len(segs) < 5 {
		t.Fatalf("only %d segments", len(segs))
	}
	n := 0
	if err := j.Replay(1, func(Record) error { n++; return nil }); err != nil || n != producers*each {
		t.Fatalf("replayed %d: %v", n, err)
	}
}

// TestPreparedNextSegment: near SegmentBytes the next segment is prepared
// under a temporary name; rotation renames it, and a leftover one (a crash
// or Close before rotation) is removed by Open, never read as a segment.
func TestPreparedNextSegment(t *testing.T) {
	dir := t.TempDir()
	j, _ := openT(t, dir, smallFill(1000))
	next := filepath.Join(dir, nextName)
	for j.LastSeq() < 200 {
		appendN(t, j, 1)
		if _, err := os.Stat(next); err == nil {
			break
		}
	}
	if _, err := os.Stat(next); err != nil {
		t.Fatalf("no prepared next segment after %d records: %v", j.LastSeq(), err)
	}
	last := j.LastSeq()
	j.Close()
	j2, rec := openT(t, dir, smallFill(1000))
	if _, err := os.Stat(next); !errors.Is(err, os.ErrNotExist) || rec.LastSeq != last {
		t.Fatalf("after reopen: %v, %+v", err, rec)
	}
	appendN(t, j2, 100)
	checkReplay(t, j2, 1, last+100)
	if segs, _ := listSegments(dir); len(segs) < 3 {
		t.Fatalf("segments %v", segs)
	}
}

// FuzzScanTail: recovery's scan of a last segment with an arbitrary tail
// never panics, keeps every record before the tail, and Open's rule (zero
// through the last nonzero byte past the good end) leaves only zeros.
func FuzzScanTail(f *testing.F) {
	var prefix []byte
	for seq := uint64(1); seq <= 3; seq++ {
		prefix = AppendRecord(prefix, seq, 1, payloadFor(seq))
	}
	f.Add([]byte{})
	f.Add(make([]byte, 100))
	f.Add(AppendRecord(nil, 4, 1, payloadFor(4)))
	f.Add(AppendRecord(nil, 5, 1, payloadFor(5)))
	f.Add(append(AppendRecord(nil, 4, 1, payloadFor(4))[:20], make([]byte, 50)...))
	f.Add(append(make([]byte, 30), AppendRecord(nil, 4, 1, payloadFor(4))...))
	f.Fuzz(func(t *testing.T, tail []byte) {
		buf := append(bytes.Clone(prefix), tail...)
		good, count := scanTail(buf, 1)
		if good < len(prefix) || count < 3 || good > len(buf) {
			t.Fatalf("good %d count %d of %d bytes", good, count, len(buf))
		}
		damaged := lastNonZero(buf[good:]) + 1
		clear(buf[good : good+damaged])
		if lastNonZero(buf[good:]) >= 0 {
			t.Fatal("nonzero byte left past the good end")
		}
		if g, c := scanTail(buf, 1); g != good || c != count {
			t.Fatalf("after clearing: %d/%d, was %d/%d", g, c, good, count)
		}
	})
}

// TestFillOffCriticalPath: while a fill's fdatasync hangs, groups that fit
// in the zeros already there keep committing; one that does not waits for
// the fill and commits after it.
func TestFillOffCriticalPath(t *testing.T) {
	started, release := make(chan struct{}), make(chan struct{})
	var once sync.Once
	opts := Options{SegmentBytes: 1 << 20, fillChunk: 4096, fillMargin: 2048}
	opts.Sync = func(f *os.File) error {
		if inFill() {
			once.Do(func() { close(started) })
			<-release
		}
		return syncData(f)
	}
	j, _ := openT(t, t.TempDir(), opts)
	for filling := false; !filling; {
		appendN(t, j, 1) // a group starts any fill it needs before its ack
		j.zmu.Lock()
		filling = j.filling
		j.zmu.Unlock()
	}
	<-started
	j.zmu.Lock()
	room := j.zend - j.off
	j.zmu.Unlock()
	// Records that fit below the zero end commit with the fill hung.
	done := make(chan error)
	go func() {
		for range room / 64 {
			if _, err := j.Append(1, make([]byte, 64-RecordOverhead)); err != nil {
				done <- err
				return
			}
		}
		done <- nil
	}()
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(30 * time.Second):
		close(release)
		t.Fatal("groups waited for a fill while zeros were left")
	}
	// One that does not fit waits for the fill, then commits.
	go func() { _, err := j.Append(1, make([]byte, room)); done <- err }()
	close(release)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	n := 0
	if err := j.Replay(1, func(Record) error { n++; return nil }); err != nil || uint64(n) != j.LastSeq() {
		t.Fatalf("replayed %d of %d: %v", n, j.LastSeq(), err)
	}
}

// inFill reports whether the caller runs inside (*Journal).fill.
func inFill() bool {
	pcs := make([]uintptr, 32)
	frames := runtime.CallersFrames(pcs[:runtime.Callers(2, pcs)])
	for {
		f, more := frames.Next()
		if strings.HasSuffix(f.Function, ".(*Journal).fill") {
			return true
		}
		if !more {
			return false
		}
	}
}
