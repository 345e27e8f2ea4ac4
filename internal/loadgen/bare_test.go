package loadgen

import (
	"bufio"
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"
	"time"
)

// The bare endpoint answers every captured target with exactly the bytes
// the origin served, and 404 otherwise.
func TestBareServesTheCapturedBytes(t *testing.T) {
	origin := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"data":"` + r.URL.Query().Get("user") + strings.Repeat("x", 70_000) + `"}`))
	}))
	defer origin.Close()
	urls := []string{origin.URL + "/v2/trades?user=a", origin.URL + "/v2/trades?user=b&limit=2"}
	bare, err := Capture(urls)
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(bare)
	defer srv.Close()
	for _, u := range urls {
		target := strings.TrimPrefix(u, origin.URL)
		c, err := Dial(srv.Listener.Addr().String())
		if err != nil {
			t.Fatal(err)
		}
		_, got, err := c.Do(Request("GET", "x", target, "", nil), nil)
		c.Close()
		_, want, _ := func() (int, []byte, error) {
			o, _ := Dial(origin.Listener.Addr().String())
			defer o.Close()
			return o.Do(Request("GET", "x", target, "", nil), nil)
		}()
		if string(got) != string(want) {
			t.Errorf("%s: bare served %d bytes, origin %d", target, len(got), len(want))
		}
	}
	res, err := Run(context.Background(), Config{URLs: []string{srv.URL + "/nope"}, Clients: 1, Duration: 50 * time.Millisecond})
	if err != nil || res.Errors != res.Requests {
		t.Errorf("an uncaptured target: %v %+v", err, res)
	}
}

// BenchmarkServeBare is the bare endpoint as a process of its own, for the
// one-core comparison of docs/PERFORMANCE.md (not a measurement itself):
// it captures PMX_BARE_URLS (a file, one URL per line) from the running
// server and serves them on PMX_BARE_ADDR for PMX_BARE_FOR (default 30s).
func BenchmarkServeBare(b *testing.B) {
	addr, list := os.Getenv("PMX_BARE_ADDR"), os.Getenv("PMX_BARE_URLS")
	if addr == "" || list == "" {
		b.Fatal("set PMX_BARE_ADDR (host:port to serve on) and PMX_BARE_URLS (file of URLs to capture)")
	}
	f, err := os.Open(list)
	if err != nil {
		b.Fatal(err)
	}
	var urls []string
	for sc := bufio.NewScanner(f); sc.Scan(); {
		if u := strings.TrimSpace(sc.Text()); u != "" {
			urls = append(urls, u)
		}
	}
	f.Close()
	bare, err := Capture(urls)
	if err != nil {
		b.Fatal(err)
	}
	d, err := time.ParseDuration(os.Getenv("PMX_BARE_FOR"))
	if err != nil {
		d = 30 * time.Second
	}
	srv := &http.Server{Addr: addr, Handler: bare}
	go func() { time.Sleep(d); _ = srv.Close() }()
	b.Logf("serving %d captured targets on %s for %s", len(bare), addr, d)
	if err := srv.ListenAndServe(); err != http.ErrServerClosed {
		b.Fatal(err)
	}
}
