package journal

import (
	"bytes"
	"errors"
	"os"
	"testing"
)

// Segment layouts a damaged tail is tested in.
var layouts = []struct {
	name     string
	zeroTail bool
}{
	// As this journal leaves a segment: the records, then the zero-filled
	// space, so bytes a crash did not write read as zeros.
	{"zero tail", true},
	// As journals before zero-filling wrote it: the records alone.
	{"old format", false},
}

// recordsEnd is the offset just past the records at the start of b.
func recordsEnd(b []byte) int {
	end := 0
	for {
		_, n, err := DecodeRecord(b[end:])
		if err != nil {
			return end
		}
		end += n
	}
}

// tenRecords is the directory of a closed journal holding records 1–10.
func tenRecords(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	j, _ := openT(t, dir, Options{})
	appendN(t, j, 10)
	j.Close()
	return dir
}

// damageTail rewrites segment first's records through damage, followed by
// zeros through the file's old length if zeroTail (else by nothing), and
// returns what it wrote.
func damageTail(t *testing.T, dir string, first uint64, damage func([]byte) []byte, zeroTail bool) []byte {
	t.Helper()
	path := segmentPath(dir, first)
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	end := recordsEnd(b)
	if i := lastNonZero(b[end:]); i >= 0 {
		t.Fatalf("nonzero byte %d bytes past the records", i)
	}
	damaged := damage(bytes.Clone(b[:end]))
	if zeroTail && len(damaged) < len(b) {
		damaged = append(damaged, make([]byte, len(b)-len(damaged))...)
	}
	if err := os.WriteFile(path, damaged, 0o644); err != nil {
		t.Fatal(err)
	}
	return damaged
}

// TestFirstReplayAfterTornTail: the first reader after Open takes the last
// segment's records from what Open read (truncated at the torn tail) and
// the rest from the file. Records appended after Open, in the same segment
// or after a rotation, must follow without a gap, a repeat or the cut-off
// bytes, from any starting point.
func TestFirstReplayAfterTornTail(t *testing.T) {
	tests := []struct {
		name     string
		damage   func(b []byte) []byte
		wantLast uint64
		segBytes int64 // > 0: rotate soon after Open
		from     uint64
	}{
		{"clean", func(b []byte) []byte { return b }, 10, 0, 1},
		{"garbage appended", func(b []byte) []byte { return append(b, "\x20\x00\x00\x00garbage!"...) }, 10, 0, 1},
		{"last byte missing", func(b []byte) []byte { return b[:len(b)-1] }, 9, 0, 1},
		{"last byte missing, from the middle", func(b []byte) []byte { return b[:len(b)-1] }, 9, 0, 4},
		{"stale record appended, then rotation", func(b []byte) []byte { return AppendRecord(b, 5, 50, payloadFor(5)) }, 10, 400, 1},
		{"last byte missing, then rotation", func(b []byte) []byte { return b[:len(b)-1] }, 9, 400, 9},
	}
	for _, tc := range tests {
		for _, l := range layouts {
			t.Run(tc.name+"/"+l.name, func(t *testing.T) {
				dir := tenRecords(t)
				damageTail(t, dir, 1, tc.damage, l.zeroTail)
				j2, rec := openT(t, dir, Options{SegmentBytes: tc.segBytes})
				if rec.LastSeq != tc.wantLast {
					t.Fatalf("recovery %+v, want last %d", rec, tc.wantLast)
				}
				appendN(t, j2, 20)
				if segs, _ := listSegments(dir); (tc.segBytes > 0) != (len(segs) > 1) {
					t.Fatalf("segments %v with SegmentBytes %d", segs, tc.segBytes)
				}
				checkReplay(t, j2, tc.from, tc.wantLast+20)
			})
		}
	}
}

// TestStartupReadsLastSegmentOnce: start-up's Replay takes the last
// segment's checked records from Open's read, not from the disk again. A
// byte flipped on disk after Open is unseen by that first Replay, and seen
// (ErrCorrupt) by a later reader, which reads the file.
func TestStartupReadsLastSegmentOnce(t *testing.T) {
	dir := tenRecords(t)
	j2, _ := openT(t, dir, Options{})
	damageTail(t, dir, 1, func(b []byte) []byte { b[RecordOverhead+3] ^= 0xff; return b }, true)
	checkReplay(t, j2, 1, 10)
	if err := j2.Replay(1, func(Record) error { return nil }); !errors.Is(err, ErrCorrupt) {
		t.Fatalf("second replay over a damaged file: %v", err)
	}
}
