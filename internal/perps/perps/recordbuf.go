package perps

import (
	"encoding/binary"
	"iter"
	"math"
)

// wbuf writes record fields (record.go); zero values are left out.
type wbuf []byte

func (w *wbuf) tag(t byte)   { *w = append(*w, t) }
func (w *wbuf) uv(v uint64)  { *w = binary.AppendUvarint(*w, v) }
func (w *wbuf) raw(s string) { w.uv(uint64(len(s))); *w = append(*w, s...) }

func (w *wbuf) str(t byte, s string) {
	if s != "" {
		w.tag(t)
		w.raw(s)
	}
}

func (w *wbuf) strp(t byte, s *string) {
	if s != nil {
		w.tag(t)
		w.raw(*s)
	}
}

func (w *wbuf) bytes(t byte, b []byte) {
	if len(b) > 0 {
		w.tag(t)
		w.uv(uint64(len(b)))
		*w = append(*w, b...)
	}
}

func (w *wbuf) uint(t byte, v uint64) {
	if v != 0 {
		w.tag(t)
		w.uv(v)
	}
}

func (w *wbuf) int(t byte, v int64) {
	if v != 0 {
		w.tag(t)
		*w = binary.AppendVarint(*w, v)
	}
}

func (w *wbuf) flag(t byte, v bool) {
	if v {
		w.tag(t)
	}
}

func (w *wbuf) list(t byte, n int) {
	w.tag(t)
	w.uv(uint64(n))
}

// begin starts a length-prefixed nested record, written in place: one
// length byte is reserved and end widens it if the record is longer.
func (w *wbuf) begin() int {
	*w = append(*w, 0)
	return len(*w)
}

// end finishes the nested record begun at start.
func (w *wbuf) end(start int) {
	n := len(*w) - start
	if n < 0x80 {
		(*w)[start-1] = byte(n)
		return
	}
	var lb [binary.MaxVarintLen64]byte
	k := binary.PutUvarint(lb[:], uint64(n))
	*w = append(*w, lb[:k-1]...) // room for the wider length
	copy((*w)[start-1+k:], (*w)[start:start+n])
	copy((*w)[start-1:], lb[:k])
}

// rbuf reads record fields; the first error marks the whole record bad
// (bad is shared with nested records) and every later read yields zero.
type rbuf struct {
	b   []byte
	bad bool
	up  *rbuf // the enclosing record
}

func (r *rbuf) fail() {
	for x := r; x != nil; x = x.up {
		x.bad = true
	}
	r.b = nil
}

// tags yields the record's tags, which must strictly increase, until its
// end or an error.
func (r *rbuf) tags() iter.Seq[byte] {
	return func(yield func(byte) bool) {
		last := byte(0)
		for len(r.b) > 0 && !r.bad {
			t := r.b[0]
			r.b = r.b[1:]
			if t <= last {
				r.fail()
				return
			}
			last = t
			if !yield(t) {
				return
			}
		}
	}
}

func (r *rbuf) uv() uint64 {
	v, n := binary.Uvarint(r.b)
	if n <= 0 {
		r.fail()
		return 0
	}
	r.b = r.b[n:]
	return v
}

func (r *rbuf) v() int64 {
	v, n := binary.Varint(r.b)
	if n <= 0 {
		r.fail()
		return 0
	}
	r.b = r.b[n:]
	return v
}

func (r *rbuf) u32() uint32 {
	v := r.uv()
	if v > math.MaxUint32 {
		r.fail()
		return 0
	}
	return uint32(v)
}

func (r *rbuf) u8() uint8 {
	v := r.uv()
	if v > math.MaxUint8 {
		r.fail()
		return 0
	}
	return uint8(v)
}

// take returns the next n bytes.
func (r *rbuf) take() []byte {
	n := r.uv()
	if r.bad || n > uint64(len(r.b)) {
		r.fail()
		return nil
	}
	b := r.b[:n:n]
	r.b = r.b[n:]
	return b
}

func (r *rbuf) str() string { return string(r.take()) }

func (r *rbuf) byteStr() []byte {
	b := r.take()
	if len(b) == 0 {
		return nil
	}
	return append([]byte(nil), b...)
}

// count reads a list length; each element takes at least min bytes, so a
// count the rest of the record cannot hold is refused before allocating.
func (r *rbuf) count(min int) int {
	n := r.uv()
	if r.bad || n > uint64(len(r.b)/min) {
		r.fail()
		return 0
	}
	return int(n)
}

// record reads a length-prefixed nested record.
func (r *rbuf) record() rbuf { return rbuf{b: r.take(), up: r} }

// known returns the constant among ks equal to the next string, so common
// values (kinds, time in force) are not allocated per record.
func (r *rbuf) known(ks ...string) string {
	b := r.take()
	for _, k := range ks {
		if string(b) == k {
			return k
		}
	}
	return string(b)
}
