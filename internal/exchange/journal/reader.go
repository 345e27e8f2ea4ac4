package journal

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
)

// ErrPruned is returned when a reader asks for records that were removed
// behind a snapshot.
var ErrPruned = errors.New("journal: records pruned")

// Reader iterates records in sequence order from a starting sequence number
// up to the last record that was durable when the reader was created. It
// reads segment files directly, so it may run while appends continue. It
// never reads past that record, so the zeros a segment holds after its
// records (zerofill.go) are never decoded: a segment ends where the next
// sequence number starts the next one.
type Reader struct {
	dir  string
	segs []uint64
	idx  int    // index into segs of the open segment
	next uint64 // sequence number expected next
	last uint64 // stop after this sequence number
	f    *os.File
	tail *segTail // Open's copy of a segment's prefix, until the reader reaches it
	mem  []byte   // unread part of that copy: decoded from memory before br
	br   *bufio.Reader
	hdr  [headerSize]byte
	body []byte
}

// NewReader returns a reader positioned at sequence number from (>= 1).
// Reading yields io.EOF after LastSeq as of this call.
func (j *Journal) NewReader(from uint64) (*Reader, error) {
	if from == 0 {
		from = 1
	}
	last := j.durable.Load()
	j.segMu.Lock()
	segs := slices.Clone(j.segs)
	tail := j.tail
	j.tail = nil // only the first reader (start-up's Replay) uses it
	j.segMu.Unlock()
	if from < segs[0] {
		return nil, fmt.Errorf("%w: want %d, first held is %d", ErrPruned, from, segs[0])
	}
	idx := 0
	for idx+1 < len(segs) && segs[idx+1] <= from {
		idx++
	}
	r := &Reader{dir: j.dir, segs: segs, idx: idx, next: segs[idx], last: last, tail: tail}
	if err := r.open(); err != nil {
		return nil, err
	}
	for r.next < from && r.next <= last { // skip to from
		if _, err := r.Next(); err != nil {
			r.Close()
			return nil, err
		}
	}
	return r, nil
}

func (r *Reader) open() error {
	f, err := os.Open(segmentPath(r.dir, r.segs[r.idx]))
	if err != nil {
		return err
	}
	if r.f != nil {
		r.f.Close()
	}
	r.f = f
	r.mem = nil
	if t := r.tail; t != nil && t.first == r.segs[r.idx] {
		// The file's first len(t.buf) bytes are t.buf (Open checked them and
		// bytes below the write offset never change): decode those from
		// memory and read only what was written since from the file.
		r.tail, r.mem = nil, t.buf
		if _, err := f.Seek(int64(len(t.buf)), io.SeekStart); err != nil {
			return err
		}
	}
	if r.br == nil {
		r.br = bufio.NewReaderSize(f, 1<<20)
	} else {
		r.br.Reset(f)
	}
	return nil
}

// Next returns the next record, or io.EOF after the last durable one. The
// payload is valid until the following call. A checksum or sequence error
// before the durable end is ErrCorrupt: those records were acknowledged.
func (r *Reader) Next() (Record, error) {
	if r.next > r.last {
		return Record{}, io.EOF
	}
	for r.idx+1 < len(r.segs) && r.next >= r.segs[r.idx+1] {
		r.idx++
		if err := r.open(); err != nil {
			return Record{}, err
		}
	}
	rec, err := r.read()
	if err != nil {
		return Record{}, r.corrupt(err)
	}
	if rec.Seq != r.next {
		return Record{}, r.corrupt(fmt.Errorf("sequence %d, want %d", rec.Seq, r.next))
	}
	r.next++
	return rec, nil
}

// read decodes the next record of the open segment, from mem while it
// lasts, then from the file.
func (r *Reader) read() (Record, error) {
	if len(r.mem) > 0 {
		rec, n, err := DecodeRecord(r.mem)
		r.mem = r.mem[n:]
		return rec, err
	}
	if _, err := io.ReadFull(r.br, r.hdr[:]); err != nil {
		return Record{}, err
	}
	n, err := bodyLen(r.hdr[:])
	if err != nil {
		return Record{}, err
	}
	if cap(r.body) < n {
		r.body = make([]byte, n, max(n, 2*cap(r.body)))
	}
	r.body = r.body[:n]
	if _, err := io.ReadFull(r.br, r.body); err != nil {
		return Record{}, err
	}
	return decodeBody(r.hdr[:], r.body)
}

func (r *Reader) corrupt(err error) error {
	return fmt.Errorf("%w: segment %s near seq %d: %v", ErrCorrupt, segmentName(r.segs[r.idx]), r.next, err)
}

// Close releases the open segment file.
func (r *Reader) Close() error {
	if r.f == nil {
		return nil
	}
	err := r.f.Close()
	r.f = nil
	return err
}

// Replay calls fn for every durable record from sequence number from on.
func (j *Journal) Replay(from uint64, fn func(Record) error) error {
	r, err := j.NewReader(from)
	if err != nil {
		return err
	}
	defer r.Close()
	for {
		rec, err := r.Next()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
		if err := fn(rec); err != nil {
			return err
		}
	}
}
