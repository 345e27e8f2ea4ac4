package perpsauth

import "errors"

// A minimal JSON scanner for Compact: it validates syntax (RFC 8259) and
// reports value spans, so the compact form is built in one streaming pass
// without a generic tree. Decoding of escaped strings is left to
// encoding/json (rare path).

var errSyntax = errors.New("malformed JSON")

// maxDepth bounds nesting; no compact form nests deeper than 4.
const maxDepth = 32

type span struct{ s, e int } // value bytes b[s:e]

type scanner struct {
	b []byte
	i int
}

func (p *scanner) ws() {
	for p.i < len(p.b) {
		switch p.b[p.i] {
		case ' ', '\t', '\n', '\r':
			p.i++
		default:
			return
		}
	}
}

// peek returns the next non-space byte, 0 at the end (a NUL byte is never
// valid outside strings, so the two need no telling apart).
func (p *scanner) peek() byte {
	p.ws()
	if p.i < len(p.b) {
		return p.b[p.i]
	}
	return 0
}

// more steps through the members of an object or elements of an array whose
// opening bracket was consumed: it returns true when another entry follows
// and false after consuming the closing bracket.
func (p *scanner) more(closing byte, first *bool) (bool, error) {
	c := p.peek()
	if c == closing { // "[]" or the end after an entry
		p.i++
		return false, nil
	}
	if *first {
		*first = false
		return true, nil
	}
	if c != ',' {
		return false, errSyntax
	}
	p.i++
	return true, nil
}

// key reads `"name" :` and returns the name's span (without quotes) and
// whether it contains escapes.
func (p *scanner) key() (span, bool, error) {
	if p.peek() != '"' {
		return span{}, false, errSyntax
	}
	sp, esc, err := p.str()
	if err != nil {
		return span{}, false, err
	}
	if p.peek() != ':' {
		return span{}, false, errSyntax
	}
	p.i++
	return span{sp.s + 1, sp.e - 1}, esc, nil
}

// str scans a string at p.i (on the opening quote); the span includes quotes.
func (p *scanner) str() (span, bool, error) {
	start := p.i
	p.i++
	esc := false
	for p.i < len(p.b) {
		c := p.b[p.i]
		switch {
		case c == '"':
			p.i++
			return span{start, p.i}, esc, nil
		case c < 0x20:
			return span{}, false, errSyntax
		case c == '\\':
			esc = true
			if p.i+1 >= len(p.b) {
				return span{}, false, errSyntax
			}
			switch p.b[p.i+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				p.i += 2
			case 'u':
				if p.i+6 > len(p.b) {
					return span{}, false, errSyntax
				}
				for _, h := range p.b[p.i+2 : p.i+6] {
					if !isHex(h) {
						return span{}, false, errSyntax
					}
				}
				p.i += 6
			default:
				return span{}, false, errSyntax
			}
		default:
			p.i++
		}
	}
	return span{}, false, errSyntax
}

func isHex(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F'
}

// value skips one value and returns its span.
func (p *scanner) value(depth int) (span, error) {
	if depth > maxDepth {
		return span{}, errSyntax
	}
	c := p.peek()
	start := p.i
	switch {
	case c == '"':
		sp, _, err := p.str()
		return sp, err
	case c == '{' || c == '[':
		closing := byte('}')
		if c == '[' {
			closing = ']'
		}
		p.i++
		first := true
		for {
			ok, err := p.more(closing, &first)
			if err != nil {
				return span{}, err
			}
			if !ok {
				return span{start, p.i}, nil
			}
			if c == '{' {
				if _, _, err := p.key(); err != nil {
					return span{}, err
				}
			}
			if _, err := p.value(depth + 1); err != nil {
				return span{}, err
			}
		}
	case c == 't':
		return p.literal("true")
	case c == 'f':
		return p.literal("false")
	case c == 'n':
		return p.literal("null")
	case c == '-' || c >= '0' && c <= '9':
		return p.number()
	}
	return span{}, errSyntax
}

// skip steps over one value that value has already checked and returns its
// span. It only matches brackets and steps over strings, checking nothing:
// the re-walks inside a checked value (Compact's shaping, OrderArgs' fields)
// cost a fraction of a checking pass. On input value would refuse its span
// is meaningless, but it never leaves b.
func (p *scanner) skip() span {
	p.ws()
	start, depth := p.i, 0
	for p.i < len(p.b) {
		c := p.b[p.i]
		switch c {
		case '"':
			for p.i++; p.i < len(p.b) && p.b[p.i] != '"'; p.i++ {
				if p.b[p.i] == '\\' {
					p.i++
				}
			}
			p.i = min(p.i, len(p.b)-1) // on the closing quote
		case '{', '[':
			depth++
		case '}', ']':
			if depth == 0 { // a scalar ends at its container's bracket
				return span{start, p.i}
			}
			depth--
		case ',', ':', ' ', '\t', '\n', '\r':
			if depth == 0 {
				return span{start, p.i}
			}
		}
		p.i++
		if depth == 0 && (c == '"' || c == '}' || c == ']') {
			return span{start, p.i}
		}
	}
	return span{start, p.i}
}

func (p *scanner) literal(lit string) (span, error) {
	if len(p.b)-p.i < len(lit) || string(p.b[p.i:p.i+len(lit)]) != lit {
		return span{}, errSyntax
	}
	p.i += len(lit)
	return span{p.i - len(lit), p.i}, nil
}

// number: -? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?
func (p *scanner) number() (span, error) {
	start := p.i
	digits := func() int {
		n := 0
		for p.i < len(p.b) && p.b[p.i] >= '0' && p.b[p.i] <= '9' {
			p.i++
			n++
		}
		return n
	}
	if p.b[p.i] == '-' {
		p.i++
	}
	if p.i < len(p.b) && p.b[p.i] == '0' {
		p.i++
	} else if digits() == 0 {
		return span{}, errSyntax
	}
	if p.i < len(p.b) && p.b[p.i] == '.' {
		p.i++
		if digits() == 0 {
			return span{}, errSyntax
		}
	}
	if p.i < len(p.b) && (p.b[p.i] == 'e' || p.b[p.i] == 'E') {
		p.i++
		if p.i < len(p.b) && (p.b[p.i] == '+' || p.b[p.i] == '-') {
			p.i++
		}
		if digits() == 0 {
			return span{}, errSyntax
		}
	}
	return span{start, p.i}, nil
}
