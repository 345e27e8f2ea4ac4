package perpsauth

import (
	"encoding/json"
	"math"
	"strings"
)

// OrderArg is one createOrders item as signed (perps.md §3.3). Pointers are
// nil when the key is absent.
type OrderArg struct {
	IID    uint32
	Buy    bool
	P      *string
	Qty    string
	TIF    *string
	PO, RO bool
	C      *string
	TR     bool // a trigger object was sent
	// The trigger's fields (TR): market, trp, tpsl as sent; slip_bps and
	// parent_oid (0 when absent).
	TrMarket    bool
	TrP, TrKind string
	TrSlip      uint64
	TrParent    uint64
}

// trigger is the tr object as encoding/json decodes it.
type trigger struct {
	Market bool   `json:"market"`
	TrP    string `json:"trp"`
	TPSL   string `json:"tpsl"`
	Slip   uint64 `json:"slip_bps"`
	Parent uint64 `json:"parent_oid"`
}

// setTrigger copies a decoded tr object into a (TR set).
func (a *OrderArg) setTrigger(t trigger) {
	a.TR, a.TrMarket, a.TrP, a.TrKind, a.TrSlip, a.TrParent = true, t.Market, t.TrP, t.TPSL, t.Slip, t.Parent
}

// setTriggerAt decodes the tr object at v of b into a; false when it is
// not an object encoding/json takes as a trigger.
func (a *OrderArg) setTriggerAt(b []byte, v span) bool {
	var t trigger
	if b[v.s] != '{' || json.Unmarshal(b[v.s:v.e], &t) != nil {
		return false
	}
	a.setTrigger(t)
	return true
}

// DecodeOrderArgs decodes createOrders args: OrderArgs for the common
// spelling, else encoding/json (DecodeArgs), which owns every error text.
func (o Op) DecodeOrderArgs() ([]OrderArg, error) { return o.AppendOrderArgs(nil) }

// AppendOrderArgs is DecodeOrderArgs into dst's backing array when it is
// large enough (a buffer the caller reuses; nil: a new one).
func (o Op) AppendOrderArgs(dst []OrderArg) ([]OrderArg, error) {
	rows, _, err := o.AppendOrderArgsPtrs(dst, nil)
	return rows, err
}

// AppendOrderArgsPtrs is AppendOrderArgs with the strings that the rows'
// pointer fields (P, TIF, C) point to held in ptrs' backing array when it
// is large enough, returned for the caller to reuse once done with the rows
// (clear it first: it holds the request's strings).
func (o Op) AppendOrderArgsPtrs(dst []OrderArg, ptrs []string) ([]OrderArg, []string, error) {
	if rows, ptrs, ok := o.appendOrderArgs(dst, ptrs); ok {
		return rows, ptrs, nil
	}
	rows, err := o.orderArgsJSON()
	return rows, ptrs, err
}

// orderArg is OrderArg as encoding/json decodes it (type errors are worded
// by jsonerr: field and expectation).
type orderArg struct {
	IID uint32          `json:"iid"`
	Buy bool            `json:"buy"`
	P   *string         `json:"p"`
	Qty string          `json:"qty"`
	TIF *string         `json:"tif"`
	PO  bool            `json:"po"`
	RO  bool            `json:"ro"`
	C   *string         `json:"c"`
	TR  json.RawMessage `json:"tr"`
}

// orderArgsJSON is the reference decoding of createOrders args.
func (o Op) orderArgsJSON() ([]OrderArg, error) {
	var args []orderArg
	if err := o.DecodeArgs(&args); err != nil {
		return nil, err
	}
	rows := make([]OrderArg, len(args))
	for i, a := range args {
		rows[i] = OrderArg{IID: a.IID, Buy: a.Buy, P: a.P, Qty: a.Qty, TIF: a.TIF, PO: a.PO, RO: a.RO,
			C: a.C, TR: len(a.TR) > 0 && string(a.TR) != "null"}
		if rows[i].TR {
			var t trigger
			if err := json.Unmarshal(a.TR, &t); err != nil {
				return nil, invalid("args: tr must be an object {market, trp, tpsl, slip_bps, parent_oid}")
			}
			rows[i].setTrigger(t)
		}
	}
	return rows, nil
}

// OrderArgs decodes createOrders args in one scanner pass, for the common
// spelling: plain strings, no nulls, no escaped keys, iid within uint32.
// ok is false for anything else (DecodeOrderArgs then uses encoding/json).
// When ok, the rows are what orderArgsJSON gives (FuzzOrderArgsDifferential).
func (o Op) OrderArgs() (rows []OrderArg, ok bool) {
	rows, _, ok = o.appendOrderArgs(nil, nil)
	return rows, ok
}

func (o Op) appendOrderArgs(dst []OrderArg, ptrs []string) (rows []OrderArg, _ []string, ok bool) {
	if o.rows != nil {
		return o.orderArgsFromSpans(dst, ptrs)
	}
	b := o.Args
	p := scanner{b: b}
	if p.peek() != '[' {
		return nil, ptrs, false
	}
	p.i++
	rows = dst[:0]
	if dst == nil {
		rows = make([]OrderArg, 0, 1+len(b)/48) // a typical order object is 50+ bytes; append grows for denser ones
	}
	d := argStrings{all: string(b), ptrs: make([]string, 0, 3*cap(rows))}
	first := true
	for {
		more, err := p.more(']', &first)
		if err != nil {
			return nil, ptrs, false
		}
		if !more {
			break
		}
		var v span
		if o.checked {
			v = p.skip()
		} else if v, err = p.value(1); err != nil {
			return nil, ptrs, false
		}
		if b[v.s] != '{' {
			return nil, ptrs, false
		}
		a, ok := d.orderArgAt(b, v)
		if !ok {
			return nil, ptrs, false
		}
		rows = append(rows, a)
	}
	if p.ws(); p.i != len(b) {
		return nil, ptrs, false
	}
	return rows, ptrs, true
}

// argStrings hands out a batch's string values without an allocation each:
// they are substrings of one copy of the args (all) or, when the spans are
// known (plain), of one buffer holding only the values (vals, grown to
// their total up front: one allocation; written bytes never move, so the
// substrings stay valid; a resting order's coid keeps those bytes alive,
// not a copy of the whole args). The optional ones
// point into one backing slice (ptrs; a regrown slice leaves earlier
// pointers on the old array, still valid).
type argStrings struct {
	all   string
	vals  strings.Builder
	ptrs  []string
	plain bool // every string value is plain (checked by Compact); copied into vals
}

// str is the plain string value at v (see plainStringValue). With
// d.plain (the spans of rows Compact found regular) every string is known
// plain and only its type is checked.
func (d *argStrings) str(b []byte, v span) (string, bool) {
	if b[v.s] != '"' {
		return "", false
	}
	if d.plain {
		at := d.vals.Len()
		d.vals.Write(b[v.s+1 : v.e-1])
		return d.vals.String()[at:], true
	}
	if !plainString(b[v.s+1 : v.e-1]) {
		return "", false
	}
	return d.all[v.s+1 : v.e-1], true
}

func (d *argStrings) ptr(b []byte, v span) (*string, bool) {
	s, ok := d.str(b, v)
	if !ok {
		return nil, false
	}
	d.ptrs = append(d.ptrs, s)
	return &d.ptrs[len(d.ptrs)-1], true
}

// orderArgsFromSpans is OrderArgs from the value spans Compact collected:
// the same values (each key once, none escaped), without a second pass over
// the objects.
func (o Op) orderArgsFromSpans(dst []OrderArg, ptrs []string) ([]OrderArg, []string, bool) {
	nf := len(orderRow.fields)
	n := len(o.rows) / nf
	rows := dst[:0]
	if dst == nil || cap(rows) < n {
		rows = make([]OrderArg, 0, n)
	}
	if cap(ptrs) < 3*n {
		ptrs = make([]string, 0, 3*n)
	}
	b := o.Args
	d := argStrings{ptrs: ptrs[:0], plain: true}
	d.vals.Grow(stringBytes(o.rows))
	for i := range n {
		a, ok := d.orderArgSpans(b, o.rows[i*nf:(i+1)*nf])
		if !ok {
			return nil, d.ptrs, false
		}
		rows = append(rows, a)
	}
	return rows, d.ptrs, true
}

// rowStrings are the positions of orderRow's string fields (p, qty, tif,
// c): the values orderArgSpans copies into argStrings.vals.
var rowStrings = func() (at []int) {
	for i, fd := range orderRow.fields {
		if fd.sh.kind == kStr {
			at = append(at, i)
		}
	}
	return at
}()

// stringBytes bounds the bytes of a batch's string values (quotes
// included) from its spans.
func stringBytes(rows []span) int {
	n, nf := 0, len(orderRow.fields)
	for i := 0; i+nf <= len(rows); i += nf {
		for _, f := range rowStrings {
			n += rows[i+f].e - rows[i+f].s
		}
	}
	return n
}

// orderArgSpans decodes one order from its value spans (orderRow's fields:
// iid, buy, p, qty, tif, po, ro, c, tr; zero: absent).
func (d *argStrings) orderArgSpans(b []byte, sp []span) (OrderArg, bool) {
	var a OrderArg
	for i, val := range sp {
		if val.e == 0 {
			continue
		}
		if b[val.s] == 'n' { // null: json decides (as orderArgAt)
			return a, false
		}
		ok := true
		switch i {
		case 0:
			var n uint64
			n, ok = canonicalUint(b[val.s:val.e])
			ok = ok && n <= math.MaxUint32
			a.IID = uint32(n)
		case 1:
			a.Buy, ok = boolAt(b, val)
		case 2:
			a.P, ok = d.ptr(b, val)
		case 3:
			a.Qty, ok = d.str(b, val)
		case 4:
			a.TIF, ok = d.ptr(b, val)
		case 5:
			a.PO, ok = boolAt(b, val)
		case 6:
			a.RO, ok = boolAt(b, val)
		case 7:
			a.C, ok = d.ptr(b, val)
		case 8:
			ok = a.setTriggerAt(b, val)
		default:
			ok = false
		}
		if !ok {
			return a, false
		}
	}
	return a, true
}

// orderArgAt decodes the object at v (syntax already checked).
func (d *argStrings) orderArgAt(b []byte, v span) (OrderArg, bool) {
	var a OrderArg
	p := scanner{b: b[:v.e], i: v.s + 1}
	first := true
	for {
		more, _ := p.more('}', &first)
		if !more {
			return a, true
		}
		k, esc, _ := p.key()
		val := p.skip()             // the object was checked whole
		if esc || b[val.s] == 'n' { // null leaves some fields alone and clears others: json decides
			return a, false
		}
		ok := true
		switch string(b[k.s:k.e]) {
		case "iid":
			var n uint64
			n, ok = canonicalUint(b[val.s:val.e])
			ok = ok && n <= math.MaxUint32
			a.IID = uint32(n)
		case "buy":
			a.Buy, ok = boolAt(b, val)
		case "p":
			a.P, ok = d.ptr(b, val)
		case "qty":
			a.Qty, ok = d.str(b, val)
		case "tif":
			a.TIF, ok = d.ptr(b, val)
		case "po":
			a.PO, ok = boolAt(b, val)
		case "ro":
			a.RO, ok = boolAt(b, val)
		case "c":
			a.C, ok = d.ptr(b, val)
		case "tr":
			ok = a.setTriggerAt(b, val)
		default:
			ok = false
		}
		if !ok {
			return a, false
		}
	}
}

func boolAt(b []byte, v span) (bool, bool) {
	switch b[v.s] {
	case 't':
		return true, true
	case 'f':
		return false, true
	}
	return false, false
}
