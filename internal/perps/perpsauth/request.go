package perpsauth

import (
	"bytes"
	"encoding/json"
)

// parseRequestFast decodes the envelope every client sends (the fields by
// their exact names, each once, plain strings, canonical integers) in one
// scanner pass. Anything else, including every malformed body, reports
// false and goes through encoding/json, whose result and error texts stay
// the reference: when this accepts a body, json.Unmarshal would have
// produced the same Request (FuzzParseRequestDifferential).
func parseRequestFast(body []byte) (*Request, bool) {
	p := scanner{b: body}
	if p.peek() != '{' {
		return nil, false
	}
	p.i++
	var r Request
	var seen uint8 // bit per field: a repeated key goes the slow way
	first := true
	for {
		ok, err := p.more('}', &first)
		if err != nil {
			return nil, false
		}
		if !ok {
			break
		}
		k, esc, err := p.key()
		if err != nil || esc {
			return nil, false
		}
		var v span
		var n int
		var known bool
		if string(body[k.s:k.e]) == "op" {
			v, n, known, err = p.opArgs(1)
		} else {
			v, err = p.value(1)
		}
		if err != nil {
			return nil, false
		}
		var bit uint8
		switch string(body[k.s:k.e]) {
		case "op":
			if body[v.s] != '{' {
				return nil, false
			}
			r.Op = bytes.Clone(body[v.s:v.e]) // json.Unmarshal copies a RawMessage too
			r.args, r.counted = n, known
			bit = 1
		case "sig":
			s, ok := plainStringValue(body, v)
			if !ok {
				return nil, false
			}
			r.Sig, bit = s, 2
		case "salt":
			if r.Salt, ok = canonicalUint(body[v.s:v.e]); !ok {
				return nil, false
			}
			bit = 4
		case "ts":
			if r.Ts, ok = canonicalUint(body[v.s:v.e]); !ok {
				return nil, false
			}
			bit = 8
		case "exp":
			n, ok := canonicalInt(body[v.s:v.e])
			if !ok {
				return nil, false
			}
			r.Exp, bit = &n, 16
		case "label":
			s, ok := plainStringValue(body, v)
			if !ok {
				return nil, false
			}
			r.Label, bit = &s, 32
		case "code":
			s, ok := plainStringValue(body, v)
			if !ok {
				return nil, false
			}
			r.Code, bit = &s, 64
		default: // unknown (ignored by json, but perhaps a case variant of a known name)
			return nil, false
		}
		if seen&bit != 0 {
			return nil, false
		}
		seen |= bit
	}
	if p.ws(); p.i != len(body) || seen&1 == 0 {
		return nil, false
	}
	return &r, true
}

// plainStringValue is a string value without escapes in valid UTF-8 (its
// bytes are its value).
func plainStringValue(b []byte, v span) (string, bool) {
	if b[v.s] != '"' {
		return "", false
	}
	raw := b[v.s+1 : v.e-1]
	if !plainString(raw) {
		return "", false
	}
	return string(raw), true
}

// canonicalInt is canonicalUint with an optional minus sign, within int64.
func canonicalInt(s []byte) (int64, bool) {
	neg := len(s) > 0 && s[0] == '-'
	if neg {
		s = s[1:]
	}
	n, ok := canonicalUint(s)
	switch {
	case !ok:
		return 0, false
	case neg && n <= 1<<63:
		return int64(-n), true // -(1<<63) wraps to itself: the minimum
	case !neg && n < 1<<63:
		return int64(n), true
	}
	return 0, false
}

func plainASCII(b []byte) bool {
	for _, c := range b {
		if c >= 0x80 {
			return false
		}
	}
	return true
}

// ArgCount is ArgCount(r.Op), counted while the envelope was parsed when
// the fast path could.
func (r *Request) ArgCount() int {
	if r.counted {
		return r.args
	}
	return ArgCount(r.Op)
}

// ArgCount is the number of elements of op.args as encoding/json sees it
// (decoding op into struct{ Args []json.RawMessage }): 0 when op is not an
// object, args is absent, null or not an array, or op is malformed. Request
// weights are charged by it before anything is verified.
func ArgCount(op json.RawMessage) int {
	if n, ok := argCountFast(op); ok {
		return n
	}
	var o struct {
		Args []json.RawMessage `json:"args"`
	}
	if json.Unmarshal(op, &o) != nil {
		return 0
	}
	return len(o.Args)
}

// argCountFast handles ops whose keys are plain and whose only key matching
// "args" (json matches names case-insensitively) is exactly "args".
func argCountFast(op []byte) (int, bool) {
	p := scanner{b: op}
	_, n, known, err := p.opArgs(0)
	if err != nil {
		return 0, true // malformed: json.Unmarshal fails too
	}
	if p.ws(); p.i != len(op) {
		return 0, true
	}
	return n, known
}

// opArgs checks the object at p (an op, at depth) as value(depth) does and
// counts its args on the way: one pass where a checking walk and a count
// were two. known is false where ArgCount must ask encoding/json (a key
// that only matches "args" case-insensitively, an escaped or non-ASCII key,
// args neither an array nor null); the object is still checked then.
func (p *scanner) opArgs(depth int) (v span, n int, known bool, err error) {
	if depth > maxDepth || p.peek() != '{' {
		sp, err := p.value(depth)
		return sp, 0, false, err
	}
	start := p.i
	p.i++
	known = true
	for first := true; ; {
		more, err := p.more('}', &first)
		if err != nil {
			return span{}, 0, false, err
		}
		if !more {
			return span{start, p.i}, n, known, nil
		}
		k, esc, err := p.key()
		if err != nil {
			return span{}, 0, false, err
		}
		key := p.b[k.s:k.e]
		isArgs := !esc && bytes.Equal(key, []byte("args"))
		if esc || !plainASCII(key) || (!isArgs && bytes.EqualFold(key, []byte("args"))) {
			known = false
		}
		if isArgs && p.peek() == '[' {
			p.i++
			n = 0
			for f := true; ; n++ {
				more, err := p.more(']', &f)
				if err != nil {
					return span{}, 0, false, err
				}
				if !more {
					break
				}
				if _, err := p.value(depth + 2); err != nil {
					return span{}, 0, false, err
				}
			}
			continue
		}
		v, err := p.value(depth + 1)
		if err != nil {
			return span{}, 0, false, err
		}
		if isArgs {
			if p.b[v.s] == 'n' {
				n = 0
			} else { // a type error, which json reports even if a later args is an array
				known = false
			}
		}
	}
}
