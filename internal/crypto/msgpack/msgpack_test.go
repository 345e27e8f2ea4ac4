package msgpack

import (
	"bytes"
	"encoding/hex"
	"errors"
	"fmt"
	"math"
	"reflect"
	"strings"
	"testing"

	"pmx/internal/crypto/keccak"
)

func TestEncodingBoundaries(t *testing.T) {
	// Expected bytes written from the MessagePack spec, not from this code.
	tests := []struct {
		name string
		v    any
		want string
	}{
		{"fixint 0", uint64(0), "00"},
		{"fixint 127", uint64(127), "7f"},
		{"uint8 128", uint64(128), "cc80"},
		{"uint8 255", uint64(255), "ccff"},
		{"uint16 256", uint64(256), "cd0100"},
		{"uint16 65535", uint64(65535), "cdffff"},
		{"uint32 65536", uint64(65536), "ce00010000"},
		{"uint32 max", uint64(math.MaxUint32), "ceffffffff"},
		{"uint64 2^32", uint64(1 << 32), "cf0000000100000000"},
		{"uint64 max", uint64(math.MaxUint64), "cfffffffffffffffff"},
		{"int -1", -1, "ff"},
		{"int -32", -32, "e0"},
		{"int8 -33", -33, "d0df"},
		{"int8 -128", -128, "d080"},
		{"int16 -129", -129, "d1ff7f"},
		{"int32 -32769", -32769, "d2ffff7fff"},
		{"int64 min", int64(math.MinInt64), "d38000000000000000"},
		{"int positive", 5, "05"},
		{"uint32 type", uint32(300), "cd012c"},
		{"uint type", uint(1), "01"},
		{"false", false, "c2"},
		{"true", true, "c3"},
		{"fixstr empty", "", "a0"},
		{"fixstr", "gtc", "a3677463"},
		{"fixstr 31", strings.Repeat("a", 31), "bf" + strings.Repeat("61", 31)},
		{"str8 32", strings.Repeat("a", 32), "d920" + strings.Repeat("61", 32)},
		{"str16 256", strings.Repeat("a", 256), "da0100" + strings.Repeat("61", 256)},
		{"str32 65536", strings.Repeat("a", 65536), "db00010000" + strings.Repeat("61", 65536)},
		{"empty array", []any{}, "90"},
		{"absent dropped", []any{nil, uint64(1), nil}, "9101"},
		{"nested absent", []any{[]any{nil, true}, nil}, "9191c3"},
		{"fixarray 15", make15(), "9f" + strings.Repeat("01", 15)},
		{"array16 16", makeN(16), "dc0010" + strings.Repeat("01", 16)},
		{"array32 65536", makeN(65536), "dd00010000" + strings.Repeat("01", 65536)},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := Append(nil, tc.v)
			if err != nil {
				t.Fatal(err)
			}
			if hex.EncodeToString(got) != tc.want {
				g := hex.EncodeToString(got)
				if len(g) > 40 {
					g = g[:40] + "…"
				}
				t.Fatalf("got %s", g)
			}
		})
	}
}

func make15() []any { return makeN(15) }

func makeN(n int) []any {
	out := make([]any, n)
	for i := range out {
		out[i] = uint64(1)
	}
	return out
}

func TestUnsupported(t *testing.T) {
	for _, v := range []any{nil, 1.5, map[string]any{}, []byte("x"), []any{1.5}} {
		if _, err := Append(nil, v); !errors.Is(err, ErrUnsupported) {
			t.Fatalf("%#v: err=%v", v, err)
		}
	}
}

// golden holds the compact forms of perps.md §3.6 (vectors 1-10) and the three
// ts-sdk data vectors, with the keccak256 of their encoding.
var golden = []struct {
	name string
	op   []any
	data string
}{
	{"1", []any{"createOrders", []any{[]any{u(1), true, "0.5", "10", "gtc", false}}}, "8004f264b573f0d5edd3377ef127f251a2b11e0b9463c5fb5f1be3b42c94336a"},
	{"2 absent price", []any{"createOrders", []any{[]any{u(42), false, nil, "2.5", "ioc", false, nil, "aabbccddeeff00112233445566778899"}}}, "3b358621af8f4d297ea0c78b9d40aa9d33b84de0f9a619726f8f9e2f305c0157"},
	{"3 bracket", []any{"createOrders", []any{
		[]any{u(7), true, "100", "3", "gtc", false},
		[]any{u(7), false, nil, "3", nil, false, true, nil, []any{true, "200", "tp"}},
		[]any{u(7), false, "50", "3", nil, false, true, nil, []any{nil, "49", "sl"}},
	}, "order"}, "34b31ff82aa6d39bd6ee54a7781287d6e6dffcc0cc7dcc981f70e381c7d8a641"},
	{"4", []any{"cancelOrders", []any{u(11), u(22), u(33)}}, "13f4659952efbcd144324c0a1c50cb75069635b2bbf28d3cc1e51b6e176a7617"},
	{"5", []any{"cancelOrdersCOID", []any{"aabbccddeeff00112233445566778899"}}, "df8f1749d1b75392360c1117dcf2e0f251b0197b4db21c37a4e7d2451bc7cc95"},
	{"6", []any{"updateLeverage", []any{u(3), u(20), true}}, "1daa002ce2f4e42ab0ef2d3c489b2386cccac2cbb861bdd7695761d4d93dd410"},
	{"7 uint64", []any{"autoCancel", []any{u(1767000045000)}}, "8d16f1dbf6be71cea6ad70c5b09f028dd1b451cebb2c7dd20c82dbf1022440ba"},
	{"8", []any{"autoCancel", []any{u(0)}}, "569d0f5365d9bb75e7f2218717986828ea553b937a4c901528c70fa173fa539e"},
	{"9", []any{"updateMargin", []any{u(3), "-25.000000000000000001"}}, "1bceee4cd50ae288f5ae7e993deeea51fe9dd41b5eff27840455ed72e72d4f4c"},
	{"10", []any{"deleteProxy", []any{"0x9965507D1a55bcC2695C58ba16FB37d819B0A4dc"}}, "7274223decc60adbbe3ba91ceade2e6cd7901ab7ba506d07fb2d0dbef83e30d4"},
	{"ts 100.50", []any{"createOrders", []any{[]any{u(1), true, "100.50", "10", "gtc", false}}}, "817207b7b8b31044a8f27e43c16e24d9fd5e11d3f106feb962f104f3ef28d52a"},
	{"ts margin", []any{"updateMargin", []any{u(7), "-1234567890.123456789012345678"}}, "f61d7d83b4367ce136bf66cfee6a5d41303a8b2d8724f5458f9812c46f5e55b3"},
	{"ts leverages", []any{"updateLeverages", []any{[]any{u(1), u(5), false}, []any{u(2), u(10), true}}}, "dcdd40c029abb105bb4911882321a203c294e9c4da73a32c5957afdbfb34cfdc"},
}

func u(v uint64) uint64 { return v }

func TestGoldenData(t *testing.T) {
	for _, g := range golden {
		t.Run(g.name, func(t *testing.T) {
			b, err := Append(nil, g.op)
			if err != nil {
				t.Fatal(err)
			}
			h := keccak.Sum256(b)
			if hex.EncodeToString(h[:]) != g.data {
				t.Fatalf("data %x want %s (msgpack %x)", h, g.data, b)
			}
		})
	}
}

// decode is a test-only MessagePack reader for the subset above, written
// independently of the encoder so the fuzz target can check round trips.
func decode(b []byte) (any, []byte, error) {
	if len(b) == 0 {
		return nil, nil, errors.New("short")
	}
	c := b[0]
	b = b[1:]
	be := func(n int) (uint64, error) {
		if len(b) < n {
			return 0, errors.New("short")
		}
		var v uint64
		for i := range n {
			v = v<<8 | uint64(b[i])
		}
		b = b[n:]
		return v, nil
	}
	arr := func(n uint64) (any, []byte, error) {
		out := []any{}
		for range n {
			var e any
			var err error
			if e, b, err = decode(b); err != nil {
				return nil, nil, err
			}
			out = append(out, e)
		}
		return out, b, nil
	}
	str := func(n uint64) (any, []byte, error) {
		if uint64(len(b)) < n {
			return nil, nil, errors.New("short")
		}
		return string(b[:n]), b[n:], nil
	}
	switch {
	case c < 0x80:
		return uint64(c), b, nil
	case c >= 0xe0:
		return int64(int8(c)), b, nil
	case c&0xf0 == 0x90:
		return arr(uint64(c & 0x0f))
	case c&0xe0 == 0xa0:
		return str(uint64(c & 0x1f))
	}
	widths := map[byte]int{0xcc: 1, 0xcd: 2, 0xce: 4, 0xcf: 8, 0xd0: 1, 0xd1: 2, 0xd2: 4, 0xd3: 8, 0xd9: 1, 0xda: 2, 0xdb: 4, 0xdc: 2, 0xdd: 4}
	switch c {
	case 0xc2:
		return false, b, nil
	case 0xc3:
		return true, b, nil
	}
	w, ok := widths[c]
	if !ok {
		return nil, nil, fmt.Errorf("tag %x", c)
	}
	n, err := be(w)
	if err != nil {
		return nil, nil, err
	}
	switch c {
	case 0xcc, 0xcd, 0xce, 0xcf:
		return n, b, nil
	case 0xd0:
		return int64(int8(n)), b, nil
	case 0xd1:
		return int64(int16(n)), b, nil
	case 0xd2:
		return int64(int32(n)), b, nil
	case 0xd3:
		return int64(n), b, nil
	case 0xd9, 0xda, 0xdb:
		return str(n)
	default:
		return arr(n)
	}
}

// tree builds a value tree from fuzz bytes; want is the same tree with absent
// entries removed and integers normalised as the decoder reports them.
func tree(data []byte, depth int) (v, want any, rest []byte) {
	if len(data) == 0 {
		return "", "", nil
	}
	c, data := data[0], data[1:]
	take := func(n int) []byte {
		n = min(n, len(data))
		out := data[:n]
		data = data[n:]
		return out
	}
	switch c % 6 {
	case 0:
		s := string(take(int(c / 6)))
		return s, s, data
	case 1:
		var x uint64
		for _, b := range take(int(c/6) % 9) {
			x = x<<8 | uint64(b)
		}
		return x, x, data
	case 2:
		var x int64 = -1
		for _, b := range take(int(c/6) % 9) {
			x = x<<8 | int64(b)
		}
		if x >= 0 {
			return x, uint64(x), data
		}
		return x, x, data
	case 3:
		return c&8 != 0, c&8 != 0, data
	case 4:
		if depth > 4 {
			return nil, nil, data
		}
		n := int(c / 6 % 20)
		arr, w := []any{}, []any{}
		for range n {
			var e, we any
			e, we, data = tree(data, depth+1)
			arr = append(arr, e)
			if e != nil {
				w = append(w, we)
			}
		}
		return arr, w, data
	default:
		return nil, nil, data
	}
}

func FuzzAppend(f *testing.F) {
	f.Add([]byte{4 + 6*3, 0 + 6*2, 'a', 'b', 1 + 6*8, 1, 2, 3, 4, 5, 6, 7, 8, 5})
	f.Add([]byte{4 + 6*2, 2 + 6*1, 0x80, 3})
	f.Add([]byte{0 + 6*40, 'x'})
	f.Fuzz(func(t *testing.T, data []byte) {
		v, want, _ := tree(data, 0)
		if v == nil {
			return
		}
		b, err := Append(nil, v)
		if err != nil {
			t.Fatal(err)
		}
		got, rest, err := decode(b)
		if err != nil || len(rest) != 0 {
			t.Fatalf("decode %x: %v rest %d", b, err, len(rest))
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("round trip: got %#v want %#v", got, want)
		}
		// Appending to a non-empty buffer keeps the prefix.
		b2, _ := Append([]byte{0xaa}, v)
		if !bytes.Equal(b2[1:], b) {
			t.Fatal("prefix changed the encoding")
		}
	})
}

func BenchmarkAppendOrder(b *testing.B) {
	op := golden[2].op
	buf := make([]byte, 0, 256)
	b.ReportAllocs()
	for b.Loop() {
		buf, _ = Append(buf[:0], op)
	}
}

// TestAppendStringBytesMatchesString: the []byte form writes the same header
// and bytes as AppendString at every header size.
func TestAppendStringBytesMatchesString(t *testing.T) {
	for _, n := range []int{0, 31, 32, 255, 256, 65535, 65536} {
		s := strings.Repeat("a", n)
		if got, want := AppendStringBytes([]byte{1}, []byte(s)), AppendString([]byte{1}, s); !bytes.Equal(got, want) {
			t.Errorf("len %d: % x…, want % x…", n, got[:min(len(got), 6)], want[:min(len(want), 6)])
		}
	}
}
