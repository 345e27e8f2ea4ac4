package cataloghttp

import (
	"bytes"
	"compress/gzip"
	"strconv"
	"strings"
)

// Cached answers are also kept gzip-compressed for clients that send
// Accept-Encoding: gzip (the official clients do; production serves the
// catalog compressed). A listing page of 20 events is ~200 KB of JSON and
// ~20 KB compressed: on loopback the bytes, not the handler, are the cost of
// a cache hit, so the compressed form is made once per entry, on the first
// request that asks for it, and served from then on. Answers rendered on a
// miss go out uncompressed (compressing them there would add to the
// slowest requests).

var (
	varyAcceptEncoding  = []string{"Accept-Encoding"}
	contentEncodingGzip = []string{"gzip"}
)

// gzipLevel trades ratio for time on the request that compresses:
// BestSpeed takes ~1.3 ms for a 200 KB page (10x smaller).
const gzipLevel = gzip.BestSpeed

// gzipped returns e's compressed body and its Content-Length value, making
// them on first use; nil when compressing does not shrink the body.
func (c *respCache) gzipped(e *respEntry) ([]byte, []string) {
	e.gzOnce.Do(func() {
		var buf bytes.Buffer
		zw, _ := gzip.NewWriterLevel(&buf, gzipLevel)
		_, _ = zw.Write(e.body)
		if zw.Close() != nil || buf.Len() >= len(e.body) {
			return
		}
		c.mu.Lock()
		defer c.mu.Unlock()
		e.gz, e.gzLength = buf.Bytes(), []string{strconv.Itoa(buf.Len())}
		// Count the new bytes only while e is cached (an evicted entry is no
		// longer in the bound's total).
		if el, ok := c.entries[e.key]; ok && el.Value.(*respEntry) == e {
			c.size += len(e.gz)
			c.evict()
		}
	})
	return e.gz, e.gzLength
}

// acceptsGzip reports whether Accept-Encoding values (RFC 9110 §12.5.3)
// accept gzip: a "gzip" or "x-gzip" coding, or "*", with a non-zero q. An
// explicit gzip;q=0 refuses it even if "*" is listed.
func acceptsGzip(values []string) bool {
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
