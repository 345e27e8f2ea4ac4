package book

import (
	"bytes"
	"errors"
	"math"
	"testing"
)

func TestCommandRoundTrip(t *testing.T) {
	cases := []Command{
		{},
		{Seq: 1, Time: 1_700_000_000_000_000_000, Book: 7, Op: OpAdd, Side: Sell, TIF: FOK, Flags: PostOnly | ReduceOnly, Outcome: OutcomeNo, OID: 42, Owner: 9, Price: 4500, Qty: 100},
		{Seq: math.MaxUint64, Time: math.MinInt64, Book: math.MaxUint32, Op: OpModify, OID: math.MaxUint64, Owner: math.MaxUint64, Price: math.MaxInt64, Qty: math.MinInt64},
		{Op: OpCancel, OID: 1, Time: -1, Price: -5},
	}
	for i, c := range cases {
		b, err := c.MarshalBinary()
		if err != nil {
			t.Fatalf("case %d: marshal: %v", i, err)
		}
		if len(b) > MaxEncodedLen {
			t.Fatalf("case %d: %d bytes > MaxEncodedLen %d", i, len(b), MaxEncodedLen)
		}
		var d Command
		if err := d.UnmarshalBinary(b); err != nil {
			t.Fatalf("case %d: unmarshal: %v", i, err)
		}
		if d != c {
			t.Fatalf("case %d: got %+v want %+v", i, d, c)
		}
	}
}

func TestCommandDecodeErrors(t *testing.T) {
	good, _ := (&Command{Seq: 300, OID: 5, Qty: 1}).MarshalBinary()
	overlong := append([]byte{encVersion, 1, 0, 0, 0x80, 0x00}, good[5:]...)
	cases := []struct {
		name string
		b    []byte
		want error
	}{
		{"empty", nil, ErrShort},
		{"version", append([]byte{9}, good[1:]...), ErrVersion},
		{"tif", append([]byte{encVersion, 1, 3 << 1, 0}, good[4:]...), ErrField},
		{"high bits", append([]byte{encVersion, 1, 1 << 4, 0}, good[4:]...), ErrField},
		{"truncated", good[:len(good)-1], ErrVarint},
		{"overlong", overlong, ErrVarint},
		{"trailing", append(append([]byte{}, good...), 0), ErrField},
	}
	for _, tc := range cases {
		var c Command
		if err := c.UnmarshalBinary(tc.b); !errors.Is(err, tc.want) {
			t.Errorf("%s: got %v want %v", tc.name, err, tc.want)
		}
	}
	if _, err := (&Command{TIF: 3}).MarshalBinary(); !errors.Is(err, ErrField) {
		t.Fatalf("marshal bad TIF: %v", err)
	}
}

func TestCommandAppendNoAlloc(t *testing.T) {
	c := Command{Seq: 1, OID: 2, Price: 3, Qty: 4}
	buf := make([]byte, 0, MaxEncodedLen)
	if n := testing.AllocsPerRun(100, func() { buf, _ = c.AppendBinary(buf[:0]) }); n != 0 {
		t.Fatalf("AppendBinary allocates %v", n)
	}
}

// FuzzCommandDecode: any accepted record re-encodes to exactly its own bytes.
func FuzzCommandDecode(f *testing.F) {
	for _, c := range []Command{{}, {Seq: 1, Op: OpAdd, OID: 2, Price: 100, Qty: 5, Side: Sell, TIF: IOC}} {
		b, _ := c.MarshalBinary()
		f.Add(b)
	}
	f.Add([]byte{encVersion, 0, 0, 0, 0x80})
	f.Fuzz(func(t *testing.T, b []byte) {
		var c Command
		n, err := c.Decode(b)
		if err != nil {
			return
		}
		re, err := c.AppendBinary(nil)
		if err != nil {
			t.Fatalf("decoded %+v does not encode: %v", c, err)
		}
		if !bytes.Equal(re, b[:n]) {
			t.Fatalf("re-encoding differs: %x vs %x", re, b[:n])
		}
	})
}
