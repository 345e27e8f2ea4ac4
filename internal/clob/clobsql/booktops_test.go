package clobsql_test

import (
	"context"
	"testing"

	"pmx/internal/clob/clob"
	"pmx/internal/clob/clobsql"
)

// TestBookTops: a publish upserts its rows and moves the version by one; a
// read returns every row with the version.
func TestBookTops(t *testing.T) {
	ctx := context.Background()
	db := openDB(t)
	if _, err := clobsql.New(ctx, db); err != nil { // migrates
		t.Fatal(err)
	}
	b := clobsql.NewBookTops(db)
	if v, m, err := b.Read(ctx); err != nil || v != 0 || len(m) != 0 {
		t.Fatalf("empty: %d %v %v", v, m, err)
	}
	a := clob.BookTop{Cond: "0xa", BestBid: 450_000, BestAsk: 600_000, Liquidity: 10_500_000, Tick: 10_000, Quoted: true}
	c := clob.BookTop{Cond: "0xc", BestAsk: 1_000_000, Tick: 1_000}
	if err := b.Write(ctx, []clob.BookTop{a, c}); err != nil {
		t.Fatal(err)
	}
	a.BestBid, a.Tick = 400_000, 1_000
	if err := b.Write(ctx, []clob.BookTop{a}); err != nil {
		t.Fatal(err)
	}
	v, m, err := b.Read(ctx)
	if err != nil || v != 2 || len(m) != 2 || m["0xa"] != a || m["0xc"] != c {
		t.Fatalf("after two publishes: version %d rows %+v err %v", v, m, err)
	}
	if v, err := b.Version(ctx); err != nil || v != 2 {
		t.Fatalf("version %d %v", v, err)
	}
}
