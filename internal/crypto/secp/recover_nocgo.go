//go:build !cgo

package secp

// Backend names the recovery implementation this build links.
const Backend = "decred (pure Go)"

// recoverPub is decred's pure-Go recovery: CGO_ENABLED=0 builds have no C
// compiler to build libsecp256k1 with.
func recoverPub(digest *[32]byte, sig *Signature) (pub [65]byte, ok bool) {
	return recoverGo(digest, sig)
}
