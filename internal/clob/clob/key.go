// Package clob is the order-book exchange's domain: API-key records and
// their store interface, the coded error catalogue, markets, signed orders
// (V1 and V2) and their EIP-712 hashes. It imports no HTTP and no storage.
package clob

import (
	"context"
	"errors"
	"time"

	"pmx/internal/crypto/eip712"
	"pmx/internal/crypto/secp"
)

// Key is the stored record of one API key. The secret and passphrase are
// not stored: clobauth.Deriver recomputes them from (Address, Nonce,
// Generation) with the server master key (docs/signing.md "CLOB").
type Key struct {
	APIKey     string
	Address    secp.Address
	Nonce      eip712.Uint256
	Generation uint32 // 0 for the first key of (Address, Nonce); +1 per re-create after a delete
	Revoked    bool
	CreatedAt  time.Time
}

// ErrKeyExists is returned by Store.Insert when (address, nonce) already has
// an active key, or when the (address, nonce, generation) or the API key was
// already used (a concurrent create won).
var ErrKeyExists = errors.New("clob: api key exists")

// Store persists API-key records. Implementations must be safe for
// concurrent use and enforce ErrKeyExists atomically (e.g. with unique
// constraints), because two creates may race.
type Store interface {
	// Insert records k as active.
	Insert(ctx context.Context, k Key) error
	// Latest returns the key of (addr, nonce) with the highest generation,
	// active or revoked; ok is false when the pair never had a key.
	Latest(ctx context.Context, addr secp.Address, nonce eip712.Uint256) (k Key, ok bool, err error)
	// Get returns the record of apiKey, active or revoked.
	Get(ctx context.Context, apiKey string) (k Key, ok bool, err error)
	// Active lists the active keys of addr, oldest first.
	Active(ctx context.Context, addr secp.Address) ([]Key, error)
	// Revoke marks apiKey revoked; revoked is false if it was not active.
	Revoke(ctx context.Context, apiKey string, at time.Time) (revoked bool, err error)
}
