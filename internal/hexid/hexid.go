// Package hexid checks 0x-prefixed hex identifiers (EVM addresses,
// condition ids, transaction hashes) and gives each one spelling.
package hexid

import "strings"

// Canonical reports whether s is "0x" or "0X" followed by exactly n > 0 hex
// digits of either case, and returns it as "0x" + lower-case digits, the one
// spelling stores and keys use. An s already in that form is returned as is
// (no allocation: the hot ingest path sees mostly canonical ids).
func Canonical(s string, n int) (string, bool) {
	if n <= 0 || len(s) != 2+n || s[0] != '0' || (s[1] != 'x' && s[1] != 'X') {
		return "", false
	}
	canonical := s[1] == 'x'
	for i := 2; i < len(s); i++ {
		switch c := s[i]; {
		case '0' <= c && c <= '9', 'a' <= c && c <= 'f':
		case 'A' <= c && c <= 'F':
			canonical = false
		default:
			return "", false
		}
	}
	if canonical {
		return s, true
	}
	return "0x" + strings.ToLower(s[2:]), true
}
