//go:build cgo

package secp

import (
	"sync"

	gethsecp "github.com/ethereum/go-ethereum/crypto/secp256k1"
)

// Backend names the recovery implementation this build links.
const Backend = "libsecp256k1"

// cgoArgs holds the digest and signature handed to C. Memory passed to a cgo
// call escapes, so passing the caller's arrays would allocate them on the
// heap per call; pooled copies do not.
type cgoArgs struct {
	digest [32]byte
	sig    [65]byte
}

var argPool = sync.Pool{New: func() any { return new(cgoArgs) }}

// recoverPub is libsecp256k1 (bitcoin-core's C library, MIT, compiled from
// the sources go-ethereum ships in its crypto/secp256k1 package, BSD-3): the
// recovery Ethereum clients run, about 3.5× faster than decred here
// (docs/perf/secp.md). Its one allocation is go-ethereum's 65-byte result.
func recoverPub(digest *[32]byte, sig *Signature) (pub [65]byte, ok bool) {
	a := argPool.Get().(*cgoArgs)
	a.digest, a.sig = *digest, *sig
	raw, err := gethsecp.RecoverPubkey(a.digest[:], a.sig[:])
	argPool.Put(a)
	if err != nil || len(raw) != 65 {
		return pub, false
	}
	return [65]byte(raw), true
}
