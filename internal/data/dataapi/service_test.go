package dataapi

import (
	"net/http/httptest"
	"testing"

	"pmx/internal/ratelimit"
)

// TestLimitsWithoutRulesTurnThePerClientAllowanceOff: --ip-limits=false
// serves past the contract's 100 req/10 s on /ok-sized routes without 429.
func TestLimitsWithoutRulesTurnThePerClientAllowanceOff(t *testing.T) {
	key := []byte("0123456789abcdef0123456789abcdef")
	on := New(Options{CursorKey: key, Limits: &ratelimit.Config{Rules: []ratelimit.Rule{{Scope: "all", Limit: 1,
		Window: ratelimit.DataDefaults().Rules[0].Window, Match: ratelimit.Match{Prefixes: []string{"/"}}}}, MaxWait: 1}})
	off := New(Options{CursorKey: key, Limits: &ratelimit.Config{}})
	codes := func(s *Service) (last int) {
		for range 3 {
			rec := httptest.NewRecorder()
			s.ServeHTTP(rec, httptest.NewRequest("GET", "/v2/nope", nil))
			last = rec.Code
		}
		return last
	}
	if c := codes(on); c != 429 {
		t.Fatalf("with a 1-request rule the third request got %d, want 429", c)
	}
	if c := codes(off); c != 404 {
		t.Fatalf("with no rules the third request got %d, want the route's own 404", c)
	}
}

// TestOKCountsAgainstItsOwnAllowance: the data listener's /ok answers
// {"data":"ok"} with a trace id and is limited like any route (the contract's
// /ok row), here to one request per window.
func TestOKCountsAgainstItsOwnAllowance(t *testing.T) {
	s := New(Options{CursorKey: []byte("0123456789abcdef0123456789abcdef"), Limits: &ratelimit.Config{
		MaxWait: 1, Rules: []ratelimit.Rule{{Scope: "ok", Limit: 1, Window: ratelimit.DataDefaults().Rules[0].Window,
			Match: ratelimit.Match{Paths: []string{"/ok"}}}}}})
	rec := httptest.NewRecorder()
	s.ServeHTTP(rec, httptest.NewRequest("GET", "/ok", nil))
	if rec.Code != 200 || rec.Body.String() != `{"data":"ok"}` || rec.Header().Get("x-trace-id") == "" {
		t.Fatalf("first /ok: %d %q trace %q", rec.Code, rec.Body.String(), rec.Header().Get("x-trace-id"))
	}
	rec = httptest.NewRecorder()
	s.ServeHTTP(rec, httptest.NewRequest("GET", "/ok", nil))
	if rec.Code != 429 || rec.Header().Get("Retry-After") == "" {
		t.Fatalf("second /ok in the window: %d, want 429 with Retry-After", rec.Code)
	}
}
