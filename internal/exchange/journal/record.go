package journal

import (
	"encoding/binary"
	"errors"
	"hash/crc32"
)

// Record layout (all integers little-endian):
//
//	off  size  field
//	0    4     n: length of the body (seq + ts + payload), 16 <= n <= MaxBody
//	4    4     CRC32C (Castagnoli) over bytes [0:4] and the body
//	8    8     seq, uint64
//	16   8     ts, int64 (the command's own timestamp; the journal never reads a clock)
//	24   n-16  payload
//
// The CRC covers the length field too, so a flipped length bit is caught even
// when the bytes it points at happen to form a plausible body.
const (
	headerSize = 8
	bodyFixed  = 16
	// RecordOverhead is the number of bytes a record adds to its payload.
	RecordOverhead = headerSize + bodyFixed
	// MaxBody bounds a record body. A torn or corrupt length field would
	// otherwise make the reader try to allocate gigabytes.
	MaxBody = 16 << 20
	// MaxPayload is the largest payload Append accepts.
	MaxPayload = MaxBody - bodyFixed
)

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

var (
	// ErrShort means the buffer ends inside a record: a torn write at the tail.
	ErrShort = errors.New("journal: truncated record")
	// ErrCorrupt means a record's length or checksum is invalid.
	ErrCorrupt = errors.New("journal: corrupt record")
	// ErrTooLarge rejects a payload above MaxPayload.
	ErrTooLarge = errors.New("journal: payload too large")
)

// Record is one journaled command. Payload aliases the reader's buffer and is
// valid only until the next read.
type Record struct {
	Seq     uint64
	TS      int64
	Payload []byte
}

// AppendRecord appends the encoding of one record to dst.
func AppendRecord(dst []byte, seq uint64, ts int64, payload []byte) []byte {
	n := bodyFixed + len(payload)
	start := len(dst)
	dst = binary.LittleEndian.AppendUint32(dst, uint32(n))
	dst = append(dst, 0, 0, 0, 0) // CRC, filled below
	dst = binary.LittleEndian.AppendUint64(dst, seq)
	dst = binary.LittleEndian.AppendUint64(dst, uint64(ts))
	dst = append(dst, payload...)
	rec := dst[start:]
	crc := crc32.Update(crc32.Checksum(rec[0:4], castagnoli), castagnoli, rec[headerSize:])
	binary.LittleEndian.PutUint32(rec[4:8], crc)
	return dst
}

// DecodeRecord decodes the record at the start of buf and returns it with the
// number of bytes it occupies. It returns ErrShort when buf ends before the
// record does and ErrCorrupt when the length is out of range or the checksum
// does not match. The payload aliases buf.
func DecodeRecord(buf []byte) (Record, int, error) {
	if len(buf) < headerSize {
		return Record{}, 0, ErrShort
	}
	n, err := bodyLen(buf[:headerSize])
	if err != nil {
		return Record{}, 0, err
	}
	if len(buf) < headerSize+n {
		return Record{}, 0, ErrShort
	}
	rec, err := decodeBody(buf[:headerSize], buf[headerSize:headerSize+n])
	if err != nil {
		return Record{}, 0, err
	}
	return rec, headerSize + n, nil
}

// bodyLen validates the length field of a header.
func bodyLen(hdr []byte) (int, error) {
	n := binary.LittleEndian.Uint32(hdr[0:4])
	if n < bodyFixed || n > MaxBody {
		return 0, ErrCorrupt
	}
	return int(n), nil
}

// decodeBody checks the CRC of header+body and splits the body.
func decodeBody(hdr, body []byte) (Record, error) {
	crc := crc32.Update(crc32.Checksum(hdr[0:4], castagnoli), castagnoli, body)
	if crc != binary.LittleEndian.Uint32(hdr[4:8]) {
		return Record{}, ErrCorrupt
	}
	return Record{
		Seq:     binary.LittleEndian.Uint64(body[0:8]),
		TS:      int64(binary.LittleEndian.Uint64(body[8:16])),
		Payload: body[bodyFixed:],
	}, nil
}
