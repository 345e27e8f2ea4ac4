package secp

import (
	"encoding/hex"
	"errors"

	"github.com/decred/dcrd/dcrec/secp256k1/v4"

	"pmx/internal/crypto/keccak"
)

// Signature is r(32) || s(32) || recovery id (0 or 1). ParseSignature
// normalises Ethereum's v = 27/28 to 0/1, so two spellings of one signature
// are one value (replay keys rely on this).
type Signature [65]byte

var (
	// ErrSignatureFormat reports bad hex, a wrong length or a bad v byte.
	ErrSignatureFormat = errors.New("malformed signature")
	// ErrHighS reports a malleable signature: s above half the group order.
	// For every valid (r, s, v) the twin (r, n-s, v^1) also verifies; only the
	// low-S twin is accepted (EIP-2, as Ethereum transactions require), so one
	// signed request has exactly one accepted encoding.
	ErrHighS = errors.New("signature s value too high")
	// ErrRecover reports a well-formed signature that matches no public key.
	ErrRecover = errors.New("signature does not recover")
)

// ParseSignature reads 65 bytes of hex, with or without "0x", any case.
// v may be 27/28 (what wallets emit) or 0/1 (raw recovery id).
func ParseSignature(s string) (Signature, error) {
	var sig Signature
	if len(s) >= 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X') {
		s = s[2:]
	}
	if len(s) != 130 {
		return sig, ErrSignatureFormat
	}
	if _, err := hex.Decode(sig[:], []byte(s)); err != nil {
		return Signature{}, ErrSignatureFormat
	}
	switch sig[64] {
	case 0, 1:
	case 27, 28:
		sig[64] -= 27
	default:
		return Signature{}, ErrSignatureFormat
	}
	return sig, nil
}

// Hex is the 0x form with v = 27/28, as wallets emit it.
func (sig Signature) Hex() string {
	b := sig
	b[64] += 27
	return "0x" + hex.EncodeToString(b[:])
}

// Recover returns the address whose key produced sig over digest. The
// checks that decide which signatures are acceptable are all here, before
// the backend (libsecp256k1 with cgo, decred without) is called, so both
// builds accept exactly the same signatures: r and s in [1, n-1], s low
// (see ErrHighS), v 0 or 1.
func Recover(digest [32]byte, sig Signature) (Address, error) {
	if err := check(&sig); err != nil {
		return Address{}, err
	}
	pub, ok := recoverPub(&digest, &sig)
	if !ok {
		return Address{}, ErrRecover
	}
	return rawAddress(pub), nil
}

// check applies Recover's acceptance rules without any curve arithmetic.
func check(sig *Signature) error {
	var r, s secp256k1.ModNScalar
	if overflow := s.SetByteSlice(sig[32:64]); overflow || s.IsZero() {
		return ErrRecover
	}
	if s.IsOverHalfOrder() {
		return ErrHighS
	}
	if sig[64] > 1 {
		return ErrSignatureFormat
	}
	if overflow := r.SetByteSlice(sig[:32]); overflow || r.IsZero() {
		return ErrRecover
	}
	return nil
}

// rawAddress is the last 20 bytes of keccak256 of an uncompressed public key
// without its 0x04 prefix.
func rawAddress(pub [65]byte) Address {
	h := keccak.Sum256(pub[1:])
	return Address(h[12:])
}
