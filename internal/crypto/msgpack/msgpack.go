// Package msgpack writes the MessagePack subset that perps signing hashes:
// arrays, strings, integers and booleans, each in its smallest encoding, the
// way @msgpack/msgpack and Python's msgpack.packb(use_bin_type=True) write
// them. There are no maps, floats or binary values in any compact form, so
// this package has none. There is no decoder: the server only hashes.
package msgpack

import (
	"errors"
	"fmt"
	"math"
)

// AppendArrayHeader appends the header of an n-element array.
func AppendArrayHeader(b []byte, n int) []byte {
	switch {
	case n < 16:
		return append(b, 0x90|byte(n))
	case n <= math.MaxUint16:
		return append(b, 0xdc, byte(n>>8), byte(n))
	default:
		return append(b, 0xdd, byte(n>>24), byte(n>>16), byte(n>>8), byte(n))
	}
}

// AppendString appends s as a msgpack str (never bin), byte for byte.
func AppendString(b []byte, s string) []byte { return append(appendStrHeader(b, len(s)), s...) }

// appendStrHeader appends the header of a str of n bytes.
func appendStrHeader(b []byte, n int) []byte {
	switch {
	case n < 32:
		return append(b, 0xa0|byte(n))
	case n <= math.MaxUint8:
		return append(b, 0xd9, byte(n))
	case n <= math.MaxUint16:
		return append(b, 0xda, byte(n>>8), byte(n))
	default:
		return append(b, 0xdb, byte(n>>24), byte(n>>16), byte(n>>8), byte(n))
	}
}

// AppendUint appends v in the smallest unsigned form.
func AppendUint(b []byte, v uint64) []byte {
	switch {
	case v < 128:
		return append(b, byte(v))
	case v <= math.MaxUint8:
		return append(b, 0xcc, byte(v))
	case v <= math.MaxUint16:
		return append(b, 0xcd, byte(v>>8), byte(v))
	case v <= math.MaxUint32:
		return append(b, 0xce, byte(v>>24), byte(v>>16), byte(v>>8), byte(v))
	default:
		return append(b, 0xcf, byte(v>>56), byte(v>>48), byte(v>>40), byte(v>>32),
			byte(v>>24), byte(v>>16), byte(v>>8), byte(v))
	}
}

// AppendInt appends v: non-negative values as AppendUint, negative ones in the
// smallest signed form (no compact op carries one today; kept for parity with
// the reference encoders).
func AppendInt(b []byte, v int64) []byte {
	switch {
	case v >= 0:
		return AppendUint(b, uint64(v))
	case v >= -32:
		return append(b, byte(v))
	case v >= math.MinInt8:
		return append(b, 0xd0, byte(v))
	case v >= math.MinInt16:
		return append(b, 0xd1, byte(v>>8), byte(v))
	case v >= math.MinInt32:
		return append(b, 0xd2, byte(v>>24), byte(v>>16), byte(v>>8), byte(v))
	default:
		u := uint64(v)
		return append(b, 0xd3, byte(u>>56), byte(u>>48), byte(u>>40), byte(u>>32),
			byte(u>>24), byte(u>>16), byte(u>>8), byte(u))
	}
}

// AppendBool appends true or false.
func AppendBool(b []byte, v bool) []byte {
	if v {
		return append(b, 0xc3)
	}
	return append(b, 0xc2)
}

// ErrUnsupported reports a value of a type no compact form contains.
var ErrUnsupported = errors.New("msgpack: unsupported value")

// Append encodes a value tree built from []any, string, bool, uint64, uint32,
// uint, int64 and int. A nil element of an array is an absent entry: it is
// dropped, not encoded as nil, so later elements shift left (perps.md §3.2
// step 2). A nil at the top level is an error.
func Append(b []byte, v any) ([]byte, error) {
	switch x := v.(type) {
	case string:
		return AppendString(b, x), nil
	case bool:
		return AppendBool(b, x), nil
	case uint64:
		return AppendUint(b, x), nil
	case uint32:
		return AppendUint(b, uint64(x)), nil
	case uint:
		return AppendUint(b, uint64(x)), nil
	case int64:
		return AppendInt(b, x), nil
	case int:
		return AppendInt(b, int64(x)), nil
	case []any:
		n := 0
		for _, e := range x {
			if e != nil {
				n++
			}
		}
		b = AppendArrayHeader(b, n)
		var err error
		for _, e := range x {
			if e == nil {
				continue
			}
			if b, err = Append(b, e); err != nil {
				return b, err
			}
		}
		return b, nil
	default:
		return b, fmt.Errorf("%w: %T", ErrUnsupported, v)
	}
}

// AppendStringBytes is AppendString for a byte slice (no copy to a string).
func AppendStringBytes(b []byte, s []byte) []byte { return append(appendStrHeader(b, len(s)), s...) }
