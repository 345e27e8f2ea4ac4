package cataloghttp

import (
	"bytes"
	"compress/gzip"
	"container/list"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"testing"
)

// TestRespCacheServesGzip: a cache hit for a client that accepts gzip is
// the same body compressed, with Content-Encoding, its own Content-Length
// and Vary; a client that does not gets the identity body; the compressed
// bytes count against the bound.
func TestRespCacheServesGzip(t *testing.T) {
	g := &fixedGen{1, 1}
	c := &respCache{store: g, live: g, max: 1 << 20, entries: map[string]*list.Element{}, inflight: map[string]*respCall{}}
	body := bytes.Repeat([]byte(`{"id":"1","title":"Will it rain?"},`), 200)
	render := func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Content-Length", strconv.Itoa(len(body)))
		w.Write(body)
	}
	get := func(ae string) *httptest.ResponseRecorder {
		r := httptest.NewRequest(http.MethodGet, "/events?limit=20", nil)
		if ae != "" {
			r.Header.Set("Accept-Encoding", ae)
		}
		w := httptest.NewRecorder()
		c.serve(w, r, render)
		return w
	}
	if w := get("gzip"); w.Header().Get("Content-Encoding") != "" || !bytes.Equal(w.Body.Bytes(), body) {
		t.Fatal("the rendering miss must answer uncompressed")
	}
	sizeBefore := c.size
	w := get("gzip, deflate")
	if w.Header().Get("Content-Encoding") != "gzip" || w.Header().Get("Vary") != "Accept-Encoding" {
		t.Fatalf("headers %v", w.Header())
	}
	if w.Header().Get("Content-Length") != strconv.Itoa(w.Body.Len()) || w.Body.Len() >= len(body) {
		t.Fatalf("Content-Length %q for %d compressed bytes of %d", w.Header().Get("Content-Length"), w.Body.Len(), len(body))
	}
	zlen := w.Body.Len()
	zr, err := gzip.NewReader(w.Body)
	if err != nil {
		t.Fatal(err)
	}
	plain, err := io.ReadAll(zr)
	if err != nil || !bytes.Equal(plain, body) {
		t.Fatalf("decompressed body differs (%v)", err)
	}
	if c.size != sizeBefore+zlen {
		t.Fatalf("cache size %d, want %d + %d compressed", c.size, sizeBefore, zlen)
	}
	for _, ae := range []string{"", "gzip;q=0", "br"} {
		w := get(ae)
		if w.Header().Get("Content-Encoding") != "" || !bytes.Equal(w.Body.Bytes(), body) || w.Header().Get("Vary") != "Accept-Encoding" {
			t.Fatalf("Accept-Encoding %q: want the identity body with Vary", ae)
		}
	}
}
