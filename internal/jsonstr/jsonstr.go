// Package jsonstr writes JSON strings exactly as encoding/json does, with
// SetEscapeHTML(false) (Append) or by default (AppendHTML): the one escaper
// of pmx's hand-written encoders (the data service's feed rows, the
// ledger's NDJSON, the CLOB's snapshot and order answers). It reads eight plain bytes
// per step, since most text (ids, hashes, titles, URLs) needs no escaping.
package jsonstr

import "unicode/utf8"

const hexDigits = "0123456789abcdef"

// Append appends s as a JSON string, escaping as encoding/json
// does without HTML escaping: quote, backslash and control bytes; invalid
// UTF-8 becomes \ufffd; U+2028 and U+2029 are escaped.
func Append(b []byte, s string) []byte { return appendString(b, s, false) }

// AppendHTML is Append with encoding/json's default HTML escaping as well
// (<, > and & as \u003c, \u003e, \u0026): json.Marshal's bytes, for
// encoders held byte-equal to it.
func AppendHTML(b []byte, s string) []byte { return appendString(b, s, true) }

func appendString(b []byte, s string, html bool) []byte {
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		for i+8 <= len(s) { // most bytes need no escaping
			if x := word8(s[i : i+8]); !plain8(x) || html && htmlIn8(x) {
				break
			}
			i += 8
		}
		if i == len(s) {
			break
		}
		c := s[i]
		if c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' && !(html && (c == '<' || c == '>' || c == '&')) {
				i++
				continue
			}
			b = append(b, s[start:i]...)
			switch c {
			case '\\', '"':
				b = append(b, '\\', c)
			case '\b':
				b = append(b, '\\', 'b')
			case '\f':
				b = append(b, '\\', 'f')
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			default: // control bytes, and <, >, & under AppendHTML
				b = append(b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xF])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			b = append(b, s[start:i]...)
			b = append(b, `\ufffd`...)
			i += size
			start = i
			continue
		}
		if r == '\u2028' || r == '\u2029' {
			b = append(b, s[start:i]...)
			b = append(b, '\\', 'u', '2', '0', '2', hexDigits[r&0xF])
			i += size
			start = i
			continue
		}
		i += size
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}

// word8 is the 8 bytes of s as one little-endian word (one load).
func word8(s string) uint64 {
	_ = s[7]
	return uint64(s[0]) | uint64(s[1])<<8 | uint64(s[2])<<16 | uint64(s[3])<<24 |
		uint64(s[4])<<32 | uint64(s[5])<<40 | uint64(s[6])<<48 | uint64(s[7])<<56
}

// ones and highs are 0x01 and 0x80 in every byte of a word.
const ones, highs = 0x0101010101010101, 0x8080808080808080

// plain8 reports whether the 8 bytes of x are all printable ASCII other
// than quote and backslash (copied verbatim by Append). Per byte,
// (v - 0x01) & ^v has its high bit set exactly when v is 0 (for the
// comparisons with '"' and '\\') and (x - 0x20) & ^x when x < 0x20; any
// set high bit in x itself is a non-ASCII byte.
func plain8(x uint64) bool {
	q, bs := x^('"'*ones), x^('\\'*ones)
	return ((x-0x20*ones)&^x|(q-ones)&^q|(bs-ones)&^bs|x)&highs == 0
}

// htmlIn8 reports whether any of the 8 bytes of x is <, > or & (the
// zero-byte test of plain8, per character).
func htmlIn8(x uint64) bool {
	lt, gt, amp := x^('<'*ones), x^('>'*ones), x^('&'*ones)
	return ((lt-ones)&^lt|(gt-ones)&^gt|(amp-ones)&^amp)&highs != 0
}
