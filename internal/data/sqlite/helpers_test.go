package sqlite_test

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"pmx/internal/amount"
	"pmx/internal/data/ledger"
	"pmx/internal/data/sqlite"
	"pmx/internal/data/store"
)

var ctx = context.Background()

// fixedClock stamps AppliedAt deterministically.
func fixedClock() time.Time { return time.Unix(1_800_000_000, 0) }

func openDB(t testing.TB) (*sqlite.DB, string) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "pmx.db")
	db, err := sqlite.Open(path, sqlite.Options{Clock: fixedClock})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db, path
}

func mustApply(t testing.TB, db store.Store, evs ...ledger.Event) {
	t.Helper()
	if _, err := db.Apply(ctx, evs); err != nil {
		t.Fatal(err)
	}
}

func m(s string) amount.Micro { return amount.MustParse(s) }

func addr(n int) string { return fmt.Sprintf("0x%040x", n) }
func cond(n int) string { return fmt.Sprintf("0x%064x", n) }
func txh(n int) string  { return fmt.Sprintf("0x%064x", n) }

// builder hands out increasing (block, log index, timestamp) envelopes.
type builder struct {
	block, log int64
	ts         int64
}

func newBuilder(ts int64) *builder { return &builder{block: 1000, ts: ts} }

// env stamps e with the next envelope, dt seconds after the previous one.
func (b *builder) env(e ledger.Event, dt int64) ledger.Event {
	b.ts += dt
	b.log++
	if b.log == 50 {
		b.block, b.log = b.block+1, 0
	}
	e.BlockNumber, e.LogIndex, e.Timestamp = b.block, b.log, b.ts
	e.TxHash = txh(int(b.block*100 + b.log))
	return e
}

// binary is a two-outcome market event with token ids "<n>1" and "<n>2".
func binary(n int, eventID int64, negRisk bool) ledger.Event {
	return ledger.Event{Kind: ledger.KindMarket, ConditionID: cond(n), Question: fmt.Sprintf("Market %d?", n),
		Slug: fmt.Sprintf("market-%d", n), EventID: eventID, EventSlug: fmt.Sprintf("event-%d", eventID),
		EventTitle: fmt.Sprintf("Event %d", eventID), Category: "politics", Outcomes: []string{"Yes", "No"},
		TokenIDs: []string{fmt.Sprintf("%d1", n), fmt.Sprintf("%d2", n)}, NegRisk: negRisk,
		EndDate: "2026-12-31T00:00:00Z"}
}

func trade(token string, maker, taker int, side, price, size, fee string) ledger.Event {
	e := ledger.Event{Kind: ledger.KindTrade, TokenID: token, Maker: addr(maker), Taker: addr(taker), Side: side,
		Price: m(price), Size: m(size)}
	if fee != "" {
		e.FeeUSDC = m(fee)
	}
	return e
}

func userEv(kind ledger.Kind, user int, condN int, amt string) ledger.Event {
	e := ledger.Event{Kind: kind, User: addr(user)}
	if condN != 0 {
		e.ConditionID = cond(condN)
	}
	if amt != "" {
		if kind == ledger.KindSplit || kind == ledger.KindMerge {
			e.Amount = m(amt)
		} else {
			e.AmountUSDC = m(amt)
		}
	}
	return e
}

func positions(t testing.TB, db store.Store, p store.PositionsParams) []store.Position {
	t.Helper()
	if p.Limit == 0 {
		p.Limit = 1000
	}
	pg, err := db.Positions(ctx, p)
	if err != nil {
		t.Fatal(err)
	}
	return pg.Rows
}

func byToken(rows []store.Position) map[string]store.Position {
	out := map[string]store.Position{}
	for _, r := range rows {
		out[r.TokenID] = r
	}
	return out
}
