package perps

import (
	"bytes"
	"encoding/base64"
	"math"
	"strconv"
	"unicode/utf8"
)

// A createOrders command is journaled for every placement and decoded again
// by Apply, so its JSON is written and read by hand. The format is exactly
// json.Marshal's (journals stay one format, and every other command and
// every unusual spelling still goes through encoding/json): FuzzCommandCodec
// holds both directions to encoding/json. codec_test.go pins Command's field
// list, so a new field cannot be silently dropped here.

// encodeOrders is json.Marshal(c) for a createOrders command whose strings
// encoding/json writes unchanged; ok is false for any other command.
func encodeOrders(c *Command) ([]byte, bool) {
	if c.Kind != KCreateOrders || len(c.Modifies) != 0 || len(c.OIDs) != 0 || len(c.COIDs) != 0 || c.IID != 0 ||
		c.Instrument != nil || c.Proxy != nil || c.Amount != "" || c.Price != "" || c.Flight != nil || c.Mode != "" ||
		c.RetryAfter != 0 || c.On || !plainJSON(c.Account) {
		return nil, false
	}
	b := make([]byte, 0, 96+base64.StdEncoding.EncodedLen(len(c.Replay))+80*len(c.Orders))
	b = append(b, `{"k":"createOrders"`...)
	if c.Account != "" {
		b = appendField(b, `,"a":"`, c.Account)
	}
	if len(c.Replay) != 0 {
		b = append(b, `,"r":"`...)
		b = base64.StdEncoding.AppendEncode(b, c.Replay)
		b = append(b, '"')
	}
	if len(c.Orders) != 0 {
		b = append(b, `,"o":[`...)
		for i := range c.Orders {
			o := &c.Orders[i]
			if (o.P != nil && !plainJSON(*o.P)) || !plainJSON(o.Qty) || (o.TIF != nil && !plainJSON(*o.TIF)) || !plainJSON(o.C) {
				return nil, false
			}
			if i > 0 {
				b = append(b, ',')
			}
			b = append(b, `{"iid":`...)
			b = strconv.AppendUint(b, uint64(o.IID), 10)
			b = append(b, `,"buy":`...)
			b = strconv.AppendBool(b, o.Buy)
			if o.P != nil {
				b = appendField(b, `,"p":"`, *o.P)
			}
			b = appendField(b, `,"qty":"`, o.Qty)
			if o.TIF != nil {
				b = appendField(b, `,"tif":"`, *o.TIF)
			}
			if o.PO {
				b = append(b, `,"po":true`...)
			}
			if o.RO {
				b = append(b, `,"ro":true`...)
			}
			if o.C != "" {
				b = appendField(b, `,"c":"`, o.C)
			}
			if o.TR {
				b = append(b, `,"tr":true`...)
			}
			b = append(b, '}')
		}
		b = append(b, ']')
	}
	return append(b, '}'), true
}

func appendField(b []byte, key, v string) []byte {
	b = append(b, key...)
	b = append(b, v...)
	return append(b, '"')
}

// plainJSON: printable ASCII that encoding/json writes unchanged (it
// escapes quote and backslash, and <, > and & for HTML safety).
func plainJSON(s string) bool {
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c < 0x20 || c >= 0x7f, c == '"', c == '\\', c == '<', c == '>', c == '&':
			return false
		}
	}
	return true
}

// decodeOrders parses the exact form encodeOrders writes (and json.Marshal
// writes for such commands; non-ASCII strings are taken as they are when
// valid UTF-8 without escapes). ok is false for anything else.
func decodeOrders(b []byte) (*Command, bool) {
	d := cdec{b: b}
	if !d.lit(`{"k":"createOrders"`) {
		return nil, false
	}
	c := &Command{Kind: KCreateOrders}
	if d.lit(`,"a":`) {
		s, ok := d.str()
		if !ok {
			return nil, false
		}
		c.Account = s
	}
	if d.lit(`,"r":`) {
		raw, ok := d.rawStr()
		if !ok {
			return nil, false
		}
		r := make([]byte, base64.StdEncoding.DecodedLen(len(raw)))
		n, err := base64.StdEncoding.Decode(r, raw)
		if err != nil {
			return nil, false
		}
		c.Replay = r[:n]
	}
	if d.lit(`,"o":[`) {
		c.Orders = make([]OrderReq, 0, 1)
		for first := true; !d.lit("]"); first = false {
			if !first && !d.lit(",") {
				return nil, false
			}
			o, ok := d.order()
			if !ok {
				return nil, false
			}
			c.Orders = append(c.Orders, o)
		}
	}
	if !d.lit("}") || d.i != len(b) {
		return nil, false
	}
	return c, true
}

type cdec struct {
	b []byte
	i int
}

// lit consumes s if the input continues with it.
func (d *cdec) lit(s string) bool {
	if !bytes.HasPrefix(d.b[d.i:], []byte(s)) {
		return false
	}
	d.i += len(s)
	return true
}

// rawStr reads a string without escapes or control bytes and returns its
// bytes (its value, when valid UTF-8).
func (d *cdec) rawStr() ([]byte, bool) {
	if !d.lit(`"`) {
		return nil, false
	}
	for j := d.i; j < len(d.b); j++ {
		switch c := d.b[j]; {
		case c == '"':
			s := d.b[d.i:j]
			d.i = j + 1
			return s, true
		case c == '\\' || c < 0x20:
			return nil, false
		}
	}
	return nil, false
}

func (d *cdec) str() (string, bool) {
	raw, ok := d.rawStr()
	if !ok || !utf8.Valid(raw) {
		return "", false
	}
	return string(raw), true
}

func (d *cdec) strPtr() (*string, bool) {
	s, ok := d.str()
	return &s, ok
}

// order reads one OrderReq in field order, each optional field at most once.
func (d *cdec) order() (OrderReq, bool) {
	var o OrderReq
	if !d.lit(`{"iid":`) {
		return o, false
	}
	j := d.i
	for j < len(d.b) && d.b[j] >= '0' && d.b[j] <= '9' {
		j++
	}
	digits := d.b[d.i:j]
	if len(digits) == 0 || len(digits) > 10 || (len(digits) > 1 && digits[0] == '0') {
		return o, false
	}
	n, err := strconv.ParseUint(string(digits), 10, 64)
	if err != nil || n > math.MaxUint32 {
		return o, false
	}
	o.IID, d.i = uint32(n), j
	switch {
	case d.lit(`,"buy":true`):
		o.Buy = true
	case d.lit(`,"buy":false`):
	default:
		return o, false
	}
	ok := true
	if d.lit(`,"p":`) {
		o.P, ok = d.strPtr()
	}
	if !ok || !d.lit(`,"qty":`) {
		return o, false
	}
	if o.Qty, ok = d.str(); !ok {
		return o, false
	}
	if d.lit(`,"tif":`) {
		if o.TIF, ok = d.strPtr(); !ok {
			return o, false
		}
	}
	o.PO = d.lit(`,"po":true`)
	o.RO = d.lit(`,"ro":true`)
	if d.lit(`,"c":`) {
		if o.C, ok = d.str(); !ok {
			return o, false
		}
	}
	o.TR = d.lit(`,"tr":true`)
	return o, d.lit("}")
}
