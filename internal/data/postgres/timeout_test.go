package postgres_test

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"pmx/internal/data/postgres"
	"pmx/internal/data/sqlite"
	"pmx/internal/pgsql/pgtest"
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
