package clobhttp_test

// The tests' order signer: its own EIP-712 encoding of the V1 and V2 Order
// structs (only Keccak and decred's signing are shared with the verifier).

import (
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math/big"
	"strconv"
	"sync/atomic"
	"testing"

	"github.com/decred/dcrd/dcrec/secp256k1/v4/ecdsa"
)

func bigWord(dec string) []byte {
	n, ok := new(big.Int).SetString(dec, 10)
	if !ok {
		panic("bad decimal " + dec)
	}
	var w [32]byte
	n.FillBytes(w[:])
	return w[:]
}

func addrWord(a []byte) []byte { return append(make([]byte, 12), a...) }

func unhex(s string) []byte {
	b, err := hex.DecodeString(s[2:])
	if err != nil {
		panic(err)
	}
	return b
}

var (
	exV1   = unhex("0x4bFb41d5B3570DeFd03C39a9A4D8dE6Bd8B8982E")
	exV1NR = unhex("0xC5d563A36AE78145C45a50134d48A1215220f80a")
	exV2   = unhex("0xE111180000d2663C0091e4f400237545B87B996B")
	exV2NR = unhex("0xe2222d279d744050d28e00520010520000310F59")
)

func exchangeDomain(version string, contract []byte) []byte {
	return kec(kec([]byte("EIP712Domain(string name,string version,uint256 chainId,address verifyingContract)")),
		kec([]byte("Polymarket CTF Exchange")), kec([]byte(version)), word(137), addrWord(contract))
}

// testOrder is an order as a client builds it.
type testOrder struct {
	V          int // 1 or 2
	Salt       int64
	Maker      []byte // nil: the wallet
	Token      string
	MakerAmt   int64
	TakerAmt   int64
	Side       string
	Expiration int64
	Nonce      int64
	FeeBps     int64
	SigType    int
	Stamp      int64 // V2 timestamp ms
	NegRisk    bool
}

var saltN atomic.Int64 // the salts of signed orders; the kill test signs from several goroutines

// sign returns the wire order JSON and its orderID.
func (w wallet) sign(o testOrder) (string, string) {
	if o.Salt == 0 {
		o.Salt = 1000 + saltN.Add(1)
	}
	maker := o.Maker
	if maker == nil {
		maker = w.raw
	}
	side := uint64(0)
	if o.Side == "SELL" {
		side = 1
	}
	var sh, dom []byte
	if o.V == 2 {
		sh = kec(kec([]byte("Order(uint256 salt,address maker,address signer,uint256 tokenId,uint256 makerAmount,uint256 takerAmount,uint8 side,uint8 signatureType,uint256 timestamp,bytes32 metadata,bytes32 builder)")),
			word(uint64(o.Salt)), addrWord(maker), addrWord(w.raw), bigWord(o.Token), word(uint64(o.MakerAmt)), word(uint64(o.TakerAmt)),
			word(side), word(uint64(o.SigType)), word(uint64(o.Stamp)), make([]byte, 32), make([]byte, 32))
		dom = exchangeDomain("2", map[bool][]byte{false: exV2, true: exV2NR}[o.NegRisk])
	} else {
		sh = kec(kec([]byte("Order(uint256 salt,address maker,address signer,address taker,uint256 tokenId,uint256 makerAmount,uint256 takerAmount,uint256 expiration,uint256 nonce,uint256 feeRateBps,uint8 side,uint8 signatureType)")),
			word(uint64(o.Salt)), addrWord(maker), addrWord(w.raw), make([]byte, 32), bigWord(o.Token), word(uint64(o.MakerAmt)),
			word(uint64(o.TakerAmt)), word(uint64(o.Expiration)), word(uint64(o.Nonce)), word(uint64(o.FeeBps)), word(side), word(uint64(o.SigType)))
		dom = exchangeDomain("1", map[bool][]byte{false: exV1, true: exV1NR}[o.NegRisk])
	}
	digest := kec([]byte{0x19, 0x01}, dom, sh)
	c := ecdsa.SignCompact(w.priv, digest, false)
	sig := "0x" + hex.EncodeToString(append(append([]byte{}, c[1:]...), c[0]))
	m := map[string]any{"salt": o.Salt, "maker": "0x" + hex.EncodeToString(maker), "signer": w.addr, "tokenId": o.Token,
		"makerAmount": strconv.FormatInt(o.MakerAmt, 10), "takerAmount": strconv.FormatInt(o.TakerAmt, 10), "side": o.Side,
		"expiration": strconv.FormatInt(o.Expiration, 10), "signatureType": o.SigType, "signature": sig}
	if o.V == 2 {
		m["timestamp"] = strconv.FormatInt(o.Stamp, 10)
		m["metadata"] = "0x" + hex.EncodeToString(make([]byte, 32))
		m["builder"] = "0x" + hex.EncodeToString(make([]byte, 32))
	} else {
		m["taker"] = "0x0000000000000000000000000000000000000000"
		m["nonce"] = strconv.FormatInt(o.Nonce, 10)
		m["feeRateBps"] = strconv.FormatInt(o.FeeBps, 10)
	}
	b, _ := json.Marshal(m)
	return string(b), "0x" + hex.EncodeToString(digest)
}

// limitOrder is a V1 GTC-style order for size shares at cents.
func limitOrder(token, side string, cents, shares int64) testOrder {
	size, coll := shares*1_000_000, shares*cents*10_000
	o := testOrder{V: 1, Token: token, Side: side, MakerAmt: coll, TakerAmt: size}
	if side == "SELL" {
		o.MakerAmt, o.TakerAmt = size, coll
	}
	return o
}

// trader is a wallet with an API key on an exchange env.
type trader struct {
	w wallet
	c creds
	x *xenv
}

func (x *xenv) trader(t testing.TB, priv string) *trader {
	t.Helper()
	w := newWallet(t, priv)
	ts := int64(now0)
	if x.clock == nil {
		ts = 0
	} else {
		ts = x.clock.Now().Unix()
	}
	return &trader{w: w, c: x.do(t, "POST", "/auth/api-key", w.l1(ts, 0), "").creds(t), x: x}
}

func (tr *trader) ts() int64 { return tr.x.clock.Now().Unix() }

// call sends an L2 request.
func (tr *trader) call(t testing.TB, method, path, body string) reply {
	t.Helper()
	p := path
	if i := indexByte(p, '?'); i >= 0 {
		p = p[:i]
	}
	return tr.x.do(t, method, path, l2(tr.w.addr, tr.c, tr.ts(), method, p, body), body)
}

func indexByte(s string, c byte) int {
	for i := 0; i < len(s); i++ {
		if s[i] == c {
			return i
		}
	}
	return -1
}

// post posts one order with the given type and post-only flag.
func (tr *trader) post(t testing.TB, o testOrder, typ string, postOnly bool) (reply, string) {
	t.Helper()
	wire, id := tr.w.sign(o)
	body := fmt.Sprintf(`{"order":%s,"owner":%q,"orderType":%q,"postOnly":%v,"deferExec":false}`, wire, tr.c.APIKey, typ, postOnly)
	return tr.call(t, "POST", "/order", body), id
}
