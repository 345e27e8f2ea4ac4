package sqlite_test

import (
	"fmt"
	"testing"

	"pmx/internal/data/store"
)

// small is a synthetic world dense enough for multi-page walks.
func small(t *testing.T) store.Store {
	t.Helper()
	db, _ := openDB(t)
	mustApply(t, db, synth(7, 40, 20, 3000)...)
	return db
}

const smallNow = 1_780_000_000 + 91*86400

// walk pages through a feed with limit n and returns every row seen.
func walk[R, K any](t *testing.T, n int, fetch func(limit int, after *K) (store.Page[R, K], error)) []R {
	t.Helper()
	var all []R
	var after *K
	for pages := 0; ; pages++ {
		if pages > 10_000 {
			t.Fatal("walk does not end")
		}
		pg, err := fetch(n, after)
		if err != nil {
			t.Fatal(err)
		}
		if len(pg.Rows) > n || (pg.HasMore != (pg.Next != nil)) || (pg.HasMore && len(pg.Rows) != n) {
			t.Fatalf("bad page: %d rows, has_more %v, next %v", len(pg.Rows), pg.HasMore, pg.Next)
		}
		all = append(all, pg.Rows...)
		if !pg.HasMore {
			return all
		}
		after = pg.Next
	}
}

// sameRows fails unless the walk saw exactly the one-page listing, in order.
func sameRows[R any](t *testing.T, n int, walked, full []R) {
	t.Helper()
	if len(full) < 3*n {
		t.Fatalf("listing too small to test paging: %d rows", len(full))
	}
	if len(walked) != len(full) {
		t.Fatalf("walk saw %d rows, listing has %d", len(walked), len(full))
	}
	for i := range full {
		if fmt.Sprint(walked[i]) != fmt.Sprint(full[i]) {
			t.Fatalf("row %d differs:\n walk %v\n full %v", i, walked[i], full[i])
		}
	}
}

func TestFeedWalks(t *testing.T) {
	db := small(t)
	user := addr(3)
	cases := []struct {
		name string
		p    store.TradesParams
	}{
		{"user taker only", store.TradesParams{User: user}},
		{"user with makers", store.TradesParams{User: user, IncludeMaker: true}},
		{"user sells", store.TradesParams{User: user, IncludeMaker: true, Side: "SELL"}},
		{"market", store.TradesParams{Conditions: []string{cond(2)}}},
		{"market with makers", store.TradesParams{Conditions: []string{cond(2)}, IncludeMaker: true}},
		{"market with makers buys", store.TradesParams{Conditions: []string{cond(2)}, IncludeMaker: true, Side: "BUY"}},
		{"event", store.TradesParams{EventIDs: []int64{1000}}},
		{"global with makers", store.TradesParams{IncludeMaker: true}},
		{"global cash filter", store.TradesParams{FilterType: store.FilterCash, FilterAmount: m("10")}},
	}
	for _, tc := range cases {
		t.Run("trades "+tc.name, func(t *testing.T) {
			tc.p.Now = smallNow
			full := tc.p
			full.Limit = 100_000
			pg, err := db.Trades(ctx, full)
			if err != nil {
				t.Fatal(err)
			}
			for i := 1; i < len(pg.Rows); i++ {
				if pg.Rows[i].Timestamp > pg.Rows[i-1].Timestamp {
					t.Fatalf("not newest first at %d", i)
				}
			}
			for _, n := range []int{1, 7} {
				if n == 1 && len(pg.Rows) > 500 {
					continue // one-row pages over a big feed: slow, and n=7 covers it
				}
				sameRows(t, n, walk(t, n, func(l int, a *store.FeedKey) (store.Page[store.Trade, store.FeedKey], error) {
					p := tc.p
					p.Limit, p.After = l, a
					return db.Trades(ctx, p)
				}), pg.Rows)
			}
		})
	}
	for _, asc := range []bool{false, true} {
		t.Run(fmt.Sprintf("activity asc=%v", asc), func(t *testing.T) {
			p := store.ActivityParams{User: user, Ascending: asc, Types: store.ActivityTypes,
				IncludeDepositsWithdrawals: true}
			full := p
			full.Limit = 100_000
			pg, err := db.Activity(ctx, full)
			if err != nil {
				t.Fatal(err)
			}
			types := map[string]bool{}
			for i, r := range pg.Rows {
				types[r.Type] = true
				if i > 0 && (r.Timestamp < pg.Rows[i-1].Timestamp) != !asc && r.Timestamp != pg.Rows[i-1].Timestamp {
					t.Fatalf("out of order at %d", i)
				}
			}
			if len(types) < 6 {
				t.Fatalf("only types %v", types)
			}
			sameRows(t, 9, walk(t, 9, func(l int, a *store.FeedKey) (store.Page[store.Activity, store.FeedKey], error) {
				p := p
				p.Limit, p.After = l, a
				return db.Activity(ctx, p)
			}), pg.Rows)
		})
	}
}

func TestPositionSortWalks(t *testing.T) {
	db := small(t)
	sorts := []string{store.SortCurrentValue, store.SortPrice, store.SortTokens, store.SortUnrealizedPnL,
		store.SortRealizedPnL, store.SortTotalPnL, store.SortTimestamp}
	for _, status := range []string{store.StatusOpen, store.StatusClosed, store.StatusRedeemable} {
		// The wallet with the most rows of this status.
		user, most := "", 0
		for w := 1; w <= 20; w++ {
			if n := len(positions(t, db, store.PositionsParams{User: addr(w), Status: status})); n > most {
				user, most = addr(w), n
			}
		}
		for _, s := range sorts {
			for _, asc := range []bool{false, true} {
				for _, anchor := range []string{"user", "market"} {
					name := fmt.Sprintf("%s/%s/asc=%v/%s", status, s, asc, anchor)
					t.Run(name, func(t *testing.T) {
						p := store.PositionsParams{Status: status, SortBy: s, Ascending: asc}
						if anchor == "user" {
							p.User = user
						} else {
							p.Conditions = []string{cond(10)} // resolved in synth
							if status == store.StatusOpen {
								p.Conditions = []string{cond(3)}
							}
						}
						full := p
						full.Limit = 100_000
						pg, err := db.Positions(ctx, full)
						if err != nil {
							t.Fatal(err)
						}
						n := max(1, min(len(pg.Rows)/4, 5))
						sameRows(t, n, walk(t, n, func(l int, a *store.PositionKey) (store.Page[store.Position, store.PositionKey], error) {
							p := p
							p.Limit, p.After = l, a
							return db.Positions(ctx, p)
						}), pg.Rows)
					})
				}
			}
		}
	}
}
