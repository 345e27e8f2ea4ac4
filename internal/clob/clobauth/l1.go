// Package clobauth authenticates CLOB requests (clob-and-catalog.md §2):
// L1, a ClobAuth EIP-712 signature by the wallet, used to create and derive
// API keys; L2, an HMAC-SHA256 over each request with the API secret. It also
// derives API credentials deterministically from (address, nonce). It knows
// no routes; callers read headers and map errors to 401/400.
package clobauth

import (
	"errors"
	"net/http"
	"strconv"
	"time"

	"pmx/internal/crypto/eip712"
	"pmx/internal/crypto/secp"
)

// Header names (net/http canonicalises them; Get is case-insensitive).
const (
	HeaderAddress    = "POLY_ADDRESS"
	HeaderSignature  = "POLY_SIGNATURE"
	HeaderTimestamp  = "POLY_TIMESTAMP"
	HeaderNonce      = "POLY_NONCE"
	HeaderAPIKey     = "POLY_API_KEY"
	HeaderPassphrase = "POLY_PASSPHRASE"
)

// AttestMessage is the fixed ClobAuth message.
const AttestMessage = "This message attests that I control the given wallet"

// ErrL1 is the production text for any L1 failure (401).
var ErrL1 = errors.New("Invalid L1 Request headers")

// L1Config configures L1 verification. Zero fields take defaults.
type L1Config struct {
	DomainName string        // default "ClobAuthDomain"
	ChainID    uint64        // default 137
	Window     time.Duration // max |now - POLY_TIMESTAMP|; default 5 min
}

// L1 verifies ClobAuth signatures. Safe for concurrent use.
type L1 struct {
	sep    [32]byte
	window int64 // seconds
}

// NewL1 precomputes the domain separator.
func NewL1(cfg L1Config) *L1 {
	if cfg.DomainName == "" {
		cfg.DomainName = "ClobAuthDomain"
	}
	if cfg.ChainID == 0 {
		cfg.ChainID = 137
	}
	if cfg.Window <= 0 {
		cfg.Window = 5 * time.Minute
	}
	return &L1{
		sep:    eip712.Domain{Name: cfg.DomainName, Version: "1", ChainID: cfg.ChainID}.Separator(),
		window: int64(cfg.Window / time.Second),
	}
}

// L1Headers are the raw header values.
type L1Headers struct {
	Address, Signature, Timestamp, Nonce string
}

// L1HeadersFrom reads the L1 headers of a request.
func L1HeadersFrom(h http.Header) L1Headers {
	return L1Headers{
		Address:   h.Get(HeaderAddress),
		Signature: h.Get(HeaderSignature),
		Timestamp: h.Get(HeaderTimestamp),
		Nonce:     h.Get(HeaderNonce),
	}
}

// Verify checks an L1 header set and returns the wallet and the nonce. The
// signed timestamp is the header string itself (hashed as sent); it must be
// decimal Unix seconds within the window. An absent nonce is "0", as the
// official client defaults it. Every failure is ErrL1.
func (l *L1) Verify(h L1Headers, now time.Time) (secp.Address, eip712.Uint256, error) {
	addr, err := secp.ParseAddress(h.Address)
	if err != nil {
		return secp.Address{}, eip712.Uint256{}, ErrL1
	}
	ts, err := strconv.ParseInt(h.Timestamp, 10, 64)
	if err != nil || ts < 0 {
		return secp.Address{}, eip712.Uint256{}, ErrL1
	}
	if d := now.Unix() - ts; d > l.window || -d > l.window {
		return secp.Address{}, eip712.Uint256{}, ErrL1
	}
	nonceStr := h.Nonce
	if nonceStr == "" {
		nonceStr = "0"
	}
	nonce, err := eip712.ParseUint256(nonceStr)
	if err != nil {
		return secp.Address{}, eip712.Uint256{}, ErrL1
	}
	sig, err := secp.ParseSignature(h.Signature)
	if err != nil {
		return secp.Address{}, eip712.Uint256{}, ErrL1
	}
	digest := eip712.Digest(l.sep, eip712.ClobAuthHash(addr, h.Timestamp, nonce, AttestMessage))
	signer, err := secp.Recover(digest, sig)
	if err != nil || signer != addr {
		return secp.Address{}, eip712.Uint256{}, ErrL1
	}
	return addr, nonce, nil
}
