package perpsauth

import (
	"encoding/json"
	"slices"
	"strconv"
	"sync"
	"unicode/utf8"

	"pmx/internal/crypto/msgpack"
)

// Compact parses a keyed op object and returns it with the MessagePack bytes
// of its compact form ([type, args(, grp)]), whose keccak256 is the Op data.
// Strings are taken exactly as sent (after JSON unescaping), never
// re-formatted: "100.50" keeps its zero, addresses keep their case.
// Op.Args aliases raw.
//
// It streams: one syntax pass per value, no generic tree. Semantics match
// encoding/json (duplicate keys: last wins; keys compared after unescaping,
// case-sensitively); FuzzCompactDifferential holds it to a reference built on
// encoding/json.
func Compact(raw json.RawMessage) (Op, []byte, error) { return compact(raw, nil, false) }

// compact is Compact appending the packed form to packed and, with pooled,
// taking a batch's row spans from rowBufs (Op.ReleaseRows gives them back).
func compact(raw json.RawMessage, packed []byte, pooled bool) (Op, []byte, error) {
	p := scanner{b: raw}
	if p.peek() != '{' {
		return Op{}, nil, invalid("op must be an object")
	}
	var typ, args, grp span
	p.i++
	first := true
	for {
		ok, err := p.more('}', &first)
		if err != nil {
			return Op{}, nil, invalid("op: %v", err)
		}
		if !ok {
			break
		}
		k, esc, err := p.key()
		if err != nil {
			return Op{}, nil, invalid("op: %v", err)
		}
		v, err := p.value(1)
		if err != nil {
			return Op{}, nil, invalid("op: %v", err)
		}
		switch name := keyName(raw, k, esc); name {
		case "type":
			typ = v
		case "args":
			args = v
		case "grp":
			grp = v
		default:
			return Op{}, nil, invalid("op: unknown field %q", name)
		}
	}
	if p.ws(); p.i != len(raw) {
		return Op{}, nil, invalid("op: trailing data")
	}

	var op Op
	if typ.e == 0 || raw[typ.s] != '"' {
		return Op{}, nil, invalid("op.type must be a string")
	}
	op.Type = stringValue(raw, typ)
	spec, ok := ops[op.Type]
	if !ok {
		if op.Type == "" {
			return Op{}, nil, invalid("op.type must be a string")
		}
		return Op{}, nil, invalid("unknown op type %q", op.Type)
	}
	hasGrp := grp.e != 0 && !isNullSpan(raw, grp)
	if hasGrp {
		if !spec.grp {
			return Op{}, nil, invalid("op.grp not allowed on %s", op.Type)
		}
		if raw[grp.s] != '"' {
			return Op{}, nil, invalid("op.grp must be a string")
		}
		op.Grp = stringValue(raw, grp)
	}
	if args.e == 0 || isNullSpan(raw, args) {
		return Op{}, nil, invalid("op.args missing")
	}
	op.Args, op.checked = raw[args.s:args.e], true
	var rows *rowSpans
	var local rowSpans // Compact's: stays on the stack
	if op.Type == "createOrders" {
		need := len(orderRow.fields) * (1 + len(op.Args)/48)
		rows = &local
		if pooled {
			pr := rowBufs.Get().(*rowSpans)
			rows, op.rowBuf = pr, pr
		}
		if cap(rows.spans) < need {
			rows.spans = make([]span, 0, need)
		}
	}

	out := packed[:0]
	if cap(out) < 16+len(op.Args) {
		out = make([]byte, 0, 16+len(op.Args))
	}
	if hasGrp {
		out = append(out, 0x93)
	} else {
		out = append(out, 0x92)
	}
	out = msgpack.AppendString(out, op.Type)
	out, err := appendShaped(out, raw, args, spec.args, rows)
	if err != nil {
		return Op{}, nil, invalid("args%v", err)
	}
	if rows != nil && !rows.irregular {
		for i := range rows.spans {
			if sp := &rows.spans[i]; sp.e != 0 { // relative to Args (absent stays zero)
				sp.s, sp.e = sp.s-args.s, sp.e-args.s
			}
		}
		op.rows = rows.spans
	}
	if hasGrp {
		out = msgpack.AppendString(out, op.Grp)
	}
	return op, out, nil
}

// pathError carries the location of a shape error, built outward on return.
type pathError struct{ path, msg string }

func (e *pathError) Error() string { return e.path + ": " + e.msg }

func at(err error, seg string) error {
	if pe, ok := err.(*pathError); ok {
		return &pathError{seg + pe.path, pe.msg}
	}
	return &pathError{seg, err.Error()}
}

func want(msg string) error { return &pathError{"", msg} }

func isNullSpan(b []byte, v span) bool { return b[v.s] == 'n' }

// keyName returns an object key (unescaped if needed).
func keyName(b []byte, k span, esc bool) string {
	if !esc {
		return string(b[k.s:k.e])
	}
	var s string
	json.Unmarshal(b[k.s-1:k.e+1], &s) // valid by construction
	return s
}

// stringValue returns the value of a string span (quotes included).
func stringValue(b []byte, v span) string {
	raw := b[v.s+1 : v.e-1]
	if plainString(raw) {
		return string(raw)
	}
	var s string
	json.Unmarshal(b[v.s:v.e], &s) // valid by construction
	return s
}

// plainString: no escapes and valid UTF-8, so the bytes are the value
// (encoding/json would replace invalid UTF-8 with U+FFFD).
func plainString(raw []byte) bool {
	return !slices.Contains(raw, '\\') && utf8.Valid(raw)
}

// rowBufs recycles the row spans of verified batches (compact with pooled;
// Op.ReleaseRows). A batch of MaxBatch orders needs under maxPooledSpans.
var rowBufs = sync.Pool{New: func() any { return new(rowSpans) }}

const maxPooledSpans = 4096

// ReleaseRows hands the row spans Compact collected back for reuse, once
// the rows are decoded; o scans its args if decoded again. Call it at most
// once per verified op, and only on the one copy still in use.
func (o *Op) ReleaseRows() {
	if b := o.rowBuf; b != nil && cap(b.spans) <= maxPooledSpans {
		b.spans, b.irregular = b.spans[:0], false
		rowBufs.Put(b)
	}
	o.rowBuf, o.rows = nil, nil
}

// rowSpans collects, while Compact shapes createOrders args, each order
// object's value spans in orderRow's field order (a zero span: key absent),
// so OrderArgs reads the values without scanning the objects again.
// Irregular objects (a key escaped or repeated, a string value escaped or
// not UTF-8) are left to OrderArgs' own pass, which gives up on them exactly
// as before.
type rowSpans struct {
	spans     []span // spans relative to the op's raw bytes
	irregular bool
}

// appendShaped encodes the non-null value at v according to sh; rows, if
// not nil, collects the spans of the objects of an array (createOrders).
func appendShaped(dst, b []byte, v span, sh shape, rows *rowSpans) ([]byte, error) {
	switch sh.kind {
	case kStr:
		dst, _, err := appendStr(dst, b, v)
		return dst, err
	case kBool:
		switch b[v.s] {
		case 't':
			return msgpack.AppendBool(dst, true), nil
		case 'f':
			return msgpack.AppendBool(dst, false), nil
		}
		return nil, want("want boolean")
	case kUint:
		n, ok := canonicalUint(b[v.s:v.e])
		if !ok {
			if c := b[v.s]; c == '-' || c >= '0' && c <= '9' {
				return nil, want("want non-negative integer")
			}
			return nil, want("want integer")
		}
		return msgpack.AppendUint(dst, n), nil
	case kArr:
		return appendArray(dst, b, v, *sh.elem, rows)
	case kObj:
		return appendObject(dst, b, v, sh.fields, rows)
	}
	return nil, want("unsupported")
}

// appendStr encodes the string at v; plain reports that it needed no
// unescaping (plainString).
func appendStr(dst, b []byte, v span) (out []byte, plain bool, err error) {
	if b[v.s] != '"' {
		return nil, false, want("want string")
	}
	raw := b[v.s+1 : v.e-1]
	if plainString(raw) {
		return msgpack.AppendStringBytes(dst, raw), true, nil
	}
	return msgpack.AppendString(dst, stringValue(b, v)), false, nil
}

func appendArray(dst, b []byte, v span, elem shape, rows *rowSpans) ([]byte, error) {
	if b[v.s] != '[' {
		return nil, want("want array")
	}
	p := scanner{b: b[:v.e], i: v.s + 1}
	start, n, first := len(dst), 0, true
	for {
		ok, _ := p.more(']', &first) // syntax already checked
		if !ok {
			break
		}
		e := p.skip()
		if isNullSpan(b, e) {
			// null has no agreed compact meaning inside an array.
			return nil, at(want("null"), "["+strconv.Itoa(n)+"]")
		}
		var err error
		if dst, err = appendShaped(dst, b, e, elem, rows); err != nil {
			return nil, at(err, "["+strconv.Itoa(n)+"]")
		}
		n++
	}
	hdr := msgpack.AppendArrayHeader(nil, n)
	if len(hdr) == 1 {
		dst = append(dst, 0)
		copy(dst[start+1:], dst[start:len(dst)-1])
		dst[start] = hdr[0]
		return dst, nil
	}
	return slices.Insert(dst, start, hdr...), nil
}

// maxFields bounds the slots of any compact object (createTwap has 11).
const maxFields = 12

// appendObject writes the object's values as a positional array in field
// order, dropping absent slots.
func appendObject(dst, b []byte, v span, fields []field, rows *rowSpans) ([]byte, error) {
	if b[v.s] != '{' {
		return nil, want("want object")
	}
	var spans [maxFields]span // zero span: key absent
	p := scanner{b: b[:v.e], i: v.s + 1}
	first := true
	for {
		ok, _ := p.more('}', &first) // syntax already checked
		if !ok {
			break
		}
		k, esc, _ := p.key()
		val := p.skip()
		idx := -1
		if esc {
			name := keyName(b, k, esc)
			idx = slices.IndexFunc(fields, func(fd field) bool { return fd.name == name })
		} else {
			for i := range fields {
				if fields[i].name == string(b[k.s:k.e]) {
					idx = i
					break
				}
			}
		}
		if idx < 0 {
			name := keyName(b, k, esc)
			return nil, want("unknown field " + strconv.Quote(name))
		}
		if rows != nil && (esc || spans[idx].e != 0) {
			rows.irregular = true
		}
		spans[idx] = val // last occurrence wins, as in encoding/json
	}
	if rows != nil {
		rows.spans = append(rows.spans, spans[:len(fields)]...)
	}
	// Decide presence first: the array header needs the count.
	var present [maxFields]bool
	n := 0
	for i, fd := range fields {
		sp := spans[i]
		switch {
		case sp.e == 0 || isNullSpan(b, sp):
			present[i] = fd.def != nil
		case fd.trueOnly: // tr.market: present only when true
			if c := b[sp.s]; c != 't' && c != 'f' {
				return nil, at(want("want boolean"), "."+fd.name)
			}
			present[i] = b[sp.s] == 't'
		default:
			present[i] = true
		}
		if present[i] {
			n++
		}
	}
	later := false
	for i := len(fields) - 1; i >= 0; i-- {
		if fields[i].pad && !present[i] && later {
			present[i] = true
			n++
		}
		later = later || present[i]
	}
	dst = msgpack.AppendArrayHeader(dst, n)
	for i, fd := range fields {
		if !present[i] {
			continue
		}
		sp := spans[i]
		if sp.e == 0 || isNullSpan(b, sp) {
			if fd.pad {
				dst = msgpack.AppendUint(dst, 0)
				continue
			}
			dst = msgpack.AppendBool(dst, fd.def.(bool)) // defaults are booleans
			continue
		}
		var err error
		if rows != nil && fd.sh.kind == kStr {
			// A row's strings are read back from their spans unchecked
			// (orderArgsFromSpans): an escaped one sends the row to the scan.
			var plain bool
			dst, plain, err = appendStr(dst, b, sp)
			rows.irregular = rows.irregular || !plain
		} else {
			dst, err = appendShaped(dst, b, sp, fd.sh, nil)
		}
		if err != nil {
			return nil, at(err, "."+fd.name)
		}
	}
	return dst, nil
}

// canonicalUint parses digits without sign, fraction, exponent or leading
// zero that fit in uint64: JSON.stringify and Python's json write integers
// this way, and other spellings would make the signed value ambiguous.
func canonicalUint(s []byte) (uint64, bool) {
	if len(s) == 0 || len(s) > 20 || (len(s) > 1 && s[0] == '0') {
		return 0, false
	}
	var n uint64
	for _, c := range s {
		if c < '0' || c > '9' {
			return 0, false
		}
		d := uint64(c - '0')
		if n > (1<<64-1-d)/10 {
			return 0, false
		}
		n = n*10 + d
	}
	return n, true
}
