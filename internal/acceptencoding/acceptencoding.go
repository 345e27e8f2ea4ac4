// Package acceptencoding reads a request's Accept-Encoding header (RFC 9110
// §12.5.3): whether the client takes a gzip-compressed answer. The data
// service's page cache and the catalog's response cache both serve their
// cached bodies compressed to clients that do.
package acceptencoding

import (
	"strconv"
	"strings"
)

// Gzip reports whether Accept-Encoding values accept gzip: a "gzip" or
// "x-gzip" coding, or "*", with a non-zero q. An explicit gzip;q=0 refuses
// it even if "*" is listed.
func Gzip(values []string) bool {
	star, gz := false, 0 // gz: 0 unseen, 1 accepted, -1 refused
	for _, v := range values {
		for part := range strings.SplitSeq(v, ",") {
			coding, params, _ := strings.Cut(part, ";")
			coding = strings.TrimSpace(coding)
			ok := qNonZero(params)
			switch {
			case strings.EqualFold(coding, "gzip") || strings.EqualFold(coding, "x-gzip"):
				if !ok {
					gz = -1
				} else if gz == 0 {
					gz = 1
				}
			case coding == "*":
				star = ok
			}
		}
	}
	return gz == 1 || (gz == 0 && star)
}

// qNonZero reads the q parameter of one coding's parameters ("q=0.5");
// absent means 1. A malformed q counts as 0: refuse what cannot be read.
func qNonZero(params string) bool {
	for p := range strings.SplitSeq(params, ";") {
		k, v, ok := strings.Cut(strings.TrimSpace(p), "=")
		if !ok || !strings.EqualFold(strings.TrimSpace(k), "q") {
			continue
		}
		q, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
		return err == nil && q > 0 && q <= 1
	}
	return true
}
