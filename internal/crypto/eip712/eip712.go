// Package eip712 hashes the few fixed EIP-712 typed-data structures the
// exchanges verify. It is hand-written rather than generic: each type hash is
// precomputed and each struct is encoded by a dedicated function, so a digest
// costs a handful of Keccak calls and no reflection.
package eip712

import (
	"encoding/binary"

	"pmx/internal/crypto/keccak"
)

// Type strings. Their keccak256 is the type hash; field order is the encoding
// order and must never change.
const (
	DomainType             = "EIP712Domain(string name,string version,uint256 chainId)"
	DomainWithContractType = "EIP712Domain(string name,string version,uint256 chainId,address verifyingContract)"
	OpType                 = "Op(bytes32 data,uint64 salt,uint64 ts)"
	CreateProxyType        = "CreateProxy(address addr,uint64 exp,uint64 salt,uint64 ts)"
	WithdrawType           = "Withdraw(address account,address token,uint256 amount,uint256 fee,address to,uint64 salt,uint64 ts)"
	ClobAuthType           = "ClobAuth(address address,string timestamp,uint256 nonce,string message)"
)

// Precomputed type hashes.
var (
	DomainTypeHash             = keccak.String(DomainType)
	DomainWithContractTypeHash = keccak.String(DomainWithContractType)
	OpTypeHash                 = keccak.String(OpType)
	CreateProxyTypeHash        = keccak.String(CreateProxyType)
	WithdrawTypeHash           = keccak.String(WithdrawType)
	ClobAuthTypeHash           = keccak.String(ClobAuthType)
)

// Domain is an EIP712Domain with name, version, chainId and an optional
// verifyingContract (no salt: none of our domains has one).
type Domain struct {
	Name              string
	Version           string
	ChainID           uint64
	VerifyingContract *[20]byte
}

// Separator is hashStruct(domain). Compute it once per configuration.
func (d Domain) Separator() [32]byte {
	name, version := keccak.String(d.Name), keccak.String(d.Version)
	chain := Uint64(d.ChainID)
	if d.VerifyingContract == nil {
		return keccak.Sum256(DomainTypeHash[:], name[:], version[:], chain[:])
	}
	c := Address(*d.VerifyingContract)
	return keccak.Sum256(DomainWithContractTypeHash[:], name[:], version[:], chain[:], c[:])
}

// Digest is keccak256(0x19 0x01 ‖ domainSeparator ‖ structHash), the value
// that is actually signed.
func Digest(separator, structHash [32]byte) [32]byte {
	return keccak.Sum256([]byte{0x19, 0x01}, separator[:], structHash[:])
}

// Word is one 32-byte ABI-encoded value.
type Word = [32]byte

// Uint64 encodes v as a big-endian uint256 word.
func Uint64(v uint64) Word {
	var w Word
	binary.BigEndian.PutUint64(w[24:], v)
	return w
}

// Address encodes a 20-byte address left-padded to a word.
func Address(a [20]byte) Word {
	var w Word
	copy(w[12:], a[:])
	return w
}

// OpHash is hashStruct(Op{data, salt, ts}).
func OpHash(data [32]byte, salt, ts uint64) [32]byte {
	s, t := Uint64(salt), Uint64(ts)
	return keccak.Sum256(OpTypeHash[:], data[:], s[:], t[:])
}

// CreateProxyHash is hashStruct(CreateProxy{addr, exp, salt, ts}).
func CreateProxyHash(addr [20]byte, exp, salt, ts uint64) [32]byte {
	a, e, s, t := Address(addr), Uint64(exp), Uint64(salt), Uint64(ts)
	return keccak.Sum256(CreateProxyTypeHash[:], a[:], e[:], s[:], t[:])
}

// WithdrawHash is hashStruct(Withdraw{account, token, amount, fee, to, salt, ts}).
func WithdrawHash(account, token [20]byte, amount, fee Uint256, to [20]byte, salt, ts uint64) [32]byte {
	ac, tk, dst, s, t := Address(account), Address(token), Address(to), Uint64(salt), Uint64(ts)
	return keccak.Sum256(WithdrawTypeHash[:], ac[:], tk[:], amount[:], fee[:], dst[:], s[:], t[:])
}

// ClobAuthHash is hashStruct(ClobAuth{address, timestamp, nonce, message});
// the two strings are hashed byte for byte as given.
func ClobAuthHash(addr [20]byte, timestamp string, nonce Uint256, message string) [32]byte {
	a, ts, msg := Address(addr), keccak.String(timestamp), keccak.String(message)
	return keccak.Sum256(ClobAuthTypeHash[:], a[:], ts[:], nonce[:], msg[:])
}
