package sqlite_test

import (
	"encoding/json"
	"strings"
	"testing"

	"pmx/internal/amount"
	"pmx/internal/data/ledger"
	"pmx/internal/data/store"
)

const comboID = "0x03" + "00000000000000000000000000000000000000000000000000000000000c"

func comboEv(kind ledger.Kind, user int, typ, side, price, size string) ledger.Event {
	e := ledger.Event{Kind: kind, User: addr(user), ComboConditionID: comboID, Type: typ, Side: side, Size: m(size)}
	if price != "" {
		e.Price = m(price)
	}
	return e
}

func TestCombos(t *testing.T) {
	db, _ := openDB(t)
	b := newBuilder(1_780_000_000)
	split := b.env(comboEv(ledger.KindComboActivity, 1, "SPLIT", "", "", "50"), 10)
	split.AmountUSDC = m("50")
	buy := comboEv(ledger.KindComboTrade, 1, "", "BUY", "0.2", "100")
	buy.FeeUSDC = m("1")
	mustApply(t, db, binary(1, 1, false), binary(2, 2, false),
		ledger.Event{Kind: ledger.KindComboMarket, ComboConditionID: comboID, Outcomes: []string{"Yes", "No"},
			TokenIDs: []string{"9001", "9002"}, Legs: []ledger.ComboLeg{{ConditionID: cond(1)}, {ConditionID: cond(2)}}},
		b.env(buy, 10), split)

	list := func(p store.ComboPositionsParams) []store.ComboPosition {
		p.User, p.Limit = addr(1), 100
		pg, err := db.ComboPositions(ctx, p)
		if err != nil {
			t.Fatal(err)
		}
		return pg.Rows
	}
	// 100 bought at 0.2 (20, fee 1) + 50 of each outcome split at 0.5 (25 each).
	rows := list(store.ComboPositionsParams{})
	// FIRST_ENTRY DESC: outcome 1 was first entered by the split, after the buy.
	if len(rows) != 2 || rows[0].OutcomeIndex != 1 || rows[0].CurrentSize != m("50") || rows[0].EntryCostUSDC != m("25") {
		t.Fatalf("rows %+v", rows)
	}
	r := rows[1]
	if r.CurrentSize != m("150") || r.EntryCostUSDC != m("45") || r.EntryFeesUSDC != m("1") ||
		r.GrossEntryCostUSDC != m("46") || r.EntryAvgPriceUSDC != m("0.3") || r.Status != "OPEN" ||
		r.LegsTotal != 2 || r.LegsPending != 2 || r.ResolvedAt != nil || r.Legs[0].LegPositionID != "11" ||
		r.Legs[1].Market.Title != "Market 2?" || r.OutcomeLabel != "Yes" || r.ComboPositionID != "9001" {
		t.Fatalf("open combo %+v", r)
	}
	if v, _ := db.Value(ctx, store.ValueParams{User: addr(1)}); v.Value != m("70") {
		t.Fatalf("value with open combo at cost: %v", v.Value)
	}
	if v, _ := db.Value(ctx, store.ValueParams{User: addr(1), Conditions: []string{cond(1)}}); v.Value != 0 {
		t.Fatalf("condition filter drops combos: %v", v.Value)
	}

	win := []amount.Micro{amount.One, 0}
	mustApply(t, db,
		ledger.Event{Kind: ledger.KindResolution, ConditionID: cond(1), Payouts: win, ResolvedAt: b.ts + 1},
		ledger.Event{Kind: ledger.KindResolution, ConditionID: cond(2), Payouts: win, ResolvedAt: b.ts + 2})
	rows = list(store.ComboPositionsParams{Statuses: []string{store.StatusRedeemable}})
	if len(rows) != 1 {
		t.Fatalf("redeemable rows %+v", rows)
	}
	r = rows[0]
	if r.Status != "REDEEMABLE" || !r.Redeemable || r.ResolvedAt == nil || r.LegsResolved != 2 ||
		r.Legs[0].LegStatus != "RESOLVED_WIN" || r.Legs[0].LegCurrentPrice != amount.One {
		t.Fatalf("redeemable combo %+v", r)
	}
	if v, _ := db.Value(ctx, store.ValueParams{User: addr(1)}); v.Value != 0 {
		t.Fatalf("resolved combo still valued: %v", v.Value)
	}
	redeem := b.env(comboEv(ledger.KindComboActivity, 1, "REDEEM", "", "", "150"), 100)
	redeem.PayoutUSDC = m("150")
	mustApply(t, db, redeem)
	if rows := list(store.ComboPositionsParams{}); len(rows) != 1 || rows[0].Status != "RESOLVED_LOSS" {
		t.Fatalf("held after redeem: %+v", rows)
	}
	rows = list(store.ComboPositionsParams{Statuses: []string{"RESOLVED_WIN", "RESOLVED_LOSS"}, SortBy: "UPDATED"})
	if len(rows) != 2 {
		t.Fatalf("settled rows %+v", rows)
	}
	r = rows[0] // the redeemed one was updated last
	if r.Status != "RESOLVED_WIN" || r.RealizedPayoutUSDC != m("150") || r.CurrentSize != 0 {
		t.Fatalf("won combo %+v", r)
	}
	st, _ := db.UserStats(ctx, addr(1))
	if st.BiggestWin != m("105") || st.AllTimePnL.RealizedComboPnL != m("105") {
		t.Fatalf("stats %+v %+v", st, st.AllTimePnL)
	}

	pg, err := db.ComboActivity(ctx, store.ComboActivityParams{User: addr(1), Limit: 1})
	if err != nil || len(pg.Rows) != 1 || !pg.HasMore || pg.Rows[0].Type != "REDEEM" ||
		pg.Rows[0].AmountUSDC != nil || *pg.Rows[0].PayoutUSDC != m("150") {
		t.Fatalf("combo activity page 1: %+v %v", pg, err)
	}
	pg, err = db.ComboActivity(ctx, store.ComboActivityParams{User: addr(1), Limit: 1, After: pg.Next})
	if err != nil || len(pg.Rows) != 1 || pg.HasMore || pg.Rows[0].Type != "SPLIT" || *pg.Rows[0].AmountUSDC != m("50") ||
		pg.Rows[0].PayoutUSDC != nil || !strings.HasPrefix(pg.Rows[0].ID, pg.Rows[0].TransactionHash+"-") {
		t.Fatalf("combo activity page 2: %+v %v", pg, err)
	}

	act, err := db.Activity(ctx, store.ActivityParams{User: addr(1), Limit: 10})
	if err != nil || len(act.Rows) != 1 || !act.Rows[0].IsCombo || act.Rows[0].ConditionID != comboID ||
		act.Rows[0].TokenID != "9001" || act.Rows[0].Side != "BUY" {
		t.Fatalf("combo trade activity %+v %v", act.Rows, err)
	}
	js, _ := json.Marshal(act.Rows[0])
	if !strings.Contains(string(js), `"is_combo":true`) {
		t.Fatal(string(js))
	}
	tr, err := db.Trades(ctx, store.TradesParams{User: addr(1), IncludeMaker: true, Now: b.ts, Limit: 10})
	if err != nil || len(tr.Rows) != 0 {
		t.Fatalf("combo trades leak into /v2/trades: %+v", tr.Rows)
	}
}
