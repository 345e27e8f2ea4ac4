package sqlite_test

import (
	"errors"
	"strings"
	"testing"

	"pmx/internal/amount"
	"pmx/internal/data/ledger"
	"pmx/internal/data/store"
)

// TestResolutionRules: a market resolves once (restating its payouts is
// harmless, other payouts are refused) and redeem needs the resolution. A
// refusal is a store.RejectedError naming the event, and nothing of the
// batch is applied (docs/store.md "Atomicity", docs/ledger-events.md
// "resolution", docs/decisions.md "Ledger errors").
func TestResolutionRules(t *testing.T) {
	res := func(p ...amount.Micro) ledger.Event {
		return ledger.Event{Kind: ledger.KindResolution, ConditionID: cond(1), Payouts: p, ResolvedAt: 1_780_000_100}
	}
	tests := []struct {
		name  string
		batch func(b *builder) []ledger.Event
		event int    // the refused event (1-based); 0 = the batch applies
		want  string // in the refusal
	}{
		{"redeem before resolution", func(b *builder) []ledger.Event {
			return []ledger.Event{b.env(userEv(ledger.KindSplit, 1, 1, "10"), 5), b.env(userEv(ledger.KindRedeem, 1, 1, ""), 5)}
		}, 2, "redeem of unresolved market"},
		{"resolved differently", func(b *builder) []ledger.Event {
			return []ledger.Event{b.env(userEv(ledger.KindSplit, 1, 1, "10"), 5), res(amount.One, 0), res(0, amount.One)}
		}, 3, "already resolved differently"},
		{"resolution restated", func(b *builder) []ledger.Event {
			return []ledger.Event{b.env(userEv(ledger.KindSplit, 1, 1, "10"), 5), res(amount.One, 0), res(amount.One, 0),
				b.env(userEv(ledger.KindRedeem, 1, 1, ""), 5)}
		}, 0, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			db, _ := openDB(t)
			mustApply(t, db, binary(1, 7, false))
			before := snapshot(t, db)
			n, err := db.Apply(ctx, tc.batch(newBuilder(1_780_000_000)))
			if tc.event == 0 {
				if err != nil {
					t.Fatal(err)
				}
				// The redeem paid the winning outcome's 10 shares once.
				ac, err := db.Activity(ctx, store.ActivityParams{User: addr(1), Types: []string{store.ActRedeem}, Limit: 10})
				if err != nil || len(ac.Rows) != 1 || ac.Rows[0].USDCSize != m("10") {
					t.Fatalf("applied %d; redeem rows %+v (%v), want one paying 10", n, ac.Rows, err)
				}
				return
			}
			var re *store.RejectedError
			if !errors.As(err, &re) || re.Event != tc.event || !strings.Contains(re.Error(), tc.want) {
				t.Fatalf("applied %d, err %v; want a RejectedError for event %d containing %q", n, err, tc.event, tc.want)
			}
			if after := snapshot(t, db); after != before {
				t.Fatalf("refused batch changed the store:\n%s\n%s", before, after)
			}
		})
	}
}
