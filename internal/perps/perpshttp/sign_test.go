package perpshttp

// Requests are signed with testsigner, which shares no hashing code with the
// verifier, so a hashing bug on the server cannot cancel out in these tests.

import (
	"encoding/hex"
	"testing"

	"github.com/decred/dcrd/dcrec/secp256k1/v4"

	"pmx/internal/perps/perpsauth/testsigner"
)

var (
	tOpDigest          = testsigner.OpDigest
	tCreateProxyDigest = testsigner.CreateProxyDigest
)

type tKey struct {
	priv *secp256k1.PrivateKey
	addr []byte
	hex  string
}

func newKey(t testing.TB, seed byte) tKey {
	var b [32]byte
	b[31], b[0] = seed, 1
	k := secp256k1.PrivKeyFromBytes(b[:])
	a := testsigner.Address(k)
	return tKey{priv: k, addr: a, hex: "0x" + hex.EncodeToString(a)}
}

func (k tKey) sign(d [32]byte) string { return testsigner.Sign(k.priv, d) }
