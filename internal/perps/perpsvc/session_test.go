package perpsvc

import (
	"slices"
	"testing"

	"pmx/internal/perps/perps"
	"pmx/internal/perps/perpsauth"
)

// TestSubscriptionIndex: the fan-out finds a channel's subscribers in the
// index (private channels per account), and subscribe, unsubscribe, auth,
// a failed re-auth and close keep the index exact.
func TestSubscriptionIndex(t *testing.T) {
	s := newTestService(t)
	secrets := map[string]string{}
	for _, p := range []struct{ proxy, acct string }{{"0x00000000000000000000000000000000000000a1", "0xaa"},
		{"0x00000000000000000000000000000000000000b1", "0xbb"}} {
		secret, hash := perpsauth.NewProxySecret()
		s.creds.put(perps.Proxy{Addr: p.proxy, Account: p.acct, Hash: hash, ExpiryMs: t0 + 1e9})
		secrets[p.acct] = p.proxy + " " + secret
	}
	auth := func(c *Session, acct string) error {
		ps := secrets[acct]
		return c.Auth(ps[:42], ps[43:])
	}
	subs := func(key string) []*Session { return s.hub.subscribers(nil, key) }
	s1, s2, s3 := s.NewSession(nil), s.NewSession(nil), s.NewSession(nil)
	if err := auth(s1, "0xaa"); err != nil {
		t.Fatal(err)
	}
	if err := auth(s2, "0xbb"); err != nil {
		t.Fatal(err)
	}
	s1.Subscribe([]string{"orders", "fills", "trades::1"}, true)
	s2.Subscribe([]string{"orders"}, true)
	if errs := s3.Subscribe([]string{"orders", "trades::1", "tickers::all"}, true); errs[0] == nil || errs[1] != nil || errs[2] != nil {
		t.Fatalf("unauthenticated subscribe: %v", errs)
	}
	for key, want := range map[string][]*Session{"orders|0xaa": {s1}, "orders|0xbb": {s2}, "fills|0xaa": {s1},
		"orders|": nil, "trades::1": {s1, s3}, "tickers::all": {s3}} {
		got := subs(key)
		if len(got) != len(want) || !sameSet(got, want) {
			t.Errorf("%s: %d sessions, want %d", key, len(got), len(want))
		}
	}
	// A frame labelled tickers::5 reaches "tickers::5" and "tickers::all"
	// subscribers, each once.
	s3.Subscribe([]string{"tickers::5"}, true)
	if got := s.hub.subscribers(nil, "tickers::5", "tickers::all"); len(got) != 1 {
		t.Errorf("alias lookup: %d sessions", len(got))
	}
	// Re-auth as another account moves the private entries.
	if err := auth(s2, "0xaa"); err != nil {
		t.Fatal(err)
	}
	if len(subs("orders|0xbb")) != 0 || len(subs("orders|0xaa")) != 2 {
		t.Errorf("re-auth did not move the index: bb %d, aa %d", len(subs("orders|0xbb")), len(subs("orders|0xaa")))
	}
	// A failed re-auth drops the authentication and the private channels.
	if err := s1.Auth("0x00000000000000000000000000000000000000a1", "wrong"); err == nil {
		t.Fatal("wrong secret accepted")
	}
	if s1.Account() != "" || len(subs("orders|0xaa")) != 1 || len(subs("fills|0xaa")) != 0 || len(subs("trades::1")) != 2 {
		t.Errorf("after a failed re-auth: account %q, orders %d, fills %d, trades %d", s1.Account(),
			len(subs("orders|0xaa")), len(subs("fills|0xaa")), len(subs("trades::1")))
	}
	s3.Subscribe([]string{"trades::1"}, false)
	s1.Close()
	s2.Close()
	if len(subs("trades::1")) != 0 || len(subs("orders|0xaa")) != 0 || len(s.hub.all()) != 1 {
		t.Errorf("after close: trades %d, orders %d, sessions %d", len(subs("trades::1")), len(subs("orders|0xaa")), len(s.hub.all()))
	}
	s3.Close()
	if !s.hub.empty() || len(s.hub.all()) != 0 {
		t.Error("the index keeps closed sessions")
	}
}

func sameSet(a, b []*Session) bool {
	for _, x := range a {
		if !slices.Contains(b, x) {
			return false
		}
	}
	return true
}
