package cataloghttp

import (
	"bytes"
	"container/list"
	"net/http"
	"net/http/httptest"
	"net/url"
	"reflect"
	"strconv"
	"testing"
)

type fixedGen struct{ s, l uint64 }

func (g *fixedGen) Generation() uint64     { return g.s }
func (g *fixedGen) LiveGeneration() uint64 { return g.l }

// TestRespCacheBounds: the byte bound holds with least recently used out,
// an oversized body is not kept, and a generation move empties the cache.
func TestRespCacheBounds(t *testing.T) {
	g := &fixedGen{1, 1}
	c := &respCache{store: g, live: g, max: 800, entries: map[string]*list.Element{}, inflight: map[string]*respCall{}}
	renders := 0
	serve := func(path string, size int) {
		t.Helper()
		w := httptest.NewRecorder()
		c.serve(w, httptest.NewRequest(http.MethodGet, path, nil), func(w http.ResponseWriter, _ *http.Request) {
			renders++
			b := bytes.Repeat([]byte("x"), size)
			w.Header().Set("Content-Type", "application/json")
			w.Header().Set("Content-Length", strconv.Itoa(len(b)))
			w.Write(b)
		})
		if w.Body.Len() != size || w.Header().Get("Content-Length") != strconv.Itoa(size) {
			t.Fatalf("%s: %d bytes, Content-Length %q", path, w.Body.Len(), w.Header().Get("Content-Length"))
		}
	}
	steps := []struct {
		path    string
		size    int
		renders int // total after the step
	}{
		{"/a", 100, 1}, {"/a", 100, 1}, // hit
		{"/b", 100, 2}, {"/c", 100, 3}, {"/d", 100, 4}, {"/e", 100, 5}, {"/f", 100, 6}, {"/g", 100, 7},
		{"/a", 100, 7}, // still there: 700 bytes so far
		{"/h", 100, 8}, // 800: at the bound
		{"/i", 100, 9}, // 900 > 800: /b, least recently used, goes
		{"/b", 100, 10},
		{"/a", 100, 10},
		{"/big", 101, 11}, {"/big", 101, 12}, // over max/8: never kept
	}
	for i, s := range steps {
		serve(s.path, s.size)
		if renders != s.renders {
			t.Fatalf("step %d (%s): %d renders, want %d", i, s.path, renders, s.renders)
		}
		if c.size > c.max {
			t.Fatalf("step %d: %d bytes cached over the bound %d", i, c.size, c.max)
		}
	}
	g.l++ // a trade: everything renders again
	serve("/a", 100)
	if renders != 13 || len(c.entries) != 1 {
		t.Fatalf("after a live generation move: %d renders, %d entries", renders, len(c.entries))
	}
	g.l-- // an older pair (a slow reader) neither hits nor empties the cache
	serve("/a", 100)
	if renders != 14 || len(c.entries) != 1 {
		t.Fatalf("older pair: %d renders, %d entries", renders, len(c.entries))
	}
}

// FuzzCacheKey: the key is a fixed point (a request made with the key's
// own query gets the same key), and two queries that parse to the same
// values, which handlers cannot tell apart, share a key.
func FuzzCacheKey(f *testing.F) {
	for _, s := range []string{"", "limit=20", "b=2&a=1", "a=1&b=2", "id=2&id=1", "x=%20y&x=+", "a=%zz", "a;b=1", "=&&="} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		u, err := url.Parse("http://h/events?" + raw)
		if err != nil {
			t.Skip()
		}
		k := cacheKey(&http.Request{URL: u})
		u2, err := url.Parse("http://h" + k)
		if err != nil {
			t.Fatalf("key %q does not parse: %v", k, err)
		}
		if k2 := cacheKey(&http.Request{URL: u2}); k2 != k {
			t.Fatalf("key of %q is %q, but its own key is %q", raw, k, k2)
		}
		if !reflect.DeepEqual(u.Query(), u2.Query()) && len(u.Query()) > 0 {
			t.Fatalf("query %q and its key %q parse differently: %v vs %v", raw, k, u.Query(), u2.Query())
		}
	})
}
