package dataapi_test

import (
	"fmt"
	"net/http"
	"strings"
	"testing"
)

// pagedRoutes are the paged routes with a minimal valid query each.
var pagedRoutes = []string{
	"/v2/positions?user={A}",
	"/v2/positions/combos?user={A}",
	"/v2/trades?user={A}",
	"/v2/activity?user={A}",
	"/v2/activity/combos?user={A}",
}

// walletRoutes take a required or optional `user` (all of this issue's
// routes but trades, where it is optional, are required).
var walletRoutes = []string{
	"/v2/positions", "/v2/positions/combos", "/v2/value", "/v2/approvals", "/v2/user-pnl",
	"/v2/user-stats", "/v2/user-volume", "/v2/trades", "/v2/activity", "/v2/activity/combos",
}

func TestErrors_BodyHasFieldsAndTraceIDEqualsHeader(t *testing.T) {
	w := MustWorld(t)
	e := w.MustError("/v2/value", 400, "invalid_request", "user", "required query param 'user' not provided")
	if e.Retryable == nil || *e.Retryable {
		t.Fatalf("a 400 is not retryable: %+v", e)
	}
	if len(e.TraceID) < 16 {
		t.Fatalf("trace id %q", e.TraceID)
	}
}

func TestTrace_EveryResponseHasAFreshTraceID(t *testing.T) {
	w := MustWorld(t)
	seen := map[string]bool{}
	for _, p := range []string{"/v2/value?user={A}", "/v2/value", "/v2/nope", "/ok", "/v2/trades?offset=1"} {
		for range 2 {
			r := w.Get(p)
			id := MustTraceHeader(t, r)
			if seen[id] {
				t.Fatalf("%s: trace id %s reused", p, id)
			}
			seen[id] = true
		}
	}
	// A client's x-trace-id is not echoed.
	req, _ := http.NewRequest("GET", w.Srv.URL+"/v2/value", nil)
	req.Header.Set("x-trace-id", "client-chosen")
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.Header.Get("x-trace-id") == "client-chosen" {
		t.Fatal("trace id taken from the client")
	}
}

func TestMux_OtherMethodsAre405(t *testing.T) {
	w := MustWorld(t)
	for _, m := range []string{http.MethodPost, http.MethodPut, http.MethodDelete, http.MethodPatch} {
		r := w.Do(m, "/v2/positions?user={A}")
		MustErrorResp(t, r, m, 405, "method_not_allowed", "", "not allowed")
		if !strings.Contains(r.Header.Get("Allow"), "GET") {
			t.Errorf("%s: Allow %q", m, r.Header.Get("Allow"))
		}
	}
	if r := w.Do(http.MethodHead, "/v2/value?user={A}"); r.Status != 200 {
		t.Fatalf("HEAD: %d", r.Status)
	}
}

func TestMux_UnknownPathIs404(t *testing.T) {
	w := MustWorld(t)
	for _, p := range []string{"/v2/nope", "/v2/positions/", "/v3/positions", "/v2"} {
		w.MustError(p, 404, "not_found", "", "")
	}
}

func TestPaging_OffsetParameterIs400(t *testing.T) {
	w := MustWorld(t)
	for _, p := range pagedRoutes {
		for _, o := range []string{"&offset=0", "&offset=10", "&offset="} {
			w.MustError(p+o, 400, "invalid_request", "offset", "cursor")
		}
	}
}

func TestPaging_LimitOverCapIsRejectedNotClamped(t *testing.T) {
	w := MustWorld(t)
	for _, p := range pagedRoutes {
		w.MustError(p+"&limit=1001", 400, "invalid_request", "limit", "1000")
		w.MustError(p+"&limit=-1", 400, "invalid_request", "limit", "")
		w.MustError(p+"&limit=ten", 400, "invalid_request", "limit", "")
		pg := w.MustPage(p + "&limit=1000")
		if *pg.Pagination.Limit != 1000 {
			t.Fatalf("%s: limit echo %d", p, *pg.Pagination.Limit)
		}
		pg = w.MustPage(p)
		if *pg.Pagination.Limit != 100 || *pg.Pagination.Offset != 0 || *pg.Pagination.HasMore || pg.Pagination.NextCursor != nil {
			t.Fatalf("%s: default page %+v", p, pg.Pagination)
		}
	}
}

func TestParams_MoreThan20DistinctConditionsIs400(t *testing.T) {
	w := MustWorld(t)
	var ids, combos []string
	for i := range 21 {
		ids = append(ids, fmt.Sprintf("0x%064x", i+1))
		combos = append(combos, fmt.Sprintf("0x03%060x", i+1))
	}
	twenty := strings.Join(ids[:20], ",") + "," + ids[0] // 21 values, 20 distinct
	for _, p := range []string{"/v2/positions?user={A}", "/v2/value?user={A}", "/v2/trades?", "/v2/activity?user={A}"} {
		w.MustError(p+"&condition="+strings.Join(ids, ","), 400, "invalid_request", "condition", "at most 20")
		w.MustGet(p+"&condition="+twenty, nil)
	}
	// Repeats of the parameter count together.
	w.MustError("/v2/trades?condition="+strings.Join(ids[:11], ",")+"&conditionId="+strings.Join(ids[11:], ","),
		400, "invalid_request", "condition", "at most 20")
	var evs []string
	for i := range 21 {
		evs = append(evs, fmt.Sprint(i+1))
	}
	w.MustError("/v2/trades?event_id="+strings.Join(evs, ","), 400, "invalid_request", "event_id", "at most 20")
	w.MustError("/v2/activity?user={A}&event_id="+strings.Join(evs, ","), 400, "invalid_request", "event_id", "at most 20")
	for _, p := range []string{"/v2/positions/combos?user={A}", "/v2/activity/combos?user={A}"} {
		w.MustError(p+"&condition="+strings.Join(combos, ","), 400, "invalid_request", "condition", "at most 20")
	}
}

func TestParams_MalformedIDNamesTheValue(t *testing.T) {
	w := MustWorld(t)
	for _, tc := range []struct{ path, param, value string }{
		{"/v2/positions?user={A}&condition=", "condition", "0x1234"},
		{"/v2/trades?condition={M1},", "condition", "0xnothex"},
		{"/v2/activity?user={A}&condition=", "condition", "{M1}00"},
		{"/v2/value?user={A}&condition=", "condition", "nope"},
		{"/v2/trades?event_id=", "event_id", "abc"},
		{"/v2/trades?event_id=", "event_id", "-5"},
		{"/v2/positions/combos?user={A}&condition=", "condition", "{M1}"}, // not a combo id
		{"/v2/activity/combos?user={A}&condition=", "condition", "0x0400"},
		{"/v2/trades?user=", "user", "0xabc"},
		{"/v2/user-stats?user=", "user", "alice"},
	} {
		w.MustError(tc.path+tc.value, 400, "invalid_request", tc.param, expand(tc.value))
	}
}

func TestParams_ProtocolContractAsUserIs400(t *testing.T) {
	w := MustWorld(t)
	// The CTF exchange and the conditional tokens contract, in mixed case.
	for _, addr := range []string{"0x4bFb41d5B3570DeFd03C39a9A4D8dE6Bd8B8982E", "0x4d97dcd97ec945f40cf65f87097ace5ea0476045"} {
		for _, route := range walletRoutes {
			w.MustError(route+"?user="+addr, 400, "invalid_request", "user", "protocol contract")
		}
	}
}

func TestParams_MissingUserIs400(t *testing.T) {
	w := MustWorld(t)
	for _, route := range walletRoutes {
		if route == "/v2/trades" || route == "/v2/positions" {
			continue // user optional (positions needs user or condition)
		}
		for _, q := range []string{"", "?user=", "?user=%20"} {
			w.MustError(route+q, 400, "invalid_request", "user", "required query param 'user' not provided")
		}
	}
}

func TestParams_SnakeCamelAndAliases(t *testing.T) {
	w := feedWorld(t)
	same := func(a, b string) {
		t.Helper()
		ra, rb := w.MustGet(a, nil), w.MustGet(b, nil)
		if string(ra.Body) != string(rb.Body) {
			t.Errorf("%s and %s differ:\n%s\n%s", a, b, ra.Body, rb.Body)
		}
	}
	same("/v2/trades?condition={M1}", "/v2/trades?condition_id={M1}")
	same("/v2/trades?condition={M1}", "/v2/trades?conditionId={M1}")
	same("/v2/trades?user={A}&taker_only=false", "/v2/trades?user={A}&takerOnly=false")
	same("/v2/activity?user={A}&event_id=102", "/v2/activity?user={A}&eventId=102")
	same("/v2/activity?user={A}&sort_direction=ASC", "/v2/activity?user={A}&sortDirection=ASC")
	same("/v2/user-volume?user={A}", "/v2/user-volume?user={A}")
	// user-pnl's user_address alias.
	var a, b map[string]any
	w.MustGet("/v2/user-pnl?user={A}&interval=1w&fidelity=1d", &a)
	w.MustGet("/v2/user-pnl?user_address={A}&interval=1w&fidelity=1d", &b)
	if str(a) != str(b) {
		t.Errorf("user_address alias: %s vs %s", str(a), str(b))
	}
	// Conflicting values under two spellings are a 400.
	w.MustError("/v2/trades?user={A}&takerOnly=false&taker_only=true", 400, "invalid_request", "taker_only", "conflicting")
	// Addresses in any case are the same wallet.
	same("/v2/activity?user={A}", "/v2/activity?user="+strings.ToUpper(V("{A}"))[:1]+"x"+strings.ToUpper(V("{A}")[2:]))
}

func TestParams_WalletEnumsHaveExactMessages(t *testing.T) {
	w := MustWorld(t)
	for _, tc := range []struct{ path, param, msg string }{
		{"/v2/user-pnl?user={A}&interval=2d", "interval", "interval must be one of max, all, 1m, 1w, 1d, 12h, 6h"},
		{"/v2/user-pnl?user={A}&interval=1D", "interval", "interval must be one of max, all, 1m, 1w, 1d, 12h, 6h"},
		{"/v2/user-pnl?user={A}&fidelity=5m", "fidelity", "fidelity must be one of 1d, 18h, 12h, 3h, 1h"},
		{"/v2/positions/combos?user={A}&sort_by=NOPE", "sort_by", "sortBy must be one of FIRST_ENTRY, ENTRY_COST, CURRENT_VALUE, UPDATED"},
		{"/v2/positions/combos?user={A}&status=WON", "status", "status must be one of OPEN, REDEEMABLE, PARTIAL, RESOLVED_WIN, RESOLVED_LOSS, RESOLVED_PARTIAL"},
		{"/v2/activity?user={A}&sort_direction=SIDEWAYS", "sort_direction", "sortDirection must be ASC or DESC"},
		{"/v2/activity?user={A}&exclude_deposits_withdrawals=maybe", "exclude_deposits_withdrawals", "true or false"},
		{"/v2/trades?taker_only=maybe", "taker_only", "true or false"},
		{"/v2/user-volume?user={A}&start=yesterday", "start", "integer"},
	} {
		w.MustError(tc.path, 400, "invalid_request", tc.param, tc.msg)
	}
}

func TestParams_WellFormedUnmatchedIDIsEmptyNot404(t *testing.T) {
	w := feedWorld(t)
	for _, p := range []string{"/v2/activity?user={A}&condition={M4}", "/v2/trades?condition={M4}", "/v2/trades?event_id=999",
		"/v2/positions?condition={M4}", "/v2/positions?user={A}&condition={M3}", "/v2/activity/combos?user={A}&condition={X1}",
		"/v2/positions/combos?user={A}&condition={X1}", "/v2/activity?user={C}&event_id=424242"} {
		MustEqualRows(t, p, w.MustPage(p).Data, "type")
	}
}
