package server

import (
	"io"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"testing"

	"pmx/internal/loadgen"
)

// BenchmarkGuardedPost measures the guard's cost on a body route: a 200-byte
// POST over one keep-alive connection, through a Group listener (guarded)
// and through a bare http.Server (the reference), side by side.
//
//	go test -run X -bench GuardedPost -benchmem -count 5 ./internal/server
func BenchmarkGuardedPost(b *testing.B) {
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n, _ := io.Copy(io.Discard, r.Body)
		if n != 200 {
			w.WriteHeader(400)
		}
	})
	body := []byte(strings.Repeat("x", 200))
	run := func(b *testing.B, addr string) {
		c, err := loadgen.Dial(addr)
		if err != nil {
			b.Fatal(err)
		}
		defer c.Close()
		req := loadgen.Request("POST", "x", "/p", "Content-Type: application/json\r\n", body)
		var buf []byte
		b.ReportAllocs()
		b.ResetTimer()
		for range b.N {
			status, out, err := c.Do(req, buf)
			if err != nil || status != 200 {
				b.Fatalf("%d %v", status, err)
			}
			buf = out[:0]
		}
	}
	b.Run("guarded", func(b *testing.B) {
		l := &Listener{Name: "b", Addr: "127.0.0.1:0", Handler: h}
		g := &Group{Log: slog.New(slog.DiscardHandler), Listeners: []*Listener{l}}
		if err := g.Start(); err != nil {
			b.Fatal(err)
		}
		defer g.Shutdown(b.Context())
		run(b, strings.TrimPrefix(l.URL(), "http://"))
	})
	b.Run("bare", func(b *testing.B) {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			b.Fatal(err)
		}
		srv := &http.Server{Handler: h}
		go srv.Serve(ln)
		defer srv.Close()
		run(b, ln.Addr().String())
	})
}
