package perpshttp

// An independent signer: its MessagePack writer and EIP-712 digest share no
// code with the verifier (only the Keccak primitive and decred's signing),
// so a hashing bug on the server cannot cancel out in these tests.

import (
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"testing"

	"github.com/decred/dcrd/dcrec/secp256k1/v4"
	"github.com/decred/dcrd/dcrec/secp256k1/v4/ecdsa"
	"golang.org/x/crypto/sha3"
)

func kec(parts ...[]byte) []byte {
	h := sha3.NewLegacyKeccak256()
	for _, p := range parts {
		h.Write(p)
	}
	return h.Sum(nil)
}

func tpack(v any) []byte {
	switch x := v.(type) {
	case string:
		switch {
		case len(x) < 32:
			return append([]byte{0xa0 + byte(len(x))}, x...)
		case len(x) < 256:
			return append([]byte{0xd9, byte(len(x))}, x...)
		}
		panic("tpack: long string")
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
			out = append(out, tpack(e)...)
		}
		return out
	}
	panic(fmt.Sprintf("tpack: %T", v))
}

func word(v uint64) []byte {
	var w [32]byte
	binary.BigEndian.PutUint64(w[24:], v)
	return w[:]
}

func tDomain() []byte {
	return kec(kec([]byte("EIP712Domain(string name,string version,uint256 chainId)")),
		kec([]byte("Polymarket")), kec([]byte("1")), word(137))
}

func tOpDigest(compact []any, salt, ts uint64) [32]byte {
	sh := kec(kec([]byte("Op(bytes32 data,uint64 salt,uint64 ts)")), kec(tpack(compact)), word(salt), word(ts))
	return [32]byte(kec([]byte{0x19, 0x01}, tDomain(), sh))
}

func tCreateProxyDigest(proxy []byte, exp, salt, ts uint64) [32]byte {
	sh := kec(kec([]byte("CreateProxy(address addr,uint64 exp,uint64 salt,uint64 ts)")),
		append(make([]byte, 12), proxy...), word(exp), word(salt), word(ts))
	return [32]byte(kec([]byte{0x19, 0x01}, tDomain(), sh))
}

type tKey struct {
	priv *secp256k1.PrivateKey
	addr []byte
	hex  string
}

func newKey(t testing.TB, seed byte) tKey {
	var b [32]byte
	b[31], b[0] = seed, 1
	k := secp256k1.PrivKeyFromBytes(b[:])
	pub := k.PubKey().SerializeUncompressed()
	a := kec(pub[1:])[12:]
	return tKey{priv: k, addr: a, hex: "0x" + hex.EncodeToString(a)}
}

func (k tKey) sign(d [32]byte) string {
	c := ecdsa.SignCompact(k.priv, d[:], false)
	return "0x" + hex.EncodeToString(append(append([]byte{}, c[1:]...), c[0]))
}
