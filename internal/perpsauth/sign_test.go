package perpsauth

// An independent signer for tests: its MessagePack writer and EIP-712 digest
// share no code with the verifier (only the Keccak primitive and decred's
// signing), so a bug in the verifier's hashing cannot cancel out here.

import (
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
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

// tpack writes strings, bools, non-negative ints and arrays (no absents: the
// test trees list only present entries, as perps.md prints them).
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
		if len(x) >= 16 {
			out := []byte{0xdc, byte(len(x) >> 8), byte(len(x))}
			for _, e := range x {
				out = append(out, tpack(e)...)
			}
			return out
		}
		out := []byte{0x90 + byte(len(x))}
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

func addrWord(a []byte) []byte { return append(make([]byte, 12), a...) }

func tDomain(name string, chain uint64) []byte {
	return kec(kec([]byte("EIP712Domain(string name,string version,uint256 chainId)")),
		kec([]byte(name)), kec([]byte("1")), word(chain))
}

func tDigest(domain, structHash []byte) [32]byte {
	return [32]byte(kec([]byte{0x19, 0x01}, domain, structHash))
}

func tOpDigest(compact []any, salt, ts uint64) [32]byte {
	data := kec(tpack(compact))
	sh := kec(kec([]byte("Op(bytes32 data,uint64 salt,uint64 ts)")), data, word(salt), word(ts))
	return tDigest(tDomain("Polymarket", 137), sh)
}

func tCreateProxyDigest(proxy []byte, exp, salt, ts uint64) [32]byte {
	sh := kec(kec([]byte("CreateProxy(address addr,uint64 exp,uint64 salt,uint64 ts)")), addrWord(proxy), word(exp), word(salt), word(ts))
	return tDigest(tDomain("Polymarket", 137), sh)
}

func tWithdrawDigest(account, token []byte, amount uint64, to []byte, salt, ts uint64) [32]byte {
	contract, _ := hex.DecodeString("DCa4af75705dbB50f62437045afF9921947917d2")
	dom := kec(kec([]byte("EIP712Domain(string name,string version,uint256 chainId,address verifyingContract)")),
		kec([]byte("Polymarket")), kec([]byte("1")), word(137), addrWord(contract))
	sh := kec(kec([]byte("Withdraw(address account,address token,uint256 amount,uint256 fee,address to,uint64 salt,uint64 ts)")),
		addrWord(account), addrWord(token), word(amount), word(0), addrWord(to), word(salt), word(ts))
	return tDigest(dom, sh)
}

type tKey struct {
	priv *secp256k1.PrivateKey
	addr []byte
	hex  string // lower-case 0x address
}

func newKey(t testing.TB, privHex string) tKey {
	b, err := hex.DecodeString(privHex)
	if err != nil {
		t.Fatal(err)
	}
	k := secp256k1.PrivKeyFromBytes(b)
	pub := k.PubKey().SerializeUncompressed()
	a := kec(pub[1:])[12:]
	return tKey{priv: k, addr: a, hex: "0x" + hex.EncodeToString(a)}
}

// sign returns r||s||v hex with v = 27/28.
func (k tKey) sign(d [32]byte) string {
	c := ecdsa.SignCompact(k.priv, d[:], false)
	return "0x" + hex.EncodeToString(append(append([]byte{}, c[1:]...), c[0]))
}

// envelope builds a JSON request body around a keyed op.
func envelope(t testing.TB, op string, sig string, salt, ts uint64, extra string) []byte {
	body := fmt.Sprintf(`{"op":%s,"sig":%q,"salt":%d,"ts":%d%s}`, op, sig, salt, ts, extra)
	if !json.Valid([]byte(body)) {
		t.Fatalf("invalid test body %s", body)
	}
	return []byte(body)
}
