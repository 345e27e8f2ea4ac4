// Package secp recovers Ethereum signers from secp256k1 signatures. It adds
// Ethereum's conventions (65-byte r||s||v signatures, Keccak-derived 20-byte
// addresses, and the rejection of malleable high-S signatures, which both
// libraries accept) to one of two backends chosen at build time: with cgo
// (the default build) bitcoin-core's libsecp256k1 through go-ethereum's
// crypto/secp256k1 package; with CGO_ENABLED=0 decred's pure-Go secp256k1.
// Backend names the one linked; both accept exactly the same signatures
// (FuzzRecoverBackends).
package secp

import (
	"encoding/hex"
	"errors"

	"pmx/internal/crypto/keccak"
)

// Address is a 20-byte Ethereum account address.
type Address [20]byte

// ErrAddress reports a string that is not 0x followed by 40 hex digits.
var ErrAddress = errors.New("invalid address")

// ParseAddress accepts "0x" + 40 hex digits in any letter case. The EIP-55
// checksum is not enforced: clients send lower case, checksummed and upper
// case alike, and the signature (not the spelling) is what authenticates.
func ParseAddress(s string) (Address, error) {
	var a Address
	if len(s) != 42 || s[0] != '0' || (s[1] != 'x' && s[1] != 'X') {
		return a, ErrAddress
	}
	if _, err := hex.Decode(a[:], []byte(s[2:])); err != nil {
		return Address{}, ErrAddress
	}
	return a, nil
}

// Hex is the lower-case 0x form.
func (a Address) Hex() string {
	var b [42]byte
	b[0], b[1] = '0', 'x'
	hex.Encode(b[2:], a[:])
	return string(b[:])
}

// String is the EIP-55 checksummed form.
func (a Address) String() string { return a.Checksum() }

// Checksum is the EIP-55 mixed-case form: a hex letter is upper case when the
// matching nibble of keccak256(lower-case hex) is 8 or more.
func (a Address) Checksum() string {
	var lower [40]byte
	hex.Encode(lower[:], a[:])
	h := keccak.Sum256(lower[:])
	out := make([]byte, 42)
	out[0], out[1] = '0', 'x'
	for i, c := range lower {
		nib := h[i/2]
		if i%2 == 0 {
			nib >>= 4
		}
		if c >= 'a' && nib&0xf >= 8 {
			c -= 'a' - 'A'
		}
		out[2+i] = c
	}
	return string(out)
}

// IsZero reports the all-zero address.
func (a Address) IsZero() bool { return a == Address{} }
