package clobengine

import (
	"encoding/binary"
	"reflect"
)

// cmdPlaceBin prefixes the binary record of a place command, the one hot
// command (every order over HTTP is one): reflection-free JSON on both
// sides cost more than matching the order. Every other op stays JSON
// (cmdVersion), and journals written before this record existed replay
// unchanged, since a JSON place command still decodes.
//
// Layout after the prefix byte: uvarint order count, then per order a
// uvarint length and that many bytes of:
//
//	8 strings (uvarint length + bytes): Hash Token Type Maker Signer APIKey Builder Code
//	Side, SigType, flags (1 PostOnly, 2 NonceHuge, 4 NegRisk): one byte each
//	varints: Version MakerAmt TakerAmt Expiration Stamp FeeBps; uvarint Nonce
const cmdPlaceBin = 2

const (
	flagPostOnly = 1 << iota
	flagNonceHuge
	flagNegRisk
	flagsKnown = flagPostOnly | flagNonceHuge | flagNegRisk
)

// minPlaceRecord is the smallest order record (empty strings, one-byte
// varints): it bounds the count a record may claim.
const minPlaceRecord = 1 + 8 + 3 + 7

// placeOnly reports whether c carries nothing but its orders, so the
// binary record holds all of it. It walks Command's fields, so a field
// added later sends a place command that sets it to JSON rather than
// losing it (TestPlaceRecordCoversEveryField).
func placeOnly(c *Command) bool {
	if c.Op != OpPlace {
		return false
	}
	v := reflect.ValueOf(c).Elem()
	for i := range v.NumField() {
		if i != cmdOpField && i != cmdOrdersField && !v.Field(i).IsZero() {
			return false
		}
	}
	return true
}

var cmdOpField, cmdOrdersField = cmdField("Op"), cmdField("Orders")

func cmdField(name string) int {
	f, _ := reflect.TypeFor[Command]().FieldByName(name)
	return f.Index[0]
}

func encodePlace(orders []OrderInput) []byte {
	n := 1 + binary.MaxVarintLen64
	for i := range orders {
		o := &orders[i]
		n += binary.MaxVarintLen64 + 3 + 7*binary.MaxVarintLen64 + 8*binary.MaxVarintLen64 +
			len(o.Hash) + len(o.Token) + len(o.Type) + len(o.Maker) + len(o.Signer) + len(o.APIKey) + len(o.Builder) + len(o.Code)
	}
	b := make([]byte, 0, n)
	b = append(b, cmdPlaceBin)
	b = binary.AppendUvarint(b, uint64(len(orders)))
	for i := range orders {
		b = binary.AppendUvarint(b, uint64(orderLen(&orders[i])))
		b = appendOrder(b, &orders[i])
	}
	return b
}

// orderLen is the length appendOrder appends for o.
func orderLen(o *OrderInput) int {
	var tmp [binary.MaxVarintLen64]byte
	n := 3 + binary.PutUvarint(tmp[:], o.Nonce)
	for _, s := range [...]string{o.Hash, o.Token, o.Type, o.Maker, o.Signer, o.APIKey, o.Builder, o.Code} {
		n += binary.PutUvarint(tmp[:], uint64(len(s))) + len(s)
	}
	for _, v := range [...]int64{int64(o.Version), o.MakerAmt, o.TakerAmt, o.Expiration, o.Stamp, o.FeeBps} {
		n += binary.PutVarint(tmp[:], v)
	}
	return n
}

func appendOrder(b []byte, o *OrderInput) []byte {
	for _, s := range [...]string{o.Hash, o.Token, o.Type, o.Maker, o.Signer, o.APIKey, o.Builder, o.Code} {
		b = binary.AppendUvarint(b, uint64(len(s)))
		b = append(b, s...)
	}
	var f byte
	if o.PostOnly {
		f |= flagPostOnly
	}
	if o.NonceHuge {
		f |= flagNonceHuge
	}
	if o.NegRisk {
		f |= flagNegRisk
	}
	b = append(b, o.Side, o.SigType, f)
	for _, v := range [...]int64{int64(o.Version), o.MakerAmt, o.TakerAmt, o.Expiration, o.Stamp, o.FeeBps} {
		b = binary.AppendVarint(b, v)
	}
	return binary.AppendUvarint(b, o.Nonce)
}

// decodePlace reads a binary place record (without its prefix byte). The
// strings of one order share one allocation, its record.
func decodePlace(b []byte) (*Command, error) {
	n, k := binary.Uvarint(b)
	if k <= 0 || n > uint64(len(b)/minPlaceRecord) {
		return nil, errCommand
	}
	b = b[k:]
	c := &Command{Op: OpPlace}
	if n > 0 {
		c.Orders = make([]OrderInput, n)
	}
	for i := range c.Orders {
		l, k := binary.Uvarint(b)
		if k <= 0 || l > uint64(len(b)-k) {
			return nil, errCommand
		}
		if !decodeOrder(b[k:k+int(l)], &c.Orders[i]) {
			return nil, errCommand
		}
		b = b[k+int(l):]
	}
	if len(b) != 0 {
		return nil, errCommand
	}
	return c, nil
}

func decodeOrder(rec []byte, o *OrderInput) bool {
	s := string(rec) // one allocation for the order's strings
	p := 0
	var strs [8]string
	for i := range strs {
		l, k := binary.Uvarint(rec[p:])
		if k <= 0 || l > uint64(len(rec)-p-k) {
			return false
		}
		p += k
		strs[i] = s[p : p+int(l)]
		p += int(l)
	}
	o.Hash, o.Token, o.Type, o.Maker, o.Signer, o.APIKey, o.Builder, o.Code =
		strs[0], strs[1], strs[2], strs[3], strs[4], strs[5], strs[6], strs[7]
	if len(rec)-p < 3 || rec[p+2]&^flagsKnown != 0 {
		return false
	}
	o.Side, o.SigType = rec[p], rec[p+1]
	f := rec[p+2]
	o.PostOnly, o.NonceHuge, o.NegRisk = f&flagPostOnly != 0, f&flagNonceHuge != 0, f&flagNegRisk != 0
	p += 3
	var ints [6]int64
	for i := range ints {
		v, k := binary.Varint(rec[p:])
		if k <= 0 {
			return false
		}
		ints[i] = v
		p += k
	}
	if ints[0] != int64(int(ints[0])) {
		return false
	}
	o.Version, o.MakerAmt, o.TakerAmt, o.Expiration, o.Stamp, o.FeeBps =
		int(ints[0]), ints[1], ints[2], ints[3], ints[4], ints[5]
	v, k := binary.Uvarint(rec[p:])
	if k <= 0 || p+k != len(rec) {
		return false
	}
	o.Nonce = v
	return true
}
