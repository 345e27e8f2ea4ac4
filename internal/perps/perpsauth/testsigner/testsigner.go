// Package testsigner signs perps requests for tests, independently of the
// verifier: its MessagePack writer and EIP-712 digests share no code with
// internal/crypto/msgpack, internal/crypto/eip712 or internal/perps/perpsauth (only the Keccak
// primitive and decred's signing), so a hashing bug on the server cannot
// cancel out in a test. It is imported by tests only.
package testsigner

import (
	"encoding/binary"
	"encoding/hex"
	"fmt"

	"github.com/decred/dcrd/dcrec/secp256k1/v4"
	"github.com/decred/dcrd/dcrec/secp256k1/v4/ecdsa"
	"golang.org/x/crypto/sha3"
)

// Keccak is legacy Keccak-256 over the concatenated parts.
func Keccak(parts ...[]byte) []byte {
	h := sha3.NewLegacyKeccak256()
	for _, p := range parts {
		h.Write(p)
	}
	return h.Sum(nil)
}

// Pack writes strings, bools, non-negative ints and arrays as MessagePack
// (no absent entries: test trees list only present ones, as perps.md prints
// them).
func Pack(v any) []byte {
	switch x := v.(type) {
	case string:
		switch {
		case len(x) < 32:
			return append([]byte{0xa0 + byte(len(x))}, x...)
		case len(x) < 256:
			return append([]byte{0xd9, byte(len(x))}, x...)
		}
		panic("testsigner: long string")
	case bool:
		if x {
			return []byte{0xc3}
		}
		return []byte{0xc2}
	case int:
		n := uint64(x)
		switch {
		case n < 0x80:
			return []byte{byte(n)}
		case n < 0x100:
			return []byte{0xcc, byte(n)}
		case n < 0x10000:
			return []byte{0xcd, byte(n >> 8), byte(n)}
		case n < 0x100000000:
			return binary.BigEndian.AppendUint32([]byte{0xce}, uint32(n))
		default:
			return binary.BigEndian.AppendUint64([]byte{0xcf}, n)
		}
	case []any:
		var out []byte
		if len(x) >= 16 {
			out = []byte{0xdc, byte(len(x) >> 8), byte(len(x))}
		} else {
			out = []byte{0x90 + byte(len(x))}
		}
		for _, e := range x {
			out = append(out, Pack(e)...)
		}
		return out
	}
	panic(fmt.Sprintf("testsigner: cannot pack %T", v))
}

// Word is v as a 32-byte big-endian ABI word.
func Word(v uint64) []byte {
	var w [32]byte
	binary.BigEndian.PutUint64(w[24:], v)
	return w[:]
}

// AddrWord is a 20-byte address left-padded to a word.
func AddrWord(a []byte) []byte { return append(make([]byte, 12), a...) }

// Domain is the EIP-712 domain separator for (name, version "1", chainId).
func Domain(name string, chain uint64) []byte {
	return Keccak(Keccak([]byte("EIP712Domain(string name,string version,uint256 chainId)")),
		Keccak([]byte(name)), Keccak([]byte("1")), Word(chain))
}

// Digest is the EIP-712 digest of a struct hash under a domain.
func Digest(domain, structHash []byte) [32]byte {
	return [32]byte(Keccak([]byte{0x19, 0x01}, domain, structHash))
}

// OpDigest signs Op(bytes32 data,uint64 salt,uint64 ts) over the compact
// form under the production domain.
func OpDigest(compact []any, salt, ts uint64) [32]byte {
	sh := Keccak(Keccak([]byte("Op(bytes32 data,uint64 salt,uint64 ts)")), Keccak(Pack(compact)), Word(salt), Word(ts))
	return Digest(Domain("Polymarket", 137), sh)
}

// CreateProxyDigest signs CreateProxy(address addr,uint64 exp,uint64 salt,uint64 ts).
func CreateProxyDigest(proxy []byte, exp, salt, ts uint64) [32]byte {
	sh := Keccak(Keccak([]byte("CreateProxy(address addr,uint64 exp,uint64 salt,uint64 ts)")),
		AddrWord(proxy), Word(exp), Word(salt), Word(ts))
	return Digest(Domain("Polymarket", 137), sh)
}

// Address derives the 20-byte address of a private key.
func Address(k *secp256k1.PrivateKey) []byte {
	pub := k.PubKey().SerializeUncompressed()
	return Keccak(pub[1:])[12:]
}

// Sign returns the r||s||v signature of d in hex, v = 27/28.
func Sign(k *secp256k1.PrivateKey, d [32]byte) string {
	c := ecdsa.SignCompact(k, d[:], false)
	return "0x" + hex.EncodeToString(append(append([]byte{}, c[1:]...), c[0]))
}

// WithdrawDigest signs Withdraw(address account,address token,uint256
// amount,uint256 fee,address to,uint64 salt,uint64 ts) (fee 0, ts in
// seconds) under the production domain with the deposit contract.
func WithdrawDigest(account, token []byte, amount uint64, to []byte, salt, ts uint64) [32]byte {
	contract, _ := hex.DecodeString("DCa4af75705dbB50f62437045afF9921947917d2")
	dom := Keccak(Keccak([]byte("EIP712Domain(string name,string version,uint256 chainId,address verifyingContract)")),
		Keccak([]byte("Polymarket")), Keccak([]byte("1")), Word(137), AddrWord(contract))
	sh := Keccak(Keccak([]byte("Withdraw(address account,address token,uint256 amount,uint256 fee,address to,uint64 salt,uint64 ts)")),
		AddrWord(account), AddrWord(token), Word(amount), Word(0), AddrWord(to), Word(salt), Word(ts))
	return Digest(dom, sh)
}
