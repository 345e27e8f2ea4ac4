package postgres_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"pmx/internal/clock"
	"pmx/internal/data/dataapi"
	"pmx/internal/data/postgres"
	"pmx/internal/data/sqlite"
	"pmx/internal/pgsql/pgtest"
	"pmx/internal/ratelimit"
)

// A statement the server cancels (statement_timeout) is the contract's 503
// request_timeout, retryable, never a 500.
func TestStatementTimeout_Is503RequestTimeout(t *testing.T) {
	url := pgtest.DB(t)
	db, err := postgres.Open(context.Background(), url, postgres.Options{Options: sqlite.Options{Clock: func() time.Time { return now }},
		StatementTimeout: 100 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	if _, err := db.Apply(context.Background(), demoWorld(t, 0.001)[:200]); err != nil {
		t.Fatal(err)
	}
	srv := serve(t, db)

	// Another session holds the table: the route's query waits on the lock
	// until the server's statement_timeout cancels it.
	ctx := context.Background()
	c, err := pgx.Connect(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close(ctx)
	tx, err := c.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback(ctx)
	if _, err := tx.Exec(ctx, `LOCK TABLE activity IN ACCESS EXCLUSIVE MODE`); err != nil {
		t.Fatal(err)
	}
	res, err := srv.Client().Get(srv.URL + "/v2/trades?limit=5")
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	var body struct {
		Code      string `json:"code"`
		Retryable bool   `json:"retryable"`
	}
	if err := json.NewDecoder(res.Body).Decode(&body); err != nil {
		t.Fatal(err)
	}
	if res.StatusCode != 503 || body.Code != "request_timeout" || !body.Retryable {
		t.Fatalf("got %d %+v, want 503 request_timeout retryable", res.StatusCode, body)
	}
	tx.Rollback(ctx)
	if res, err := srv.Client().Get(srv.URL + "/v2/trades?limit=5"); err != nil || res.StatusCode != 200 {
		t.Fatalf("after the lock: %v %v", res.StatusCode, err)
	}
}

// The data service's database budget (DBSlots no larger than the read pool)
// is the pool-acquire budget: while a slow statement holds every slot, the
// next request waits DBWait, then is 503 request_timeout, retryable.
func TestPoolAcquireBudget_Is503RequestTimeout(t *testing.T) {
	url := pgtest.DB(t)
	db, err := postgres.Open(context.Background(), url, postgres.Options{Options: sqlite.Options{Clock: func() time.Time { return now }, ReadConns: 1},
		StatementTimeout: time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	if _, err := db.Apply(context.Background(), demoWorld(t, 0.001)[:200]); err != nil {
		t.Fatal(err)
	}
	clock := clock.NewManual(now)
	srv := httptest.NewServer(dataapi.New(dataapi.Options{Store: db, CursorKey: []byte("differential-cursor-key-0123456789"),
		Clock: clock, Limits: &ratelimit.Config{}, DBSlots: 1, DBWait: time.Second}))
	t.Cleanup(srv.Close)

	ctx := context.Background()
	c, err := pgx.Connect(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close(ctx)
	tx, err := c.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback(ctx)
	if _, err := tx.Exec(ctx, `LOCK TABLE activity IN ACCESS EXCLUSIVE MODE`); err != nil {
		t.Fatal(err)
	}
	first := make(chan int, 1)
	go func() {
		res, err := srv.Client().Get(srv.URL + "/v2/trades?limit=5")
		if err != nil {
			first <- 0
			return
		}
		res.Body.Close()
		first <- res.StatusCode
	}()
	// The first request holds the only slot and connection, waiting on the lock.
	for {
		var n int
		if err := c.QueryRow(ctx, `SELECT count(*) FROM pg_stat_activity WHERE wait_event_type = 'Lock'`).Scan(&n); err != nil {
			t.Fatal(err)
		}
		if n > 0 {
			break
		}
		time.Sleep(5 * time.Millisecond)
	}
	second := make(chan *http.Response, 1)
	go func() {
		// Another page: a miss of the same page would wait for the first
		// request's build (the page cache's single flight), not for a slot.
		res, err := srv.Client().Get(srv.URL + "/v2/trades?limit=6")
		if err != nil {
			t.Error(err)
		}
		second <- res
	}()
	clock.WaitForTimers(3) // both requests' deadlines and the second's slot wait
	clock.Advance(1500 * time.Millisecond)
	res := <-second
	var body struct {
		Code      string `json:"code"`
		Retryable bool   `json:"retryable"`
	}
	if err := json.NewDecoder(res.Body).Decode(&body); err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != 503 || body.Code != "request_timeout" || !body.Retryable {
		t.Fatalf("second request: %d %+v, want 503 request_timeout", res.StatusCode, body)
	}
	tx.Rollback(ctx)
	if code := <-first; code != 200 {
		t.Fatalf("first request after the lock: %d", code)
	}
}
