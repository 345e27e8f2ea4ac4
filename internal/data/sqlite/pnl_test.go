package sqlite_test

import (
	"testing"

	"pmx/internal/amount"
	"pmx/internal/data/ledger"
	"pmx/internal/data/store"
)

// world is the hand-built history the exact-figure tests share:
//
//	B splits 100 (YES and NO at 0.50 each);
//	A buys 100 YES from B at 0.40 (A taker, fee 1);
//	A sells 40 YES to C at 0.60 (A taker, fee 0.5);
//	C splits 10 then merges 10;
//	market resolves YES; A and B redeem.
func world(t testing.TB, db store.Store, resolve bool) {
	b := newBuilder(1_780_000_000)
	evs := []ledger.Event{
		binary(1, 77, false),
		b.env(userEv(ledger.KindSplit, 2, 1, "100"), 10),
		b.env(trade("11", 2, 1, "BUY", "0.4", "100", "1"), 10),
		b.env(trade("11", 3, 1, "SELL", "0.6", "40", "0.5"), 10),
		b.env(userEv(ledger.KindSplit, 3, 1, "10"), 10),
		b.env(userEv(ledger.KindMerge, 3, 1, "10"), 10),
	}
	if resolve {
		evs = append(evs,
			ledger.Event{Kind: ledger.KindResolution, ConditionID: cond(1), Payouts: []amount.Micro{amount.One, 0}, ResolvedAt: b.ts + 50},
			b.env(userEv(ledger.KindRedeem, 1, 1, ""), 100),
			b.env(userEv(ledger.KindRedeem, 2, 1, ""), 10),
		)
	}
	mustApply(t, db, evs...)
}

type posWant struct {
	size, cost, fees, avg, bought, realized, price, value, unreal string
	status                                                        string
}

func checkPos(t *testing.T, got store.Position, w posWant) {
	t.Helper()
	for _, c := range []struct {
		name string
		got  amount.Micro
		want string
	}{
		{"current_size", got.CurrentSize, w.size}, {"entry_cost_usdc", got.EntryCostUSDC, w.cost},
		{"entry_fees_usdc", got.EntryFeesUSDC, w.fees}, {"avg_price", got.AvgPrice, w.avg},
		{"total_size", got.TotalSize, w.bought}, {"realized_pnl", got.RealizedPnL, w.realized},
		{"current_price", got.CurrentPrice, w.price}, {"current_value", got.CurrentValue, w.value},
		{"unrealized_pnl", got.UnrealizedPnL, w.unreal},
	} {
		if c.got != m(c.want) {
			t.Errorf("%s %s: got %s want %s", got.TokenID, c.name, c.got, c.want)
		}
	}
	if got.TotalCostUSDC != got.EntryCostUSDC+got.EntryFeesUSDC || got.TotalPnL != got.RealizedPnL+got.UnrealizedPnL {
		t.Errorf("%s: totals inconsistent: %+v", got.TokenID, got)
	}
	if got.Status != w.status {
		t.Errorf("%s status: got %s want %s", got.TokenID, got.Status, w.status)
	}
}

func TestPositionsExactPnL(t *testing.T) {
	tests := []struct {
		name    string
		resolve bool
		user    int
		status  string
		want    map[string]posWant
	}{
		{"taker buy then sell", false, 1, store.StatusOpen, map[string]posWant{
			// 100 @ 0.40 = 40; sell 40 removes 16 of basis; 40×0.6 − 16 − 0.5 fee = 7.5.
			"11": {size: "60", cost: "24", fees: "1", avg: "0.4", bought: "100", realized: "7.5",
				price: "0.6", value: "36", unreal: "12", status: "OPEN"},
		}},
		{"maker sold split shares", false, 2, store.StatusOpen, map[string]posWant{
			// split 100 → 100 YES + 100 NO at 0.5; sold 100 YES at 0.4: 40 − 50.
			"12": {size: "100", cost: "50", fees: "0", avg: "0.5", bought: "100", realized: "0",
				price: "0.4", value: "40", unreal: "-10", status: "OPEN"},
		}},
		{"maker sold split shares closed", false, 2, store.StatusClosed, map[string]posWant{
			"11": {size: "0", cost: "0", fees: "0", avg: "0.5", bought: "100", realized: "-10",
				price: "0.6", value: "0", unreal: "0", status: "CLOSED"},
		}},
		{"split then merge", false, 3, store.StatusOpen, map[string]posWant{
			// 40 YES @0.6 = 24; split 10 → YES 50 cost 29, NO 10 cost 5; merge 10:
			// YES removes 29×10/50 = 5.8 for 5 (−0.8); NO removes 5 for 5.
			"11": {size: "40", cost: "23.2", fees: "0", avg: "0.58", bought: "50", realized: "-0.8",
				price: "0.6", value: "24", unreal: "0.8", status: "OPEN"},
		}},
		{"resolved unredeemed is redeemable", true, 3, store.StatusRedeemable, map[string]posWant{
			"11": {size: "40", cost: "23.2", fees: "0", avg: "0.58", bought: "50", realized: "-0.8",
				price: "1", value: "40", unreal: "16.8", status: "REDEEMABLE"},
		}},
		{"redeemed winner closes", true, 1, store.StatusClosed, map[string]posWant{
			// 7.5 + (60 × 1 − 24) = 43.5
			"11": {size: "0", cost: "0", fees: "1", avg: "0.4", bought: "100", realized: "43.5",
				price: "1", value: "0", unreal: "0", status: "CLOSED"},
		}},
		{"redeemed loser closes", true, 2, store.StatusClosed, map[string]posWant{
			"11": {size: "0", cost: "0", fees: "0", avg: "0.5", bought: "100", realized: "-10",
				price: "1", value: "0", unreal: "0", status: "CLOSED"},
			"12": {size: "0", cost: "0", fees: "0", avg: "0.5", bought: "100", realized: "-50",
				price: "0", value: "0", unreal: "0", status: "CLOSED"},
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			db, _ := openDB(t)
			world(t, db, tc.resolve)
			got := byToken(positions(t, db, store.PositionsParams{User: addr(tc.user), Status: tc.status}))
			if len(got) != len(tc.want) {
				t.Fatalf("got %d rows %v, want %d", len(got), got, len(tc.want))
			}
			for tok, w := range tc.want {
				checkPos(t, got[tok], w)
			}
		})
	}
}

func TestWalletAggregates(t *testing.T) {
	db, _ := openDB(t)
	world(t, db, true)
	st, err := db.UserStats(ctx, addr(1))
	if err != nil || st == nil {
		t.Fatal(st, err)
	}
	if st.Trades != 1 || st.BiggestWin != m("43.5") || st.JoinDate == nil || st.AllTimePnL == nil {
		t.Fatalf("stats %+v", st)
	}
	p := st.AllTimePnL
	if p.RealizedMarketPnL != m("43.5") || *p.UnrealizedPnL != 0 || *p.Fees != m("-1.5") ||
		p.Volume != m("140") || p.VolumeUSDC != m("64") || p.TradeCount != 2 {
		t.Fatalf("all-time point %+v", p)
	}
	if st, err := db.UserStats(ctx, addr(99)); err != nil || st != nil {
		t.Fatalf("unknown wallet: %v %v", st, err)
	}
	v, err := db.Value(ctx, store.ValueParams{User: addr(3)})
	if err != nil || v.Value != m("40") { // 40 YES redeemable at payout 1
		t.Fatalf("value %+v %v", v, err)
	}
	vol, err := db.UserVolume(ctx, store.UserVolumeParams{User: addr(1)})
	if err != nil || vol.Volume != m("140") || vol.VolumeUSDC != m("64") || vol.TradeCount != 2 {
		t.Fatalf("volume %+v %v", vol, err)
	}
	vol, err = db.UserVolume(ctx, store.UserVolumeParams{User: addr(1), Start: 1_780_000_000 + 86400})
	if err != nil || vol.TradeCount != 0 {
		t.Fatalf("volume after window %+v %v", vol, err)
	}
}

func TestConversion(t *testing.T) {
	db, _ := openDB(t)
	b := newBuilder(1_780_000_000)
	conv := b.env(ledger.Event{Kind: ledger.KindConversion, User: addr(1), ConditionIDs: []string{cond(1)}, Amount: m("10")}, 20)
	mustApply(t, db, binary(1, 9, true), binary(2, 9, true), binary(3, 9, true),
		b.env(userEv(ledger.KindSplit, 1, 1, "10"), 10), conv)
	got := byToken(positions(t, db, store.PositionsParams{User: addr(1), Status: store.StatusOpen}))
	closed := byToken(positions(t, db, store.PositionsParams{User: addr(1), Status: store.StatusClosed}))
	// n = 3: NO out at 2/3 (6.66667 for a 5 basis), YES of the two others in at 1/3.
	checkPos(t, closed["12"], posWant{size: "0", cost: "0", fees: "0", avg: "0.5", bought: "10", realized: "1.66667",
		price: "0", value: "0", unreal: "0", status: "CLOSED"})
	for _, tok := range []string{"21", "31"} {
		checkPos(t, got[tok], posWant{size: "10", cost: "3.33333", fees: "0", avg: "0.333333", bought: "10",
			realized: "0", price: "0", value: "0", unreal: "-3.33333", status: "OPEN"})
	}
	if len(got) != 3 { // 11 (kept YES) + 21 + 31
		t.Fatalf("open rows %v", got)
	}
}

func TestFeedWindows(t *testing.T) {
	db, _ := openDB(t)
	world(t, db, false) // trades at 1_780_000_020 (A buys) and 1_780_000_030 (A sells)
	const t0 = 1_780_000_000
	count := func(p store.TradesParams) int {
		p.Limit = 100
		pg, err := db.Trades(ctx, p)
		if err != nil {
			t.Fatal(err)
		}
		return len(pg.Rows)
	}
	tests := []struct {
		name string
		p    store.TradesParams
		want int
	}{
		{"user unbounded", store.TradesParams{User: addr(1)}, 2},
		{"user end", store.TradesParams{User: addr(1), Window: store.Window{End: t0 + 25}}, 1},
		{"user start", store.TradesParams{User: addr(1), Window: store.Window{Start: t0 + 25}}, 1},
		{"user inclusive", store.TradesParams{User: addr(1), Window: store.Window{Start: t0 + 20, End: t0 + 30}}, 2},
		{"global this month", store.TradesParams{Now: t0 + 10*86400}, 2},
		{"global two months on", store.TradesParams{Now: t0 + 70*86400}, 0},
		{"market in three years", store.TradesParams{Conditions: []string{cond(1)}, Now: t0 + 2*365*86400}, 2},
		{"market after three years", store.TradesParams{Conditions: []string{cond(1)}, Now: t0 + 4*365*86400}, 0},
		{"event", store.TradesParams{EventIDs: []int64{77}, Now: t0}, 2},
		{"event and other condition", store.TradesParams{EventIDs: []int64{77}, Conditions: []string{cond(2)}, Now: t0}, 0},
	}
	for _, tc := range tests {
		if got := count(tc.p); got != tc.want {
			t.Errorf("%s: %d rows, want %d", tc.name, got, tc.want)
		}
	}
}
