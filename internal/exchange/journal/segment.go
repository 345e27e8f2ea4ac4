package journal

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
)

// A segment is one file of the journal, named after the sequence number of
// its first record: 00000000000000000001.wal. Invariants: segments are
// contiguous (segment i+1 starts right after the last record of segment i);
// only the last segment is ever written; a new segment is created (and the
// directory fsynced) only after the previous one's last write was fsynced, so
// a torn record can only be at the end of the last segment. A segment's
// records may be followed by zeros (zerofill.go): a record never starts with
// a zero length, so scanTail ends the log there.
const segmentExt = ".wal"

func segmentName(first uint64) string { return fmt.Sprintf("%020d%s", first, segmentExt) }

// listSegments returns the first sequence numbers of the segments in dir,
// ascending.
func listSegments(dir string) ([]uint64, error) {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	var out []uint64
	for _, e := range ents {
		name := e.Name()
		if !strings.HasSuffix(name, segmentExt) || e.IsDir() {
			continue
		}
		first, err := strconv.ParseUint(strings.TrimSuffix(name, segmentExt), 10, 64)
		if err != nil || len(name) != 20+len(segmentExt) {
			continue // not ours
		}
		out = append(out, first)
	}
	slices.Sort(out)
	return out, nil
}

// createSegment creates the empty segment starting at first and fsyncs dir,
// so the new file survives a crash before its first record is written
// (used when no prepared segment is ready: see zerofill.go).
func createSegment(dir string, first uint64) (*os.File, error) {
	f, err := os.OpenFile(segmentPath(dir, first), os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o644)
	if err != nil {
		return nil, err
	}
	if err := syncDir(dir); err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}

// syncDir fsyncs a directory so that creates, renames and removes in it are
// durable.
func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	err = d.Sync()
	if cerr := d.Close(); err == nil {
		err = cerr
	}
	return err
}

// scanTail validates the records of a segment read whole into buf, expecting
// consecutive sequence numbers starting at first. It returns the byte offset
// just past the last good record and the number of good records; anything
// after that offset is zeros or a torn or corrupt tail.
func scanTail(buf []byte, first uint64) (good int, count uint64) {
	for good < len(buf) {
		rec, n, err := DecodeRecord(buf[good:])
		if err != nil || rec.Seq != first+count {
			return good, count
		}
		good += n
		count++
	}
	return good, count
}

func segmentPath(dir string, first uint64) string { return filepath.Join(dir, segmentName(first)) }
