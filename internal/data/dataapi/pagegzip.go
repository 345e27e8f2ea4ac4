package dataapi

import (
	"bytes"
	"compress/gzip"
	"container/list"
	"strconv"
	"strings"
)

// Cached pages are also kept gzip-compressed for clients that send
// Accept-Encoding: gzip: on a hit the bytes, not the handler, are the cost
// (the loopback write is most of a hit's CPU), and a feed page of ~85 KB
// compresses ~8×. The compressed form is made once per entry, on the first
// hit that asks for it, and counts against the cache's bound while the entry
// is cached. Misses go out uncompressed (compressing there would add to the
// slowest requests). Same rule as the catalog's cache (docs/catalog.md).

// gzipped returns el's compressed body, making it on first use; nil when
// compressing does not shrink it.
func (c *pageCache) gzipped(el *list.Element) []byte {
	e := el.Value.(*pageEntry)
	e.gzOnce.Do(func() {
		var buf bytes.Buffer
		zw, _ := gzip.NewWriterLevel(&buf, gzip.BestSpeed)
		_, _ = zw.Write(e.body)
		if zw.Close() != nil || buf.Len() >= len(e.body) {
			return
		}
		gz := buf.Bytes()
		c.mu.Lock()
		defer c.mu.Unlock()
		e.gz = gz
		if c.m[e.key] == el { // still cached: the bound counts it
			c.bytes += int64(len(gz))
			for c.bytes > c.max && c.lru.Len() > 1 {
				c.remove(c.lru.Back())
				c.evictions.Add(1)
			}
			c.size.Store(c.bytes)
		}
	})
	return e.gz
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

// qNonZero reads the q parameter of one coding ("q=0.5"); absent means 1,
// a malformed q counts as 0 (refuse what cannot be read).
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
