package catalogsql_test

import (
	"context"
	"testing"

	"pmx/internal/catalog/catalog"
	"pmx/internal/catalog/catalogsql"
)

// TestDocumentCacheFollowsOtherWriters: the decoded-document cache is keyed
// by the database's catalog generation, so a write through another Store on
// the same database is seen by the next read, and a caller replacing fields
// of what it was handed does not change what the cache hands out next.
func TestDocumentCacheFollowsOtherWriters(t *testing.T) {
	ctx := context.Background()
	db := openDB(t)
	reader, err := catalogsql.New(ctx, db)
	if err != nil {
		t.Fatal(err)
	}
	writer, err := catalogsql.New(ctx, db)
	if err != nil {
		t.Fatal(err)
	}
	ptr := func(s string) *string { return &s }
	event := func(title, question string) catalog.Event {
		return catalog.Event{ID: "900", Slug: ptr("cache-e"), Title: ptr(title), Markets: []catalog.Market{
			{ID: "901", Slug: ptr("cache-m"), ConditionID: ptr(cond(9)), Question: ptr(question)},
		}}
	}
	if err := writer.ImportEvents(ctx, []catalog.Event{event("first", "q1")}); err != nil {
		t.Fatal(err)
	}
	read := func() (string, string, string) {
		t.Helper()
		e, err := reader.GetEvent(ctx, 900)
		if err != nil {
			t.Fatal(err)
		}
		m, err := reader.GetMarket(ctx, 901)
		if err != nil {
			t.Fatal(err)
		}
		return *e.Title, *e.Markets[0].Question, *m.Question
	}
	if et, eq, mq := read(); et != "first" || eq != "q1" || mq != "q1" {
		t.Fatalf("first read: %q %q %q", et, eq, mq)
	}
	// Replacing fields of a returned copy leaves the cached entry alone.
	e, err := reader.GetEvent(ctx, 900)
	if err != nil {
		t.Fatal(err)
	}
	e.Title = ptr("scribbled")
	e.Markets = nil
	if et, eq, _ := read(); et != "first" || eq != "q1" {
		t.Fatalf("cached event changed by a caller: %q %q", et, eq)
	}
	if err := writer.ImportEvents(ctx, []catalog.Event{event("second", "q2")}); err != nil {
		t.Fatal(err)
	}
	if et, eq, mq := read(); et != "second" || eq != "q2" || mq != "q2" {
		t.Fatalf("read after another store's write: %q %q %q", et, eq, mq)
	}
}
