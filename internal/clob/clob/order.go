package clob

import (
	"bytes"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"strconv"

	"pmx/internal/crypto/eip712"
	"pmx/internal/crypto/keccak"
	"pmx/internal/crypto/secp"
)

// Signature types (the order's signatureType).
const (
	SigEOA        = 0 // maker = signer, an EOA
	SigPolyProxy  = 1 // maker is a proxy wallet the signer controls
	SigGnosisSafe = 2 // maker is a Safe the signer owns
	SigPoly1271   = 3 // V2 only: signer is an ERC-1271 deposit wallet; an EOA signs a TypedDataSign envelope
)

// Order type strings (EIP-712 primary types).
const (
	OrderTypeV1 = "Order(uint256 salt,address maker,address signer,address taker,uint256 tokenId,uint256 makerAmount,uint256 takerAmount,uint256 expiration,uint256 nonce,uint256 feeRateBps,uint8 side,uint8 signatureType)"
	OrderTypeV2 = "Order(uint256 salt,address maker,address signer,uint256 tokenId,uint256 makerAmount,uint256 takerAmount,uint8 side,uint8 signatureType,uint256 timestamp,bytes32 metadata,bytes32 builder)"
	// typedDataSignType is ERC-7739's envelope with the Order it contains.
	typedDataSignType = "TypedDataSign(Order contents,string name,string version,uint256 chainId,address verifyingContract,bytes32 salt)" + OrderTypeV2
	exchangeName      = "Polymarket CTF Exchange"
)

var (
	orderTypeHashV1     = keccak.String(OrderTypeV1)
	orderTypeHashV2     = keccak.String(OrderTypeV2)
	typedDataSignHash   = keccak.String(typedDataSignType)
	depositWalletName   = keccak.String("DepositWallet")
	depositWalletVer    = keccak.String("1")
	errOrderSignature   = errors.New("clob: order signature does not verify")
	errWrappedSignature = errors.New("clob: malformed POLY_1271 signature")
)

// Contracts are the verifying contracts of one chain.
type Contracts struct {
	Exchange, NegRiskExchange     [20]byte // V1 (clob-client 5.8.1)
	ExchangeV2, NegRiskExchangeV2 [20]byte // V2 (clob-client-v2)
}

func addr(s string) [20]byte {
	a, err := secp.ParseAddress(s)
	if err != nil {
		panic(err)
	}
	return a
}

// ContractsFor returns the official clients' addresses for chain 137 or
// 80002 (any other chain uses Polygon's).
func ContractsFor(chain uint64) Contracts {
	c := Contracts{
		Exchange:          addr("0x4bFb41d5B3570DeFd03C39a9A4D8dE6Bd8B8982E"),
		NegRiskExchange:   addr("0xC5d563A36AE78145C45a50134d48A1215220f80a"),
		ExchangeV2:        addr("0xE111180000d2663C0091e4f400237545B87B996B"),
		NegRiskExchangeV2: addr("0xe2222d279d744050d28e00520010520000310F59"),
	}
	if chain == 80002 {
		c.Exchange = addr("0xdFE02Eb6733538f8Ea35D585af8DE5958AD99E40")
	}
	return c
}

// Domains holds the four precomputed domain separators of a chain.
type Domains struct {
	Chain uint64
	sep   [2][2][32]byte // [version-1][negRisk]
}

// NewDomains precomputes the separators for chain.
func NewDomains(chain uint64) *Domains {
	c := ContractsFor(chain)
	d := &Domains{Chain: chain}
	for v, pair := range [2][2][20]byte{{c.Exchange, c.NegRiskExchange}, {c.ExchangeV2, c.NegRiskExchangeV2}} {
		for nr := range 2 {
			vc := pair[nr]
			d.sep[v][nr] = eip712.Domain{Name: exchangeName, Version: strconv.Itoa(v + 1), ChainID: chain, VerifyingContract: &vc}.Separator()
		}
	}
	return d
}

// Separator is the domain separator for an order version (1 or 2) on the
// plain or the neg-risk exchange.
func (d *Domains) Separator(version int, negRisk bool) [32]byte {
	nr := 0
	if negRisk {
		nr = 1
	}
	return d.sep[version-1][nr]
}

// SignedOrder is a decoded wire order. Version is 2 when the order carries
// the V2 fields (timestamp, metadata, builder), else 1.
type SignedOrder struct {
	Version       int
	Salt          eip712.Uint256
	Maker, Signer secp.Address
	Taker         secp.Address // V1 only
	TokenID       eip712.Uint256
	Token         string // TokenID's canonical decimal text, as sent (ParseUint256 admits only that spelling)
	MakerAmount   uint64 // 6-decimal base units
	TakerAmount   uint64
	Expiration    uint64         // Unix seconds, 0 = none
	Nonce         eip712.Uint256 // V1 only
	FeeRateBps    uint64         // V1 only
	Side          uint8          // 0 BUY, 1 SELL
	SignatureType uint8
	Timestamp     eip712.Uint256 // V2 only (ms)
	Metadata      [32]byte       // V2 only
	Builder       [32]byte       // V2 only
	Signature     []byte
}

// wireOrder is the JSON the official clients send (clob-and-catalog.md §5.3
// for V1; clob-client-v2's orderToJsonV2 for V2).
type wireOrder struct {
	Salt          json.Number `json:"salt"`
	Maker         string      `json:"maker"`
	Signer        string      `json:"signer"`
	Taker         *string     `json:"taker"`
	TokenID       string      `json:"tokenId"`
	MakerAmount   string      `json:"makerAmount"`
	TakerAmount   string      `json:"takerAmount"`
	Side          string      `json:"side"`
	Expiration    *string     `json:"expiration"`
	Nonce         *string     `json:"nonce"`
	FeeRateBps    *string     `json:"feeRateBps"`
	SignatureType json.Number `json:"signatureType"`
	Timestamp     *string     `json:"timestamp"`
	Metadata      *string     `json:"metadata"`
	Builder       *string     `json:"builder"`
	Signature     string      `json:"signature"`
}

// NewOrder is one element of POST /order or /orders.
type NewOrder struct {
	Order     json.RawMessage `json:"order"`
	Owner     string          `json:"owner"`
	OrderType string          `json:"orderType"`
	PostOnly  bool            `json:"postOnly"`
	DeferExec bool            `json:"deferExec"`
}

var errPayload = errors.New("clob: invalid order payload")

func u256(s string) (eip712.Uint256, error) { return eip712.ParseUint256(s) }

// amount64 parses a base-unit amount that must fit the engine (< 2^62).
func amount64(s string) (uint64, error) {
	v, err := strconv.ParseUint(s, 10, 64)
	if err != nil || v >= 1<<62 || (len(s) > 1 && s[0] == '0') {
		return 0, errPayload
	}
	return v, nil
}

func bytes32(s *string) ([32]byte, error) {
	var b [32]byte
	if s == nil {
		return b, nil
	}
	h := *s
	if len(h) != 66 || h[0] != '0' || (h[1] != 'x' && h[1] != 'X') {
		return b, errPayload
	}
	if _, err := hex.Decode(b[:], []byte(h[2:])); err != nil {
		return b, errPayload
	}
	return b, nil
}

// ParseOrder decodes a wire order; any malformed field is errPayload.
func ParseOrder(raw []byte) (*SignedOrder, error) {
	var w wireOrder // salt and signatureType are json.Number fields: no float on the way
	if err := json.Unmarshal(raw, &w); err != nil {
		return nil, errPayload
	}
	f := w.fields()
	o := new(SignedOrder)
	if err := o.fromWire(&f); err != nil {
		return nil, err
	}
	return o, nil
}

// fromWire sets o from a wire order's fields; any malformed field is
// errPayload.
func (o *SignedOrder) fromWire(w *wireFields) error {
	*o = SignedOrder{Version: 1}
	if w.has&(1<<fTimestamp|1<<fMetadata|1<<fBuilder) != 0 {
		o.Version = 2
	}
	var e error
	if o.Salt, e = u256(w.salt); e != nil {
		return errPayload
	}
	if o.Maker, e = secp.ParseAddress(w.maker); e != nil {
		return errPayload
	}
	if o.Signer, e = secp.ParseAddress(w.signer); e != nil {
		return errPayload
	}
	if w.taker != "" {
		if o.Taker, e = secp.ParseAddress(w.taker); e != nil {
			return errPayload
		}
	}
	if o.TokenID, e = u256(w.tokenID); e != nil {
		return errPayload
	}
	o.Token = w.tokenID
	if o.MakerAmount, e = amount64(w.makerAmt); e != nil {
		return errPayload
	}
	if o.TakerAmount, e = amount64(w.takerAmt); e != nil {
		return errPayload
	}
	switch w.side {
	case "BUY":
	case "SELL":
		o.Side = 1
	default:
		return errPayload
	}
	if w.has&(1<<fExpiration) != 0 {
		if o.Expiration, e = strconv.ParseUint(w.expiration, 10, 64); e != nil {
			return errPayload
		}
	}
	st, e := strconv.ParseUint(w.sigType, 10, 8)
	if e != nil || st > SigPoly1271 || (st == SigPoly1271 && o.Version == 1) {
		return errPayload
	}
	o.SignatureType = uint8(st)
	if o.Version == 1 {
		n, f := "0", "0"
		if w.has&(1<<fNonce) != 0 {
			n = w.nonce
		}
		if w.has&(1<<fFeeRate) != 0 {
			f = w.feeRate
		}
		if o.Nonce, e = u256(n); e != nil {
			return errPayload
		}
		if o.FeeRateBps, e = strconv.ParseUint(f, 10, 16); e != nil {
			return errPayload
		}
	} else {
		ts := "0"
		if w.has&(1<<fTimestamp) != 0 {
			ts = w.timestamp
		}
		if o.Timestamp, e = u256(ts); e != nil {
			return errPayload
		}
		if o.Metadata, e = bytes32(w.opt(fMetadata)); e != nil {
			return errPayload
		}
		if o.Builder, e = bytes32(w.opt(fBuilder)); e != nil {
			return errPayload
		}
	}
	s := w.signature
	if len(s) < 2 || s[0] != '0' || (s[1] != 'x' && s[1] != 'X') || len(s)%2 != 0 {
		return errPayload
	}
	if o.Signature, e = hex.DecodeString(s[2:]); e != nil || len(o.Signature) < 65 {
		return errPayload
	}
	if o.SignatureType != SigPoly1271 && len(o.Signature) != 65 {
		return errPayload
	}
	return nil
}

// StructHash is hashStruct(Order) for the order's version.
func (o *SignedOrder) StructHash() [32]byte {
	side, st := eip712.Uint64(uint64(o.Side)), eip712.Uint64(uint64(o.SignatureType))
	mk, sg := eip712.Address(o.Maker), eip712.Address(o.Signer)
	ma, ta := eip712.Uint64(o.MakerAmount), eip712.Uint64(o.TakerAmount)
	if o.Version == 1 {
		tk, ex, fee := eip712.Address(o.Taker), eip712.Uint64(o.Expiration), eip712.Uint64(o.FeeRateBps)
		return keccak.Sum256(orderTypeHashV1[:], o.Salt[:], mk[:], sg[:], tk[:], o.TokenID[:], ma[:], ta[:],
			ex[:], o.Nonce[:], fee[:], side[:], st[:])
	}
	return keccak.Sum256(orderTypeHashV2[:], o.Salt[:], mk[:], sg[:], o.TokenID[:], ma[:], ta[:], side[:], st[:],
		o.Timestamp[:], o.Metadata[:], o.Builder[:])
}

// Hash is the order's EIP-712 digest, its orderID.
func (o *SignedOrder) Hash(d *Domains, negRisk bool) [32]byte {
	return eip712.Digest(d.Separator(o.Version, negRisk), o.StructHash())
}

// Signed returns the digest the order's EOA signed and that signature:
// for types 0-2 the order's own EIP-712 digest; for POLY_1271 the
// TypedDataSign envelope's digest (the wrapped signature is inner(65) ‖
// appDomainSeparator ‖ contentsHash ‖ type string ‖ uint16 length, and
// must name this order and exchange).
func (o *SignedOrder) Signed(d *Domains, negRisk bool) ([32]byte, secp.Signature, error) {
	digest, _, sig, err := o.signed(d, negRisk)
	return digest, sig, err
}

// signed is Signed that also returns the order's own digest (its ID).
func (o *SignedOrder) signed(d *Domains, negRisk bool) (digest, id [32]byte, sig secp.Signature, err error) {
	sep := d.Separator(o.Version, negRisk)
	contents := o.StructHash()
	id = eip712.Digest(sep, contents)
	if o.SignatureType != SigPoly1271 {
		copy(sig[:], o.Signature)
		if sig[64] >= 27 {
			sig[64] -= 27
		}
		return id, id, sig, nil
	}
	w := o.Signature
	if len(w) != 65+32+32+len(OrderTypeV2)+2 || int(binary.BigEndian.Uint16(w[len(w)-2:])) != len(OrderTypeV2) ||
		!bytes.Equal(w[65:97], sep[:]) || !bytes.Equal(w[97:129], contents[:]) || string(w[129:len(w)-2]) != OrderTypeV2 {
		return [32]byte{}, [32]byte{}, sig, errWrappedSignature
	}
	copy(sig[:], w[:65])
	if sig[64] >= 27 {
		sig[64] -= 27
	}
	return eip712.Digest(sep, TypedDataSignHash(contents, d.Chain, o.Signer)), id, sig, nil
}

// Verify recovers the EOA that signed the order: for types 0-2 it must be
// the order's signer; for POLY_1271 the signer field is the deposit wallet
// and the EOA is whoever signed the envelope.
func (o *SignedOrder) Verify(d *Domains, negRisk bool) (secp.Address, error) {
	a, _, err := o.VerifyID(d, negRisk)
	return a, err
}

// VerifyID is Verify that also returns the order's Hash (its ID), which
// it computes on the way.
func (o *SignedOrder) VerifyID(d *Domains, negRisk bool) (secp.Address, [32]byte, error) {
	digest, id, sig, err := o.signed(d, negRisk)
	if err != nil {
		return secp.Address{}, id, err
	}
	a, err := secp.Recover(digest, sig)
	if err != nil || (o.SignatureType != SigPoly1271 && a != o.Signer) {
		return secp.Address{}, id, errOrderSignature
	}
	return a, id, nil
}

// TypedDataSignHash is hashStruct(TypedDataSign{contents, "DepositWallet",
// "1", chain, wallet, 0}).
func TypedDataSignHash(contents [32]byte, chain uint64, wallet [20]byte) [32]byte {
	c, wa := eip712.Uint64(chain), eip712.Address(wallet)
	var salt [32]byte
	return keccak.Sum256(typedDataSignHash[:], contents[:], depositWalletName[:], depositWalletVer[:], c[:], wa[:], salt[:])
}

// ErrOrderPayload reports whether err is a malformed-order error.
func ErrOrderPayload(err error) bool { return errors.Is(err, errPayload) }
