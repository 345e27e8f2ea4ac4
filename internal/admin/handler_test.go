package admin_test

import (
	"context"
	"errors"
	"net/http/httptest"
	"strings"
	"testing"

	"pmx/internal/admin"
	"pmx/internal/data/ledger"
)

// fakeApplier records what reaches the store and answers with err.
type fakeApplier struct {
	calls int
	err   error
}

func (f *fakeApplier) Apply(_ context.Context, evs []ledger.Event) (int, error) {
	f.calls++
	return len(evs), f.err
}

func resolution(payouts string) string {
	return `{"kind":"resolution","condition_id":"0x` + strings.Repeat("11", 32) + `","payouts":[` + payouts + `],"resolved_at":1800000000}` + "\n"
}

// TestPostLedgerLookupReachesStoredMarkets: with Lookup set, a line is
// checked against a market the batch does not declare (one stored
// earlier); without it the same line reaches the store.
func TestPostLedgerLookupReachesStoredMarkets(t *testing.T) {
	stored := "0x" + strings.Repeat("11", 32)
	lookup := func(c string) (int, bool) { return 2, c == stored }
	for _, tc := range []struct {
		name    string
		lookup  admin.OutcomeLookup
		payouts string
		code    int
		applied int // Apply calls
	}{
		{"payout count checked against the stored market", lookup, `"1","0","0"`, 400, 0},
		{"matching payout count applies", lookup, `"1","0"`, 200, 1},
		{"no lookup: nothing to check against", nil, `"1","0","0"`, 200, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			app := &fakeApplier{}
			srv := httptest.NewServer((&admin.Handler{Ledger: app, Lookup: tc.lookup}).Routes())
			defer srv.Close()
			code, body := post(t, srv.URL+"/admin/ledger", resolution(tc.payouts))
			if code != tc.code || app.calls != tc.applied {
				t.Fatalf("%d %v, %d Apply calls", code, body, app.calls)
			}
			if code == 400 && body["line"] != float64(1) {
				t.Fatalf("400 not naming line 1: %v", body)
			}
		})
	}
}

// TestPostLedgerApplyFailureIs500: a store failure that is not a rejection
// of an event is the server's fault, not the caller's.
func TestPostLedgerApplyFailureIs500(t *testing.T) {
	app := &fakeApplier{err: errors.New("disk I/O error")}
	srv := httptest.NewServer((&admin.Handler{Ledger: app}).Routes())
	defer srv.Close()
	code, body := post(t, srv.URL+"/admin/ledger", resolution(`"1","0"`))
	if code != 500 || body["code"] != "internal" {
		t.Fatalf("%d %v", code, body)
	}
}
