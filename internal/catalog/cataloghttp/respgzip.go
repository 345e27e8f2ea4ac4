package cataloghttp

import (
	"bytes"
	"compress/gzip"
	"strconv"
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
