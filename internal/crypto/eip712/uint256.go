package eip712

import "errors"

// Uint256 is a big-endian 256-bit unsigned integer, already an ABI word.
type Uint256 [32]byte

// ErrUint256 reports a string that is not a canonical decimal uint256.
var ErrUint256 = errors.New("invalid uint256 decimal")

// ParseUint256 reads a decimal string of ASCII digits (no sign, no spaces,
// no leading zeros except "0" itself) that fits in 256 bits. Rejecting
// non-canonical spellings keeps one value to one string, so a signed amount
// string and the uint256 it stands for cannot disagree.
func ParseUint256(s string) (Uint256, error) {
	var v Uint256
	if len(s) == 0 || len(s) > 78 || (len(s) > 1 && s[0] == '0') {
		return v, ErrUint256
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < '0' || c > '9' {
			return Uint256{}, ErrUint256
		}
		// v = v*10 + digit, byte-wise from the least significant end.
		carry := uint16(c - '0')
		for j := 31; j >= 0; j-- {
			x := uint16(v[j])*10 + carry
			v[j] = byte(x)
			carry = x >> 8
		}
		if carry != 0 {
			return Uint256{}, ErrUint256
		}
	}
	return v, nil
}

// Uint256From64 widens v.
func Uint256From64(v uint64) Uint256 { return Uint256(Uint64(v)) }
