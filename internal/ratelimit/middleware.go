package ratelimit

import (
	"net"
	"net/http"
	"net/netip"
	"strconv"
	"time"
)

// Matcher names the scopes a request is charged against.
type Matcher func(r *http.Request) []string

// Rejecter writes the response for a request that would wait past the bound.
// retryAfter is the remaining wait; scope the rule that bound it.
type Rejecter func(w http.ResponseWriter, r *http.Request, retryAfter time.Duration, scope string)

// KeyFunc extracts the client key of a request.
type KeyFunc func(r *http.Request) string

// Middleware is the limiter as net/http middleware.
type Middleware struct {
	L      *Limiter
	Match  Matcher  // default: the rules' own Match fields
	Reject Rejecter // default: JSONReject
	Key    KeyFunc  // default: ClientIP
}

// Wrap returns next behind the limiter: admitted requests proceed, delayed
// ones wait on the limiter's clock (or until the client goes away), the rest
// are rejected.
func (m Middleware) Wrap(next http.Handler) http.Handler {
	match := m.Match
	if match == nil {
		match = m.L.MatchRules
	}
	reject := m.Reject
	if reject == nil {
		reject = JSONReject
	}
	key := m.Key
	if key == nil {
		key = ClientIP
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		d := m.L.Admit(key(r), match(r))
		if !d.OK {
			reject(w, r, d.RetryAfter, d.Scope)
			return
		}
		if d.Wait > 0 {
			t := m.L.clock.NewTimer(d.Wait)
			select {
			case <-t.C():
			case <-r.Context().Done():
				// The client left; its reservation stays spent.
				t.Stop()
				return
			}
		}
		next.ServeHTTP(w, r)
	})
}

// MatchRules is the default Matcher: every scope whose rule's Match selects
// the request.
func (l *Limiter) MatchRules(r *http.Request) []string {
	var out []string
	last := ""
	for _, ru := range l.rules {
		if ru.Scope != last && ru.Match.matches(r.Method, r.URL.Path) {
			out = append(out, ru.Scope)
			last = ru.Scope
		}
	}
	return out
}

// RetryAfterSeconds renders a wait as a Retry-After value: whole seconds,
// rounded up, at least 1.
func RetryAfterSeconds(d time.Duration) string {
	s := (d + time.Second - 1) / time.Second
	return strconv.FormatInt(max(1, int64(s)), 10)
}

// PlainReject answers 429 with Retry-After and a plain-text body.
func PlainReject(w http.ResponseWriter, _ *http.Request, retryAfter time.Duration, _ string) {
	w.Header().Set("Retry-After", RetryAfterSeconds(retryAfter))
	http.Error(w, "Too many requests", http.StatusTooManyRequests)
}

// JSONReject answers 429 with Retry-After and {"error", "code"}: a listener
// that names no Rejecter still answers in JSON.
func JSONReject(w http.ResponseWriter, _ *http.Request, retryAfter time.Duration, _ string) {
	w.Header().Set("Retry-After", RetryAfterSeconds(retryAfter))
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusTooManyRequests)
	_, _ = w.Write([]byte(`{"error":"too many requests","code":"rate_limited"}`))
}

// ClientIP keys a request by the peer address of its connection (not by
// X-Forwarded-For, which any client can forge; a listener behind a trusted
// proxy supplies its own KeyFunc). IPv6 clients are keyed by their /64, the
// block one host usually owns.
func ClientIP(r *http.Request) string {
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil || host == "" {
		host = r.RemoteAddr
	}
	a, err := netip.ParseAddr(host)
	if err != nil {
		return host
	}
	if a.Is4() {
		return host // ParseAddr takes only canonical dotted quads: host is a.String()
	}
	a = a.Unmap()
	if a.Is6() {
		p, _ := a.Prefix(64)
		return p.String()
	}
	return a.String()
}
