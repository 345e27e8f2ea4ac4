package sqlite_test

import (
	"slices"
	"testing"

	"pmx/internal/amount"
	"pmx/internal/data/ledger"
	"pmx/internal/data/store"
)

// statusWorld: wallet 1 holds
//
//	market 1 (live, marked YES 0.7): 10 YES, 10 NO           → OPEN, mergeable
//	market 2 (resolved YES):         3 YES, 4 NO             → REDEEMABLE (win, loss)
//	market 3 (live):                 0.05 YES, 0.05 NO       → dust: CLOSED
//	market 4 (archived):             2 YES, 2 NO             → hidden unless include_archived
func statusWorld(t *testing.T) (store.Store, int64) {
	db, _ := openDB(t)
	b := newBuilder(1_780_000_000)
	yes := true
	m4 := binary(4, 4, false)
	m4.Archived = &yes
	mustApply(t, db, binary(1, 1, false), binary(2, 2, false), binary(3, 3, false), m4,
		b.env(userEv(ledger.KindSplit, 1, 1, "10"), 10),
		b.env(userEv(ledger.KindSplit, 2, 1, "5"), 10),
		b.env(trade("11", 2, 3, "BUY", "0.7", "1", ""), 10),
		b.env(userEv(ledger.KindSplit, 1, 3, "0.05"), 10),
		b.env(userEv(ledger.KindSplit, 1, 4, "2"), 10),
		b.env(userEv(ledger.KindSplit, 1, 2, "4"), 1000),
		b.env(trade("21", 5, 1, "SELL", "0.5", "1", ""), 10),
		ledger.Event{Kind: ledger.KindResolution, ConditionID: cond(2), Payouts: []amount.Micro{amount.One, 0}, ResolvedAt: b.ts},
	)
	return db, b.ts
}

func TestPositionStatuses(t *testing.T) {
	db, last := statusWorld(t)
	u := addr(1)
	tests := []struct {
		name string
		p    store.PositionsParams
		want []string // token ids in order
		stat []string // row statuses in order (optional)
	}{
		// Values 7, 3, 3, 0: the 3s tie and break on token id, DESC like the sort.
		{"open default sort", store.PositionsParams{User: u}, []string{"11", "21", "12", "22"}, []string{"OPEN", "REDEEMABLE", "OPEN", "REDEEMABLE"}},
		{"open archived", store.PositionsParams{User: u, IncludeArchived: true, SortBy: store.SortTokens, Ascending: true},
			[]string{"41", "42", "21", "22", "11", "12"}, nil},
		{"redeemable winners first", store.PositionsParams{User: u, Status: store.StatusRedeemable, Ascending: true},
			[]string{"21", "22"}, []string{"REDEEMABLE", "REDEEMABLE"}},
		{"redeemable lost", store.PositionsParams{User: u, Status: store.StatusRedeemableLost}, []string{"22"}, []string{"REDEEMABLE"}},
		{"mergeable", store.PositionsParams{User: u, Status: store.StatusMergeable}, []string{"12", "11"}, nil},
		{"closed dust", store.PositionsParams{User: u, Status: store.StatusClosed}, []string{"32", "31"}, []string{"CLOSED", "CLOSED"}},
		{"tokens floor", store.PositionsParams{User: u, FilterAmount: m("4"), SortBy: store.SortTokens}, []string{"12", "11", "22"}, nil},
		{"cash floor", store.PositionsParams{User: u, FilterType: store.FilterCash, FilterAmount: m("3")}, []string{"11", "21", "12"}, nil},
		{"title like", store.PositionsParams{User: u, Title: "market _?"}, []string{"11", "21", "12", "22"}, nil},
		{"title one", store.PositionsParams{User: u, Title: "ket 2"}, []string{"21", "22"}, nil},
		{"event", store.PositionsParams{User: u, EventIDs: []int64{2}}, []string{"21", "22"}, nil},
		{"condition", store.PositionsParams{User: u, Conditions: []string{cond(1)}}, []string{"11", "12"}, nil},
		{"start on last event", store.PositionsParams{User: u, Start: last - 500}, []string{"21", "22"}, nil},
		{"end on last event", store.PositionsParams{User: u, End: last - 500}, []string{"11", "12"}, nil},
		{"market anchor", store.PositionsParams{Conditions: []string{cond(1)}, SortBy: store.SortTokens},
			[]string{"12", "11", "12", "11", "11"}, nil},
		{"market anchor closed", store.PositionsParams{Conditions: []string{cond(1)}, Status: store.StatusClosed}, []string{}, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			rows := positions(t, db, tc.p)
			var got, stat []string
			for _, r := range rows {
				got, stat = append(got, r.TokenID), append(stat, r.Status)
			}
			if !slices.Equal(got, tc.want) && !(len(got) == 0 && len(tc.want) == 0) {
				t.Fatalf("tokens %v, want %v", got, tc.want)
			}
			if tc.stat != nil && !slices.Equal(stat, tc.stat) {
				t.Fatalf("statuses %v, want %v", stat, tc.stat)
			}
		})
	}
	rows := byToken(positions(t, db, store.PositionsParams{User: u}))
	if !rows["11"].Mergeable || rows["21"].Mergeable || !rows["21"].Redeemable || rows["11"].Redeemable {
		t.Fatalf("flags: %+v %+v", rows["11"], rows["21"])
	}
	if r := rows["11"]; r.OppositeTokenID != "12" || r.OppositeOutcome != "No" || r.EventID != "1" ||
		r.EndDate != "2026-12-31" || r.CurrentPrice != m("0.7") || r.OutcomeIndex != 0 {
		t.Fatalf("enrichment: %+v", r)
	}
}
