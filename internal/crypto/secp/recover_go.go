package secp

import (
	"github.com/decred/dcrd/dcrec/secp256k1/v4"
	"github.com/decred/dcrd/dcrec/secp256k1/v4/ecdsa"
)

// recoverGo is the pure-Go backend (decred): the uncompressed public key
// (0x04 || X || Y) that produced sig over digest. sig has passed Recover's
// checks (v is 0 or 1, s is low). Compiled into every build: it is the
// CGO_ENABLED=0 backend and, with cgo, the reference the differential tests
// and benchmarks compare libsecp256k1 against.
func recoverGo(digest *[32]byte, sig *Signature) (pub [65]byte, ok bool) {
	// decred's compact form is <27+recid> || r || s (uncompressed key flag off).
	var compact [65]byte
	compact[0] = 27 + sig[64]
	copy(compact[1:], sig[:64])
	k, _, err := ecdsa.RecoverCompact(compact[:], digest[:])
	if err != nil {
		return pub, false
	}
	return [65]byte(k.SerializeUncompressed()), true
}

// PubkeyAddress is the address of a decred public key (for tests and
// signers that hold a private key).
func PubkeyAddress(pub *secp256k1.PublicKey) Address {
	return rawAddress([65]byte(pub.SerializeUncompressed()))
}
