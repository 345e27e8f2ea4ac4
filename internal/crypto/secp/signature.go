package secp

import (
	"encoding/hex"
	"errors"

	"github.com/decred/dcrd/dcrec/secp256k1/v4"
	"github.com/decred/dcrd/dcrec/secp256k1/v4/ecdsa"

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

// Recover returns the address whose key produced sig over digest. It rejects
// high-S signatures (see ErrHighS) before any curve arithmetic.
func Recover(digest [32]byte, sig Signature) (Address, error) {
	pub, err := RecoverPub(digest, sig)
	if err != nil {
		return Address{}, err
	}
	return PubkeyAddress(pub), nil
}

// PublicKey is a signer's public key (decred's type; callers need not
// import it).
type PublicKey = secp256k1.PublicKey

// RecoverPub is Recover returning the public key itself (for NewKey).
func RecoverPub(digest [32]byte, sig Signature) (*secp256k1.PublicKey, error) {
	var s secp256k1.ModNScalar
	if overflow := s.SetByteSlice(sig[32:64]); overflow {
		return nil, ErrRecover
	}
	if s.IsOverHalfOrder() {
		return nil, ErrHighS
	}
	if sig[64] > 1 {
		return nil, ErrSignatureFormat
	}
	// decred's compact form is <27+recid> || r || s (uncompressed key flag off).
	var compact [65]byte
	compact[0] = 27 + sig[64]
	copy(compact[1:], sig[:64])
	pub, _, err := ecdsa.RecoverCompact(compact[:], digest[:])
	if err != nil {
		return nil, ErrRecover
	}
	return pub, nil
}

// PubkeyAddress is the last 20 bytes of keccak256 of the uncompressed public
// key without its 0x04 prefix.
func PubkeyAddress(pub *secp256k1.PublicKey) Address {
	var a Address
	raw := pub.SerializeUncompressed()
	h := keccak.Sum256(raw[1:])
	copy(a[:], h[12:])
	return a
}
