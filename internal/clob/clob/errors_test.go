package clob

import "testing"

// TestCatalogue: every code has a status and a message, no message is
// spelled twice, and the override rule gives the contract's statuses.
func TestCatalogue(t *testing.T) {
	seen := map[string]Code{}
	for _, c := range Codes() {
		e := Catalogue[c]
		if e.Msg == "" || e.Status < 400 || e.Status > 599 {
			t.Errorf("code %d: %+v", c, e)
		}
		if prev, dup := seen[e.Msg]; dup {
			t.Errorf("codes %d and %d share %q", prev, c, e.Msg)
		}
		seen[e.Msg] = c
	}
	for c, want := range map[Code]int{ErrMarketNotFound: 404, ErrOrderNotFound: 404, ErrNoOrderbook: 404, ErrNotFound: 404,
		ErrUnauthorized: 401, ErrContextCanceled: 400, ErrTooEarly: 425, ErrTradingDisabled: 503, ErrTooManyRequests: 429} {
		if got := E(c).Status(); got != want {
			t.Errorf("%q: %d, want %d", Catalogue[c].Msg, got, want)
		}
	}
	if got := E(ErrTooManyOrders, 16, 15).Msg; got != "Too many orders in payload: 16, max allowed: 15" {
		t.Errorf("formatted %q", got)
	}
}
