package journal

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"sync"
	"sync/atomic"
	"testing"
)

func payloadFor(seq uint64) []byte { return fmt.Appendf(nil, "cmd-%d", seq) }

func openT(t *testing.T, dir string, opts Options) (*Journal, Recovery) {
	t.Helper()
	j, rec, err := Open(dir, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { j.Close() })
	return j, rec
}

// appendN appends records n times with payloadFor(seq) and ts = seq*10.
func appendN(t *testing.T, j *Journal, n int) {
	t.Helper()
	for range n {
		next := j.LastSeq() + 1
		seq, err := j.Append(int64(next)*10, payloadFor(next))
		if err != nil || seq != next {
			t.Fatalf("append: seq %d err %v, want %d", seq, err, next)
		}
	}
}

// checkReplay requires records from..last to be exactly the appendN ones.
func checkReplay(t *testing.T, j *Journal, from, last uint64) {
	t.Helper()
	want := from
	err := j.Replay(from, func(r Record) error {
		if r.Seq != want || r.TS != int64(want)*10 || !bytes.Equal(r.Payload, payloadFor(want)) {
			return fmt.Errorf("record %+v, want seq %d", r, want)
		}
		want++
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if want != last+1 {
		t.Fatalf("replay ended before %d, want through %d", want, last)
	}
}

func TestAppendReplayReopen(t *testing.T) {
	dir := t.TempDir()
	j, rec := openT(t, dir, Options{})
	if rec.LastSeq != 0 || rec.TruncatedBytes != 0 {
		t.Fatalf("fresh recovery %+v", rec)
	}
	appendN(t, j, 100)
	checkReplay(t, j, 1, 100)
	checkReplay(t, j, 57, 100)
	checkReplay(t, j, 101, 100)
	if err := j.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := j.Append(0, nil); !errors.Is(err, ErrClosed) {
		t.Fatalf("append after close: %v", err)
	}
	j2, rec := openT(t, dir, Options{})
	if rec.LastSeq != 100 || rec.TruncatedBytes != 0 {
		t.Fatalf("reopen recovery %+v", rec)
	}
	appendN(t, j2, 5)
	checkReplay(t, j2, 1, 105)
}

func TestConcurrentAppendsGroupCommit(t *testing.T) {
	j, _ := openT(t, t.TempDir(), Options{SegmentBytes: 4096})
	const producers, each = 16, 200
	var wg sync.WaitGroup
	seen := make([][]uint64, producers)
	for p := range producers {
		wg.Go(func() {
			for i := range each {
				seq, err := j.Append(int64(p), fmt.Appendf(nil, "%d/%d", p, i))
				if err != nil {
					t.Error(err)
					return
				}
				// Acknowledged means durable: the reader must already see it.
				if j.LastSeq() < seq {
					t.Errorf("ack of %d before durable %d", seq, j.LastSeq())
				}
				seen[p] = append(seen[p], seq)
			}
		})
	}
	wg.Wait()
	// Every producer's records appear in its own order with its sequence numbers.
	got := map[uint64]string{}
	if err := j.Replay(1, func(r Record) error { got[r.Seq] = string(r.Payload); return nil }); err != nil {
		t.Fatal(err)
	}
	if len(got) != producers*each {
		t.Fatalf("%d records", len(got))
	}
	for p, seqs := range seen {
		for i, s := range seqs {
			if want := fmt.Sprintf("%d/%d", p, i); got[s] != want {
				t.Fatalf("seq %d = %q, want %q", s, got[s], want)
			}
		}
	}
	if segs, _ := listSegments(j.Dir()); len(segs) < 2 {
		t.Fatalf("no rotation: %v", segs)
	}
}

func TestRotationAndPrune(t *testing.T) {
	dir := t.TempDir()
	j, _ := openT(t, dir, Options{SegmentBytes: 200})
	appendN(t, j, 60) // ~32 bytes each: a segment every ~7 records
	segs, _ := listSegments(dir)
	if len(segs) < 5 {
		t.Fatalf("segments %v", segs)
	}
	checkReplay(t, j, 1, 60)
	checkReplay(t, j, segs[2], 60)
	checkReplay(t, j, segs[2]+1, 60)

	if err := j.PruneThrough(segs[3] - 1); err != nil {
		t.Fatal(err)
	}
	if got := j.FirstSeq(); got != segs[3] {
		t.Fatalf("first seq %d, want %d", got, segs[3])
	}
	if _, err := j.NewReader(segs[3] - 1); !errors.Is(err, ErrPruned) {
		t.Fatalf("reader before prune point: %v", err)
	}
	checkReplay(t, j, segs[3], 60)
	// Pruning never removes the active segment.
	if err := j.PruneThrough(1 << 40); err != nil {
		t.Fatal(err)
	}
	appendN(t, j, 3)
	j.Close()
	j2, rec := openT(t, dir, Options{SegmentBytes: 200})
	if rec.LastSeq != 63 {
		t.Fatalf("recovery %+v", rec)
	}
	checkReplay(t, j2, j2.FirstSeq(), 63)
}

// TestTornTail damages the end of the last segment in the ways a crash or a
// bad disk can, and requires Open to cut exactly the damaged record.
func TestTornTail(t *testing.T) {
	rec10 := int64(RecordOverhead + len(payloadFor(10)))
	tests := []struct {
		name     string
		damage   func(b []byte) []byte
		wantLast uint64
	}{
		{"clean", func(b []byte) []byte { return b }, 10},
		{"last byte missing", func(b []byte) []byte { return b[:len(b)-1] }, 9},
		{"only header of last", func(b []byte) []byte { return b[:len(b)-int(rec10)+headerSize] }, 9},
		{"half header of last", func(b []byte) []byte { return b[:len(b)-int(rec10)+3] }, 9},
		{"payload bit flip", func(b []byte) []byte { b[len(b)-2] ^= 0x40; return b }, 9},
		{"crc bit flip", func(b []byte) []byte { b[len(b)-int(rec10)+5] ^= 1; return b }, 9},
		{"zeros appended", func(b []byte) []byte { return append(b, make([]byte, 100)...) }, 10},
		{"garbage appended", func(b []byte) []byte { return append(b, "\x20\x00\x00\x00garbage!"...) }, 10},
		{"stale record appended", func(b []byte) []byte { return AppendRecord(b, 5, 50, payloadFor(5)) }, 10},
		{"corrupt earlier record", func(b []byte) []byte { b[7*(RecordOverhead+len("cmd-8"))+9] ^= 0xff; return b }, 7},
		{"emptied", func(b []byte) []byte { return nil }, 0},
	}
	for _, tc := range tests {
		for _, l := range layouts {
			t.Run(tc.name+"/"+l.name, func(t *testing.T) {
				dir := tenRecords(t)
				damaged := damageTail(t, dir, 1, tc.damage, l.zeroTail)
				j2, rec := openT(t, dir, Options{})
				if rec.LastSeq != tc.wantLast {
					t.Fatalf("last %d, want %d (recovery %+v)", rec.LastSeq, tc.wantLast, rec)
				}
				// Open zeroes from the last good record through the last
				// nonzero byte, and the file keeps (at least) its length.
				good := 0
				for seq := uint64(1); seq <= tc.wantLast; seq++ {
					good += RecordOverhead + len(payloadFor(seq))
				}
				if want := int64(lastNonZero(damaged[good:]) + 1); rec.TruncatedBytes != want {
					t.Fatalf("truncated %d, want %d", rec.TruncatedBytes, want)
				}
				b, _ := os.ReadFile(segmentPath(dir, 1))
				if len(b) < len(damaged) || recordsEnd(b) != good || lastNonZero(b[good:]) >= 0 {
					t.Fatalf("after Open: %d bytes (was %d), records end at %d (want %d), nonzero past them at %d",
						len(b), len(damaged), recordsEnd(b), good, lastNonZero(b[good:]))
				}
				checkReplay(t, j2, 1, tc.wantLast)
				// Appends continue right after the last good record.
				appendN(t, j2, 2)
				checkReplay(t, j2, 1, tc.wantLast+2)
			})
		}
	}
}

// A damaged record in a segment before the last one is not a torn tail: the
// reader must refuse it rather than skip acknowledged records.
func TestCorruptOlderSegment(t *testing.T) {
	dir := t.TempDir()
	j, _ := openT(t, dir, Options{SegmentBytes: 200})
	appendN(t, j, 30)
	segs, _ := listSegments(dir)
	path := segmentPath(dir, segs[0])
	b, _ := os.ReadFile(path)
	b[len(b)/2] ^= 0xff
	os.WriteFile(path, b, 0o644)
	err := j.Replay(1, func(Record) error { return nil })
	if !errors.Is(err, ErrCorrupt) {
		t.Fatalf("replay over corrupt segment: %v", err)
	}
}

func TestReaderStopsAtDurableEnd(t *testing.T) {
	j, _ := openT(t, t.TempDir(), Options{})
	appendN(t, j, 3)
	r, err := j.NewReader(1)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	appendN(t, j, 2) // after the reader was made
	n := 0
	for {
		_, err := r.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		n++
	}
	if n != 3 {
		t.Fatalf("read %d records, want 3", n)
	}
}

func TestPayloadTooLarge(t *testing.T) {
	j, _ := openT(t, t.TempDir(), Options{})
	if _, err := j.Append(0, make([]byte, MaxPayload+1)); !errors.Is(err, ErrTooLarge) {
		t.Fatalf("err %v", err)
	}
	appendN(t, j, 1) // the journal is still usable
}

// failingSync fails every fdatasync after the first n.
func failingSync(n int) func(*os.File) error {
	var calls atomic.Int64
	return func(f *os.File) error {
		if calls.Add(1) > int64(n) {
			return errors.New("injected EIO")
		}
		return syncData(f)
	}
}

// TestSyncFailureIsSticky: a failed fsync fails its group and every later
// append; nothing past the last good sync is ever reported durable.
func TestSyncFailureIsSticky(t *testing.T) {
	j, _ := openT(t, t.TempDir(), Options{Sync: failingSync(3)})
	appendN(t, j, 3)
	if _, err := j.Append(1, []byte("x")); err == nil {
		t.Fatal("append acknowledged after a failed fsync")
	}
	if _, err := j.Append(1, []byte("y")); err == nil {
		t.Fatal("journal accepted an append after a failed fsync")
	}
	if j.LastSeq() != 3 {
		t.Fatalf("durable %d after failure, want 3", j.LastSeq())
	}
	checkReplay(t, j, 1, 3)
}
