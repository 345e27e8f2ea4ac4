package clob

import "encoding/json"

// DecodeNewOrder decodes one POST /order body into no and its order into o.
// It reports false when the body is not a NewOrder (encoding/json refuses
// it); otherwise oerr is what ParseOrder(no.Order) returns (o is set when
// oerr is nil).
//
// The bodies the official clients send take a single pass over one string
// copy of body, with no reflection (the order path's cost, docs/perf/clob.md):
// flat objects of the known keys, strings without escapes, plain integers.
// Anything else (an escape, a null, an unknown or repeated key, another
// spelling of a number) goes to encoding/json, so the answer is exactly
// encoding/json's for every input (FuzzDecodeNewOrder holds the two paths
// equal).
func DecodeNewOrder(body []byte, no *NewOrder, o *SignedOrder) (oerr error, ok bool) {
	if oerr, ok, done := fastNewOrder(body, no, o); done {
		return oerr, ok
	}
	return slowNewOrder(body, no, o)
}

func slowNewOrder(body []byte, no *NewOrder, o *SignedOrder) (error, bool) {
	var n NewOrder // not no: the fast path's caller keeps no on its stack
	err := json.Unmarshal(body, &n)
	*no = n
	if err != nil {
		return nil, false
	}
	p, err := ParseOrder(no.Order)
	if err != nil {
		return err, true
	}
	*o = *p
	return nil, true
}

// wireFields is wireOrder with presence bits instead of pointers.
type wireFields struct {
	salt, maker, signer, taker, tokenID, makerAmt, takerAmt, side string
	expiration, nonce, feeRate, sigType, timestamp, metadata      string
	builder, signature                                            string
	has                                                           uint32 // 1 << field index of every key seen
}

// Field indexes of the wire order's keys (bits of wireFields.has).
const (
	fSalt = iota
	fMaker
	fSigner
	fTaker
	fTokenID
	fMakerAmt
	fTakerAmt
	fSide
	fExpiration
	fNonce
	fFeeRate
	fSigType
	fTimestamp
	fMetadata
	fBuilder
	fSignature
)

var wireKeys = map[string]int{"salt": fSalt, "maker": fMaker, "signer": fSigner, "taker": fTaker, "tokenId": fTokenID,
	"makerAmount": fMakerAmt, "takerAmount": fTakerAmt, "side": fSide, "expiration": fExpiration, "nonce": fNonce,
	"feeRateBps": fFeeRate, "signatureType": fSigType, "timestamp": fTimestamp, "metadata": fMetadata,
	"builder": fBuilder, "signature": fSignature}

func (w *wireFields) field(i int) *string {
	switch i {
	case fSalt:
		return &w.salt
	case fMaker:
		return &w.maker
	case fSigner:
		return &w.signer
	case fTaker:
		return &w.taker
	case fTokenID:
		return &w.tokenID
	case fMakerAmt:
		return &w.makerAmt
	case fTakerAmt:
		return &w.takerAmt
	case fSide:
		return &w.side
	case fExpiration:
		return &w.expiration
	case fNonce:
		return &w.nonce
	case fFeeRate:
		return &w.feeRate
	case fSigType:
		return &w.sigType
	case fTimestamp:
		return &w.timestamp
	case fMetadata:
		return &w.metadata
	case fBuilder:
		return &w.builder
	}
	return &w.signature
}

func (w *wireFields) opt(i int) *string {
	if w.has&(1<<i) == 0 {
		return nil
	}
	return w.field(i)
}

// fields is wireOrder's content as wireFields.
func (wo *wireOrder) fields() wireFields {
	w := wireFields{salt: wo.Salt.String(), maker: wo.Maker, signer: wo.Signer, tokenID: wo.TokenID,
		makerAmt: wo.MakerAmount, takerAmt: wo.TakerAmount, side: wo.Side, sigType: wo.SignatureType.String(),
		signature: wo.Signature}
	for i, p := range [...]*string{fTaker: wo.Taker, fExpiration: wo.Expiration, fNonce: wo.Nonce,
		fFeeRate: wo.FeeRateBps, fTimestamp: wo.Timestamp, fMetadata: wo.Metadata, fBuilder: wo.Builder, fSignature: nil} {
		if p != nil {
			w.has |= 1 << i
			*w.field(i) = *p
		}
	}
	return w
}

// scanner walks one string copy of a body; every value it returns is a
// substring of it.
type scanner struct {
	s   string
	pos int
}

func (sc *scanner) ws() {
	for sc.pos < len(sc.s) {
		switch sc.s[sc.pos] {
		case ' ', '\t', '\n', '\r':
			sc.pos++
		default:
			return
		}
	}
}

// eat skips white space and then c, reporting whether c was there.
func (sc *scanner) eat(c byte) bool {
	sc.ws()
	if sc.pos < len(sc.s) && sc.s[sc.pos] == c {
		sc.pos++
		return true
	}
	return false
}

// str reads a string of printable ASCII without escapes.
func (sc *scanner) str() (string, bool) {
	if !sc.eat('"') {
		return "", false
	}
	start := sc.pos
	for sc.pos < len(sc.s) {
		c := sc.s[sc.pos]
		if c == '"' {
			sc.pos++
			return sc.s[start : sc.pos-1], true
		}
		if c < 0x20 || c >= 0x7f || c == '\\' {
			return "", false
		}
		sc.pos++
	}
	return "", false
}

// uint reads a JSON integer without sign, fraction or exponent.
func (sc *scanner) uint() (string, bool) {
	sc.ws()
	start := sc.pos
	for sc.pos < len(sc.s) && sc.s[sc.pos] >= '0' && sc.s[sc.pos] <= '9' {
		sc.pos++
	}
	n := sc.s[start:sc.pos]
	if n == "" || (n[0] == '0' && len(n) > 1) {
		return "", false
	}
	if sc.pos < len(sc.s) {
		switch sc.s[sc.pos] {
		case '.', 'e', 'E':
			return "", false
		}
	}
	return n, true
}

func (sc *scanner) boolean() (v, ok bool) {
	sc.ws()
	switch {
	case len(sc.s)-sc.pos >= 4 && sc.s[sc.pos:sc.pos+4] == "true":
		sc.pos += 4
		return true, true
	case len(sc.s)-sc.pos >= 5 && sc.s[sc.pos:sc.pos+5] == "false":
		sc.pos += 5
		return false, true
	}
	return false, false
}

// object reads {"key": value, ...}, calling val after each key; val
// reports false to give up. A repeated key gives up too.
func (sc *scanner) object(val func(key string) bool) bool {
	if !sc.eat('{') {
		return false
	}
	if sc.eat('}') {
		return true
	}
	for {
		k, ok := sc.str()
		if !ok || !sc.eat(':') || !val(k) {
			return false
		}
		if sc.eat('}') {
			return true
		}
		if !sc.eat(',') {
			return false
		}
	}
}

// fastNewOrder is DecodeNewOrder's single pass; done false means the body
// takes encoding/json.
func fastNewOrder(body []byte, no *NewOrder, o *SignedOrder) (oerr error, ok, done bool) {
	sc := scanner{s: string(body)}
	var w wireFields
	if !sc.newOrder(body, no, &w) {
		return nil, false, false
	}
	if sc.ws(); sc.pos != len(sc.s) {
		return nil, false, false
	}
	if err := o.fromWire(&w); err != nil {
		return err, true, true
	}
	return nil, true, true
}

// newOrder reads one NewOrder object (body is sc.s's bytes), false when
// it is not in the single pass's form.
func (sc *scanner) newOrder(body []byte, no *NewOrder, w *wireFields) bool {
	var seen uint8
	*no = NewOrder{}
	*w = wireFields{}
	if !sc.object(func(k string) bool {
		var bit uint8
		ok := false
		switch k {
		case "order":
			bit = 1
			sc.ws()
			start := sc.pos
			ok = sc.object(func(k string) bool {
				i, known := wireKeys[k]
				if !known || w.has&(1<<i) != 0 {
					return false
				}
				w.has |= 1 << i
				var v string
				var ok bool
				if i == fSalt || i == fSigType {
					v, ok = sc.uint()
				} else {
					v, ok = sc.str()
				}
				*w.field(i) = v
				return ok
			})
			no.Order = body[start:sc.pos]
		case "owner":
			bit = 2
			no.Owner, ok = sc.str()
		case "orderType":
			bit = 4
			no.OrderType, ok = sc.str()
		case "postOnly":
			bit = 8
			no.PostOnly, ok = sc.boolean()
		case "deferExec":
			bit = 16
			no.DeferExec, ok = sc.boolean()
		}
		if !ok || seen&bit != 0 {
			return false
		}
		seen |= bit
		return true
	}) || seen&1 == 0 {
		return false
	}
	// absent json.Number fields: encoding/json's path
	return w.has&(1<<fSalt) != 0 && w.has&(1<<fSigType) != 0
}

// DecodeNewOrders decodes a POST /orders body: ok false when encoding/json
// refuses it. When the batch holds at most max orders, each order is
// decoded too: orders[i] is set when errs[i] is nil (what ParseOrder
// returns for batch[i].Order); above max, orders and errs are nil.
func DecodeNewOrders(body []byte, max int) (batch []NewOrder, orders []SignedOrder, errs []error, ok bool) {
	var wires []wireFields
	sc := scanner{s: string(body)}
	fast := sc.eat('[')
	if fast && !sc.eat(']') {
		for {
			var no NewOrder
			var w wireFields
			if !sc.newOrder(body, &no, &w) {
				fast = false
				break
			}
			batch, wires = append(batch, no), append(wires, w)
			if sc.eat(']') {
				break
			}
			if !sc.eat(',') {
				fast = false
				break
			}
		}
	}
	if sc.ws(); !fast || sc.pos != len(sc.s) {
		batch = nil
		if json.Unmarshal(body, &batch) != nil {
			return nil, nil, nil, false
		}
		wires = nil
	}
	if batch == nil {
		batch = []NewOrder{}
	}
	if len(batch) > max {
		return batch, nil, nil, true
	}
	orders, errs = make([]SignedOrder, len(batch)), make([]error, len(batch))
	for i := range batch {
		if wires != nil {
			errs[i] = orders[i].fromWire(&wires[i])
			continue
		}
		p, err := ParseOrder(batch[i].Order)
		if err == nil {
			orders[i] = *p
		}
		errs[i] = err
	}
	return batch, orders, errs, true
}
