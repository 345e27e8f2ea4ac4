package dataapi

import (
	"bytes"
	"compress/gzip"
	"container/list"
	"strconv"
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
		e.gz, e.gzlen = gz, []string{strconv.Itoa(len(gz))}
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
