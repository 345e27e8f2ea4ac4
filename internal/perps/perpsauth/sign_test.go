package perpsauth

// Tests sign with testsigner, which shares no hashing code with the verifier
// (only the Keccak primitive and decred's signing), so a bug in the
// verifier's hashing cannot cancel out here.

import (
	"encoding/hex"
	"encoding/json"
	"fmt"
	"testing"

	"github.com/decred/dcrd/dcrec/secp256k1/v4"

	"pmx/internal/perps/perpsauth/testsigner"
)

var (
	kec                = testsigner.Keccak
	tpack              = testsigner.Pack
	word               = testsigner.Word
	addrWord           = testsigner.AddrWord
	tDigest            = testsigner.Digest
	tOpDigest          = testsigner.OpDigest
	tCreateProxyDigest = testsigner.CreateProxyDigest
)

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
	a := testsigner.Address(k)
	return tKey{priv: k, addr: a, hex: "0x" + hex.EncodeToString(a)}
}

// sign returns r||s||v hex with v = 27/28.
func (k tKey) sign(d [32]byte) string { return testsigner.Sign(k.priv, d) }

// envelope builds a JSON request body around a keyed op.
func envelope(t testing.TB, op string, sig string, salt, ts uint64, extra string) []byte {
	body := fmt.Sprintf(`{"op":%s,"sig":%q,"salt":%d,"ts":%d%s}`, op, sig, salt, ts, extra)
	if !json.Valid([]byte(body)) {
		t.Fatalf("invalid test body %s", body)
	}
	return []byte(body)
}
