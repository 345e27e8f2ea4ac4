package hostile

import (
	"net/http"
	"strings"
	"testing"
)

// Issue 14 §3: an over-budget client cannot make perps read (and hold) a
// body: the IP budget is charged before the first body byte, so a request
// that declares 1,000 bytes and sends one is refused at once with 429, not
// held until its body deadline.
func TestPerpsChargesTheIPBudgetBeforeReadingABody(t *testing.T) {
	p := start(t, options{perpsIPBudget: 3})
	for i := 0; ; i++ {
		status, _, _ := do(t, "POST", p.url["perps"]+"/v1/trade/orders", "{}", nil)
		if status == http.StatusTooManyRequests {
			break
		}
		if i == 10 {
			t.Fatal("budget of 3 never ran out")
		}
	}
	res, body := raw(t, p.url["perps"], "POST /v1/trade/orders HTTP/1.1\r\nHost: x\r\nContent-Length: 1000\r\n\r\n[")
	if res.StatusCode != http.StatusTooManyRequests || !res.Close || !strings.Contains(body, "ip_rate_limited") {
		t.Fatalf("over budget with a stalled body: %d close=%v %s", res.StatusCode, res.Close, body)
	}
}

// fuzzTarget is one route a fuzz input is sent to.
type fuzzTarget struct {
	probe
	query bool // the input is the query string; else the body
}

var fuzzTargets = []fuzzTarget{
	{probe{"data", "GET", "/v2/trades", false}, true},
	{probe{"data", "GET", "/v2/positions", false}, true},
	{probe{"data", "GET", "/v2/activity", false}, true},
	{probe{"data", "GET", "/v2/leaderboard", false}, true},
	{probe{"catalog", "GET", "/events", false}, true},
	{probe{"catalog", "GET", "/markets", false}, true},
	{probe{"catalog", "GET", "/tags", false}, true},
	{probe{"catalog", "GET", "/series", false}, true},
	{probe{"perps", "GET", "/v1/info/book", false}, true},
	{probe{"perps", "GET", "/v1/info/tickers", false}, true},
	{probe{"perps", "POST", "/v1/trade/orders", false}, false},
	{probe{"perps", "POST", "/v1/account/proxy", false}, false},
	{probe{"admin", "POST", "/admin/catalog", true}, false},
	{probe{"admin", "POST", "/admin/ledger", true}, false},
}

// FuzzRequestDecoders sends each input as the query string or the body of
// every decoding route of every listener (IP limits off, so the input
// reaches the decoder) and applies the hostile test's rules to the answer.
func FuzzRequestDecoders(f *testing.F) {
	for _, s := range []string{"limit=1", "limit=-1&offset=x", "user=0x00&cursor=%ff", "instrument_id=1&depth=9999999999",
		"id=1&id=2&tag_id=x", "[]", "{", `{"id":"1","title":"\u202e"}`, `{"kind":"trade","log_index":"x"}`, `["op",[]]`} {
		f.Add(s)
	}
	p := start(f, options{noIPLimits: true, perpsIPBudget: 1 << 30})
	f.Fuzz(func(t *testing.T, in string) {
		for _, ft := range fuzzTargets {
			hdr := map[string]string{}
			if ft.admin {
				hdr["Authorization"] = "Bearer " + adminToken
			}
			url, body := p.url[ft.service]+ft.path, in
			if ft.query {
				url, body = url+"?"+in, ""
				if strings.IndexFunc(in, func(r rune) bool { return r <= ' ' || r == '#' || r == 0x7f }) >= 0 {
					continue // not a query string a client can send
				}
			}
			status, h, b := do(t, ft.method, url, body, hdr)
			check(t, ft.probe, status, h, b)
		}
	})
}
