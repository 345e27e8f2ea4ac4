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
		v, err := p.value(1)
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
	if p.peek() != '{' {
		return 0, false
	}
	p.i++
	n, first := 0, true
	for {
		ok, err := p.more('}', &first)
		if err != nil {
			return 0, true // malformed: json.Unmarshal fails too
		}
		if !ok {
			break
		}
		k, esc, err := p.key()
		if err != nil {
			return 0, true
		}
		key := op[k.s:k.e]
		if esc || !plainASCII(key) || (!bytes.Equal(key, []byte("args")) && bytes.EqualFold(key, []byte("args"))) {
			return 0, false
		}
		if bytes.Equal(key, []byte("args")) && p.peek() == '[' {
			// Count while checking: one pass over the batch.
			p.i++
			n = 0
			for f := true; ; n++ {
				more, err := p.more(']', &f)
				if err != nil {
					return 0, true
				}
				if !more {
					break
				}
				if _, err := p.value(2); err != nil {
					return 0, true
				}
			}
			continue
		}
		v, err := p.value(1)
		if err != nil {
			return 0, true
		}
		if !bytes.Equal(key, []byte("args")) {
			continue
		}
		switch op[v.s] {
		case 'n':
			n = 0
		default: // a type error, which json reports even if a later args is an array
			return 0, false
		}
	}
	if p.ws(); p.i != len(op) {
		return 0, true
	}
	return n, true
}
