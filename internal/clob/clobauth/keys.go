package clobauth

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"encoding/hex"
	"errors"

	"pmx/internal/crypto/eip712"
	"pmx/internal/crypto/secp"
)

// Creds are CLOB API credentials as the API returns them.
type Creds struct {
	APIKey     string `json:"apiKey"`
	Secret     string `json:"secret"`
	Passphrase string `json:"passphrase"`
}

// Deriver computes API credentials from a server master key:
//
//	material(label) = HMAC-SHA256(master, "pmx/clob-api-key/v1" ‖ label ‖ address ‖ nonce ‖ generation)
//
// so create and derive for one (address, nonce, generation) always agree,
// and no secret or passphrase is ever stored: the store keeps only
// apiKey → (address, nonce, generation, revoked), and L2 verification
// recomputes the raw secret it needs. The generation is bumped when a key is
// deleted, so re-creating after a delete yields fresh credentials instead of
// resurrecting the revoked ones.
type Deriver struct {
	master []byte
}

// ErrMasterKey reports a master key shorter than 32 bytes.
var ErrMasterKey = errors.New("clob master key must be at least 32 bytes")

// NewDeriver keeps a copy of master (at least 32 bytes of secret randomness).
func NewDeriver(master []byte) (*Deriver, error) {
	if len(master) < 32 {
		return nil, ErrMasterKey
	}
	return &Deriver{master: append([]byte(nil), master...)}, nil
}

// NewMasterKey returns 32 fresh random bytes for NewDeriver.
func NewMasterKey() []byte {
	b := make([]byte, 32)
	rand.Read(b) // never fails (crypto/rand contract since Go 1.24)
	return b
}

func (d *Deriver) material(label string, addr secp.Address, nonce eip712.Uint256, gen uint32) []byte {
	m := hmac.New(sha256.New, d.master)
	m.Write([]byte("pmx/clob-api-key/v1"))
	m.Write([]byte{byte(len(label))})
	m.Write([]byte(label))
	m.Write(addr[:])
	m.Write(nonce[:])
	m.Write(binary.BigEndian.AppendUint32(nil, gen))
	return m.Sum(nil)
}

// Derive returns the credentials of (addr, nonce, gen): a UUIDv4-shaped key,
// a 32-byte secret in URL-safe base64 with padding (the shape production
// issues and clients decode), and a 64-hex-digit passphrase.
func (d *Deriver) Derive(addr secp.Address, nonce eip712.Uint256, gen uint32) Creds {
	k := d.material("key", addr, nonce, gen)[:16]
	k[6] = k[6]&0x0f | 0x40 // version 4
	k[8] = k[8]&0x3f | 0x80 // RFC 4122 variant
	h := hex.EncodeToString(k)
	return Creds{
		APIKey:     h[:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:],
		Secret:     base64.URLEncoding.EncodeToString(d.material("secret", addr, nonce, gen)),
		Passphrase: hex.EncodeToString(d.material("passphrase", addr, nonce, gen)),
	}
}
