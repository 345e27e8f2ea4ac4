package perpsauth

import (
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
)

// NewProxySecret returns a fresh proxy secret (240 random bits, 40 base64
// characters, the shape production returns) and the hash to store. The
// secret itself is shown once and never stored: it is high-entropy, so a
// plain SHA-256 is enough (no password stretching needed).
func NewProxySecret() (secret string, hash [32]byte) {
	var b [30]byte
	rand.Read(b[:]) // never fails (crypto/rand contract since Go 1.24)
	secret = base64.StdEncoding.EncodeToString(b[:])
	return secret, HashSecret(secret)
}

// HashSecret is the stored form of a proxy secret.
func HashSecret(secret string) [32]byte { return sha256.Sum256([]byte(secret)) }

// SecretMatches compares a presented secret with a stored hash in constant
// time.
func SecretMatches(stored [32]byte, presented string) bool {
	h := HashSecret(presented)
	return subtle.ConstantTimeCompare(stored[:], h[:]) == 1
}
