package dataapi_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"sort"
	"strconv"
	"sync"
	"testing"
	"time"

	"pmx/internal/clock"
	"pmx/internal/data/dataapi"
	"pmx/internal/data/ledger"
	"pmx/internal/data/sqlite"
	"pmx/internal/demo"
)

// demoNow ends the benchmark's demo world; boards are read one second
// before it, so the day window holds the world's last day.
var demoNow = time.Date(2026, 9, 15, 0, 0, 0, 0, time.UTC)

// demoScale is PMX_BOARDS_SCALE or 0.1.
func demoScale() float64 {
	if v, err := strconv.ParseFloat(os.Getenv("PMX_BOARDS_SCALE"), 64); err == nil && v > 0 {
		return v
	}
	return 0.1
}

// demoServer loads the demo world through the ledger into a fresh store and
// serves it (no per-client limit) over a real HTTP listener.
func demoServer(tb testing.TB) (*httptest.Server, *sqlite.DB) {
	tb.Helper()
	db, err := openStore(tb, sqlite.Options{})
	if err != nil {
		tb.Fatal(err)
	}
	evs := demoEvents(tb, demo.Options{Seed: 1, Scale: demoScale(), Now: demoNow})
	t0 := time.Now()
	if _, err := db.Apply(context.Background(), evs); err != nil {
		tb.Fatal(err)
	}
	tb.Logf("demo world scale %v: %d events applied in %v", demoScale(), len(evs), time.Since(t0).Round(time.Millisecond))
	clock := clock.NewManual(demoNow.Add(-time.Second))
	svc := dataapi.New(dataapi.Options{Store: db, CursorKey: []byte("boards-bench-cursor-secret-0123456"), Clock: clock,
		Limits: generous(), DBSlots: 64})
	srv := httptest.NewServer(svc)
	tb.Cleanup(func() { srv.Close(); db.Close() })
	return srv, db
}

var boardPaths = []string{
	"/v2/leaderboard?time_period=day",
	"/v2/leaderboard?time_period=month&sort_by=VOLUME",
	"/v2/leaderboard?time_period=all",
	"/v2/leaderboard?time_period=week&category=sports",
	"/v2/leaderboard?time_period=week&user=",
	"/v2/biggest-winners?time_period=month",
	"/v2/biggest-winners?time_period=all&category=combos",
	"/v2/builders/leaderboard?time_period=week",
	"/v2/builders/volume?interval=day&limit=90",
	"/v2/builders/volume?interval=month",
}

func get(c *http.Client, url string) error {
	res, err := c.Get(url)
	if err != nil {
		return err
	}
	_, err = io.Copy(io.Discard, res.Body)
	res.Body.Close()
	if res.StatusCode != 200 {
		return fmt.Errorf("%s: status %d", url, res.StatusCode)
	}
	return err
}

// someWallet is a wallet of the demo world with trades (for the user arm).
func someWallet(tb testing.TB, srv *httptest.Server) string {
	var env struct {
		Data []struct {
			UserID string `json:"user_id"`
		} `json:"data"`
	}
	res, err := srv.Client().Get(srv.URL + "/v2/leaderboard?time_period=all&limit=1")
	if err != nil {
		tb.Fatal(err)
	}
	defer res.Body.Close()
	if err := jsonDecode(res.Body, &env); err != nil || len(env.Data) == 0 {
		tb.Fatalf("no leaderboard rows: %v", err)
	}
	return env.Data[0].UserID
}

// TestBoardsLatency reports p50/p99 per board route at 32 concurrent
// clients over the demo world: "cold" is the first request after a data
// change (the board is recomputed), "warm" the steady state. A measurement,
// not an assertion: PMX_LONG=1 go test -run TestBoardsLatency -v.
func TestBoardsLatency(t *testing.T) {
	if os.Getenv("PMX_LONG") == "" {
		t.Skip("set PMX_LONG=1 to measure")
	}
	srv, db := demoServer(t)
	user := someWallet(t, srv)
	const clients, perClient = 32, 100
	for i, p := range boardPaths {
		if p[len(p)-1] == '=' {
			p += user
		}
		// Cold: the first request after an Apply (here a one-profile batch,
		// which starts a new data generation) recomputes the board.
		prof := ledger.Event{Kind: ledger.KindProfile, Address: fmt.Sprintf("0x%040x", 0xbead0000+i), Name: "bench"}
		if _, err := db.Apply(context.Background(), []ledger.Event{prof}); err != nil {
			t.Fatal(err)
		}
		t0 := time.Now()
		if err := get(srv.Client(), srv.URL+p); err != nil {
			t.Fatal(err)
		}
		cold := time.Since(t0)
		lat := make([]time.Duration, clients*perClient)
		var wg sync.WaitGroup
		start := time.Now()
		for c := range clients {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for i := range perClient {
					t0 := time.Now()
					if err := get(srv.Client(), srv.URL+p); err != nil {
						t.Error(err)
						return
					}
					lat[c*perClient+i] = time.Since(t0)
				}
			}()
		}
		wg.Wait()
		el := time.Since(start)
		sort.Slice(lat, func(i, j int) bool { return lat[i] < lat[j] })
		t.Logf("%-55s cold %8v  warm p50 %8v  p99 %8v  %6.0f req/s", p, cold.Round(time.Microsecond),
			lat[len(lat)/2].Round(time.Microsecond), lat[len(lat)*99/100].Round(time.Microsecond),
			float64(len(lat))/el.Seconds())
	}
}

// BenchmarkBoards measures one warm request per route over HTTP
// (PMX_BOARDS_SCALE, default 0.1, sets the demo world's scale).
func BenchmarkBoards(b *testing.B) {
	srv, _ := demoServer(b)
	user := someWallet(b, srv)
	for _, p := range boardPaths {
		if p[len(p)-1] == '=' {
			p += user
		}
		b.Run(p, func(b *testing.B) {
			if err := get(srv.Client(), srv.URL+p); err != nil {
				b.Fatal(err)
			}
			b.ResetTimer()
			b.RunParallel(func(pb *testing.PB) {
				for pb.Next() {
					if err := get(srv.Client(), srv.URL+p); err != nil {
						b.Error(err)
						return
					}
				}
			})
		})
	}
}

func jsonDecode(r io.Reader, v any) error { return json.NewDecoder(r).Decode(v) }
