package journal

import (
	"bytes"
	"errors"
	"testing"
)

func TestRecordRoundTrip(t *testing.T) {
	tests := []struct {
		name    string
		seq     uint64
		ts      int64
		payload []byte
	}{
		{"empty payload", 1, 0, nil},
		{"negative ts", 7, -5, []byte("x")},
		{"max seq", ^uint64(0), 1 << 62, bytes.Repeat([]byte{0xab}, 1000)},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			buf := AppendRecord([]byte("prefix"), tc.seq, tc.ts, tc.payload)
			rec, n, err := DecodeRecord(buf[len("prefix"):])
			if err != nil {
				t.Fatal(err)
			}
			if n != RecordOverhead+len(tc.payload) || n != len(buf)-len("prefix") {
				t.Fatalf("n = %d", n)
			}
			if rec.Seq != tc.seq || rec.TS != tc.ts || !bytes.Equal(rec.Payload, tc.payload) {
				t.Fatalf("got %+v", rec)
			}
		})
	}
}

func TestDecodeRecordErrors(t *testing.T) {
	good := AppendRecord(nil, 3, 4, []byte("payload"))
	flip := func(i int) []byte {
		b := bytes.Clone(good)
		b[i] ^= 0x01
		return b
	}
	tests := []struct {
		name string
		buf  []byte
		want error
	}{
		{"empty", nil, ErrShort},
		{"half header", good[:5], ErrShort},
		{"header only", good[:headerSize], ErrShort},
		{"missing last byte", good[:len(good)-1], ErrShort},
		{"zero header", make([]byte, 64), ErrCorrupt},
		{"length below minimum", []byte{15, 0, 0, 0, 0, 0, 0, 0}, ErrCorrupt},
		{"length above maximum", []byte{0xff, 0xff, 0xff, 0xff, 0, 0, 0, 0}, ErrCorrupt},
		{"flipped length", append(flip(0), 0), ErrCorrupt},
		{"flipped crc", flip(5), ErrCorrupt},
		{"flipped seq", flip(9), ErrCorrupt},
		{"flipped payload", flip(len(good) - 1), ErrCorrupt},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, _, err := DecodeRecord(tc.buf)
			if !errors.Is(err, tc.want) {
				t.Fatalf("err = %v, want %v", err, tc.want)
			}
		})
	}
}

// FuzzDecodeRecord checks that the decoder never panics, never reads past
// its input, and that whatever it accepts re-encodes to the same bytes.
func FuzzDecodeRecord(f *testing.F) {
	f.Add(AppendRecord(nil, 1, 2, []byte("hello")))
	f.Add(AppendRecord(AppendRecord(nil, 1, 2, nil), 2, 3, []byte{0}))
	f.Add([]byte{16, 0, 0, 0, 1, 2, 3, 4})
	f.Add(make([]byte, 30))
	f.Fuzz(func(t *testing.T, buf []byte) {
		rec, n, err := DecodeRecord(buf)
		if err != nil {
			if n != 0 {
				t.Fatalf("n = %d with %v", n, err)
			}
			return
		}
		if n > len(buf) || n < RecordOverhead {
			t.Fatalf("n = %d, len %d", n, len(buf))
		}
		again := AppendRecord(nil, rec.Seq, rec.TS, rec.Payload)
		if !bytes.Equal(again, buf[:n]) {
			t.Fatalf("re-encoding differs")
		}
	})
}
