package catalogsql_test

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"pmx/internal/amount"
	"pmx/internal/catalog/catalog"
	"pmx/internal/catalog/cataloghttp"
	"pmx/internal/catalog/catalogsql"
)

func ids(t *testing.T, list []map[string]any) string {
	t.Helper()
	var s []string
	for _, o := range list {
		s = append(s, fmt.Sprint(o["id"]))
	}
	return strings.Join(s, ",")
}

func TestEventListingFilters(t *testing.T) {
	e := newEnv(t)
	crypto := catalog.DerivedTagID("crypto")
	for _, c := range []struct{ query, want string }{
		{"", "9001,103,102,101"}, // default: id descending
		{"ascending=true", "101,102,103,9001"},
		{"ascending=true&limit=2", "101,102"},
		{"ascending=true&limit=2&offset=2", "103,9001"},
		{"ascending=true&offset=10", ""},
		{"id=101&id=103&ascending=true", "101,103"},
		{"id=101,9001&ascending=true", "101,9001"},
		{"slug=btc-2026", "101"},
		{fmt.Sprintf("tag_id=%d&ascending=true", crypto), "101,103"},
		{"tag_slug=politics", "9001"},
		{"tag_id=2&related_tags=true", "9001"},
		{fmt.Sprintf("exclude_tag_id=%d&ascending=true", crypto), "102,9001"},
		{"series_id=2", "9001"},
		{"closed=true", "102"},
		{"closed=false&ascending=true", "101,103,9001"},
		{"active=true&ascending=true", "101,102,103,9001"},
		{"archived=true", ""},
		{"featured=true", "9001"},
		{"cyom=true", ""},
		{"title_search=bitcoin", "101"},
		{"end_date_min=2026-10-01T00:00:00Z&ascending=true", "101,103,9001"},
		{"end_date_max=2026-07-01&ascending=true", "102"},
		{"start_date_min=2025-12-31T00:00:00Z", "9001"},
		{"start_date_max=2025-12-31T00:00:00Z", ""},
		{"order=endDate&ascending=true", "102,103,9001,101"},
		{"order=end_date&ascending=false", "101,9001,103,102"},
		{"volume_min=1000", "9001"},
		{"volume_max=1000&ascending=true", "101,102,103"},
		{"liquidity_min=1&liquidity_max=500000", "9001"},
		{"order=volume&ascending=false&limit=2", "9001,103"},
	} {
		var got []map[string]any
		if st := e.get(t, "/events?"+c.query, &got); st != 200 {
			t.Errorf("/events?%s: status %d", c.query, st)
			continue
		}
		if g := ids(t, got); g != c.want {
			t.Errorf("/events?%s = [%s], want [%s]", c.query, g, c.want)
		}
	}
}

func TestMarketListingFilters(t *testing.T) {
	e := newEnv(t)
	crypto := catalog.DerivedTagID("crypto")
	btc100 := catalog.DerivedMarketID(cond(0x11))
	btc150 := catalog.DerivedMarketID(cond(0x12))
	finals := catalog.DerivedMarketID(cond(0x21))
	for _, c := range []struct{ query, want string }{
		{"ascending=true", sortIDs(42, 559651, 559652, btc100, btc150, finals)},
		{"id=42&id=559652&ascending=true", "42,559652"},
		{"slug=eth-5k", "42"},
		{"clob_token_ids=102&clob_token_ids=502&ascending=true", sortIDs(42, btc100)},
		{"condition_ids=" + strings.ToUpper(cond(0x21)[2:4]) + "x", ""},
		{"condition_ids=" + cond(0x21), fmt.Sprint(finals)},
		{"condition_ids=0x" + strings.Repeat("A4", 32), "559651"}, // filters are case-folded
		{"question_ids=0x" + strings.Repeat("ab", 32) + "&ascending=true", "559651,559652"},
		{"market_maker_address=0x0000000000000000000000000000000000000001", ""},
		{"closed=true", fmt.Sprint(finals)},
		{fmt.Sprintf("tag_id=%d&ascending=true", crypto), sortIDs(42, btc100, btc150)},
		{"tag_id=366&ascending=true", "559651,559652"},
		{"end_date_max=2026-07-01", fmt.Sprint(finals)},
		{"start_date_min=2025-01-01&ascending=true", "559651,559652"},
		{"volume_num_min=1&ascending=true", "559651,559652"},
		{"liquidity_num_max=0&ascending=true", sortIDs(42, btc100, btc150, finals)},
		{"order=slug&ascending=true&limit=2", fmt.Sprintf("%d,%d", btc100, btc150)},
		// Live orders: equal volumes tie by id, in the order's direction.
		{"order=volumeNum&ascending=false&limit=2", "559652,559651"},
		{"order=volume_num&ascending=true&limit=2", fmt.Sprintf("42,%d", btc100)},
		{"order=liquidity&ascending=false&volume_num_min=1", "559652,559651"},
	} {
		var got []map[string]any
		if st := e.get(t, "/markets?"+c.query, &got); st != 200 {
			t.Errorf("/markets?%s: status %d", c.query, st)
			continue
		}
		if g := ids(t, got); g != c.want {
			t.Errorf("/markets?%s = [%s], want [%s]", c.query, g, c.want)
		}
	}
}

func sortIDs(v ...int64) string {
	for i := range v {
		for j := i + 1; j < len(v); j++ {
			if v[j] < v[i] {
				v[i], v[j] = v[j], v[i]
			}
		}
	}
	var s []string
	for _, x := range v {
		s = append(s, fmt.Sprint(x))
	}
	return strings.Join(s, ",")
}

func TestSingleObjectRoutes(t *testing.T) {
	e := newEnv(t)
	btc100 := catalog.DerivedMarketID(cond(0x11))
	crypto := catalog.DerivedTagID("crypto")
	for _, c := range []struct {
		path, field, want string
	}{
		{"/events/101", "slug", "btc-2026"},
		{"/events/slug/nba-finals", "id", "102"},
		{"/markets/42", "slug", "eth-5k"},
		{fmt.Sprintf("/markets/%d", btc100), "conditionId", cond(0x11)},
		{"/markets/slug/finals", "question", "NBA finals finals?"},
		{"/tags/2", "slug", "politics"},
		{"/tags/slug/crypto", "id", fmt.Sprint(crypto)},
		{"/series/2", "slug", "elections-2026"},
	} {
		var got map[string]any
		if st := e.get(t, c.path, &got); st != 200 {
			t.Errorf("%s: status %d", c.path, st)
			continue
		}
		if fmt.Sprint(got[c.field]) != c.want {
			t.Errorf("%s: %s = %v, want %s", c.path, c.field, got[c.field], c.want)
		}
	}
	var se map[string]any
	e.get(t, "/series/2", &se)
	if ids(t, objs(t, se["events"])) != "9001" {
		t.Errorf("series events = %v", se["events"])
	}
	var mt []any
	e.get(t, "/markets/42/tags", &mt)
	if len(mt) != 1 || objs(t, mt)[0]["slug"] != "crypto" {
		t.Errorf("/markets/42/tags = %v", mt)
	}
	var m map[string]any
	e.get(t, "/markets/42", &m)
	if evs := objs(t, m["events"]); len(evs) != 1 || evs[0]["id"] != "103" || evs[0]["slug"] != "eth-2026" {
		t.Errorf("market events = %v", m["events"])
	}
}

func TestTagRoutes(t *testing.T) {
	e := newEnv(t)
	for _, c := range []struct{ query, want string }{
		{"ascending=true", fmt.Sprintf("2,366,100215,%s", sortIDs(catalog.DerivedTagID("crypto"), catalog.DerivedTagID("sports")))},
		{"ascending=true&limit=2", "2,366"},
		{"is_carousel=true", "2"},
	} {
		var got []map[string]any
		if st := e.get(t, "/tags?"+c.query, &got); st != 200 {
			t.Fatalf("/tags?%s: %d", c.query, st)
		}
		if g := ids(t, got); g != c.want {
			t.Errorf("/tags?%s = [%s], want [%s]", c.query, g, c.want)
		}
	}
	var rel []map[string]any
	if st := e.get(t, "/tags/2/related-tags", &rel); st != 200 || len(rel) != 1 {
		t.Fatalf("related: %d %v", st, rel)
	}
	r := rel[0]
	if r["id"] != "2-100215" || fmt.Sprint(r["tagID"]) != "2" || fmt.Sprint(r["relatedTagID"]) != "100215" || fmt.Sprint(r["rank"]) != "1" {
		t.Errorf("related tag = %v", r)
	}
	var relTags []map[string]any
	e.get(t, "/tags/slug/politics/related-tags/tags", &relTags)
	if ids(t, relTags) != "100215" {
		t.Errorf("related-tags/tags = %v", relTags)
	}
	e.get(t, "/tags/2/related-tags?status=closed", &rel)
	if len(rel) != 0 {
		t.Errorf("closed related = %v", rel)
	}
	relTags = nil
	if st := e.get(t, "/tags/2/related-tags/tags?status=closed", &relTags); st != 200 || relTags == nil || len(relTags) != 0 {
		t.Errorf("closed related-tags/tags: %d %v", st, relTags)
	}
}

func TestSeriesListing(t *testing.T) {
	e := newEnv(t)
	var got []map[string]any
	e.get(t, "/series?slug=elections-2026", &got)
	if ids(t, got) != "2" {
		t.Errorf("series = %v", got)
	}
	e.get(t, "/series?closed=true", &got)
	if len(got) != 0 {
		t.Errorf("closed series = %v", got)
	}
}

func TestErrors(t *testing.T) {
	e := newEnv(t)
	for _, c := range []struct {
		path   string
		status int
		typ    string
		msg    string
	}{
		{"/events/999999", 404, "not found error", "event not found"},
		{"/events/999999/tags", 404, "not found error", "event not found"},
		{"/events/slug/nope", 404, "not found error", "event not found"},
		{"/markets/7", 404, "not found error", "market not found"},
		{"/markets/slug/nope", 404, "not found error", "market not found"},
		{"/tags/7", 404, "not found error", "tag not found"},
		{"/tags/7/related-tags", 404, "not found error", "tag not found"},
		{"/series/7", 404, "not found error", "series not found"},
		{"/nope", 404, "not found error", "route not found"},
		{"/events/101/nope", 404, "not found error", "route not found"},
		{"/events/abc", 400, "validation error", `id must be a non-negative integer, got "abc"`},
		{"/events/1.5/tags", 400, "validation error", `id must be a non-negative integer, got "1.5"`},
		{"/events/-1", 400, "validation error", `id must be a non-negative integer, got "-1"`},
		{"/events/99999999999999999999", 400, "validation error", `id must be a non-negative integer, got "99999999999999999999"`},
		{"/markets/0x12", 400, "validation error", `id must be a non-negative integer, got "0x12"`},
		{"/tags/x", 400, "validation error", `id must be a non-negative integer, got "x"`},
		{"/series/x", 400, "validation error", `id must be a non-negative integer, got "x"`},
		{"/events?id=abc", 400, "validation error", `id: id must be a non-negative integer, got "abc"`},
		{"/events?closed=maybe", 400, "validation error", `closed must be true or false, got "maybe"`},
		{"/events?limit=-1", 400, "validation error", `limit must be an integer >= 0, got "-1"`},
		{"/events?limit=501", 400, "validation error", "limit must be at most 500, got 501"},
		{"/events?volume_min=lots", 400, "validation error", `volume_min must be a number, got "lots"`},
		{"/events?end_date_min=someday", 400, "validation error", `end_date_min must be an RFC 3339 date-time or a date, got "someday"`},
		{"/events?order=bogus", 400, "validation error", `order "bogus" is not supported here`},
		{"/events/keyset?offset=5", 422, "validation error", "offset is not supported on keyset listings; continue with after_cursor"},
		{"/markets/keyset?offset=0", 422, "validation error", "offset is not supported on keyset listings; continue with after_cursor"},
		{"/events/keyset?order=volume", 400, "validation error", `order "volume" is not supported here`},
		{"/events/keyset?after_cursor=garbage", 400, "validation error", "after_cursor: invalid after_cursor"},
		{"/tags/2/related-tags?status=open", 400, "validation error", `status must be active, closed or all, got "open"`},
	} {
		var body map[string]any
		st := e.get(t, c.path, &body)
		if st != c.status || body["type"] != c.typ || body["error"] != c.msg {
			t.Errorf("%s: %d %v, want %d {%s %q}", c.path, st, body, c.status, c.typ, c.msg)
		}
	}
	resp, err := http.Post(e.srv.URL+"/events", "application/json", nil)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 405 {
		t.Errorf("POST /events: %d", resp.StatusCode)
	}
}

// keysetWalk follows next_cursor to the end and returns the ids seen.
func keysetWalk(t *testing.T, e *env, route, key, query string) []string {
	t.Helper()
	var seen []string
	cursor := ""
	for page := 0; ; page++ {
		if page > 20 {
			t.Fatalf("%s: walk does not end", route)
		}
		q := query
		if cursor != "" {
			q += "&after_cursor=" + url.QueryEscape(cursor)
		}
		var body map[string]any
		if st := e.get(t, route+"?"+q, &body); st != 200 {
			t.Fatalf("%s?%s: %d %v", route, q, st, body)
		}
		for _, o := range objs(t, body[key]) {
			seen = append(seen, fmt.Sprint(o["id"]))
		}
		next, ok := body["next_cursor"]
		if !ok {
			return seen
		}
		cursor = next.(string)
	}
}

func TestKeysetWalks(t *testing.T) {
	e := newEnv(t)
	for _, c := range []struct{ route, key, query, want string }{
		{"/events/keyset", "events", "limit=1", "101,102,103,9001"},
		{"/events/keyset", "events", "limit=3", "101,102,103,9001"},
		{"/events/keyset", "events", "limit=4", "101,102,103,9001"},
		{"/events/keyset", "events", "limit=2&ascending=false", "9001,103,102,101"},
		{"/events/keyset", "events", "limit=1&order=endDate", "102,103,9001,101"},
		{"/events/keyset", "events", "limit=1&order=start_date&ascending=false", "9001,103,102,101"},
		{"/events/keyset", "events", "limit=1&closed=false", "101,103,9001"},
		{"/events/keyset", "events", "limit=1&volume_min=1", "9001"},
		{"/markets/keyset", "markets", "limit=2&order=slug", fmt.Sprintf("%d,%d,42,%d,559651,559652",
			catalog.DerivedMarketID(cond(0x11)), catalog.DerivedMarketID(cond(0x12)), catalog.DerivedMarketID(cond(0x21)))},
		{"/markets/keyset", "markets", "limit=1&id=42&id=559651", "42,559651"},
	} {
		got := strings.Join(keysetWalk(t, e, c.route, c.key, c.query), ",")
		if got != c.want {
			t.Errorf("%s?%s walk = [%s], want [%s]", c.route, c.query, got, c.want)
		}
	}
	// A cursor issued for one order is refused under another.
	var body map[string]any
	e.get(t, "/events/keyset?limit=1", &body)
	var errBody map[string]any
	if st := e.get(t, "/events/keyset?limit=1&order=endDate&after_cursor="+url.QueryEscape(body["next_cursor"].(string)), &errBody); st != 400 {
		t.Errorf("cursor under another order: %d %v", st, errBody)
	}
	// Limits above the keyset maximum are clamped, not refused.
	if st := e.get(t, "/markets/keyset?limit=1000", &body); st != 200 {
		t.Errorf("limit=1000: %d", st)
	}
}

func TestLiveFieldsFollowTheStore(t *testing.T) {
	e := newEnv(t)
	var m map[string]any
	e.get(t, "/markets/42", &m)
	if m["volume"] != "0" || m["lastTradePrice"] != nil {
		t.Fatalf("before any trade: volume %v lastTradePrice %v", m["volume"], m["lastTradePrice"])
	}
	mic := func(s string) *amount.Micro { v := amount.MustParse(s); return &v }
	// A trade is ingested: the data store now reports figures.
	e.live.set(cond(0x13), catalog.Live{
		Volume: mic("125.5"), Volume24hr: mic("25"), Liquidity: mic("300"), OpenInterest: mic("80"),
		LastTradePrice: mic("0.62"), BestBid: mic("0.61"), BestAsk: mic("0.63"),
		OutcomePrices: []amount.Micro{amount.MustParse("0.62"), amount.MustParse("0.38")},
	})
	e.get(t, "/markets/42", &m)
	for f, want := range map[string]string{
		"volume": "125.5", "volumeNum": "125.5", "volume24hr": "25", "liquidity": "300", "liquidityNum": "300",
		"lastTradePrice": "0.62", "bestBid": "0.61", "bestAsk": "0.63", "spread": "0.02",
		"outcomePrices": `["0.62", "0.38"]`,
	} {
		if fmt.Sprint(m[f]) != want {
			t.Errorf("market %s = %v, want %s", f, m[f], want)
		}
	}
	var ev map[string]any
	e.get(t, "/events/103", &ev)
	for f, want := range map[string]string{"volume": "125.5", "volume24hr": "25", "liquidity": "300", "openInterest": "80"} {
		if fmt.Sprint(ev[f]) != want {
			t.Errorf("event %s = %v, want %s", f, ev[f], want)
		}
	}
	// Live figures drive filters and ordering.
	var got []map[string]any
	e.get(t, "/events?volume_min=100&volume_max=200", &got)
	if ids(t, got) != "103" {
		t.Errorf("volume range after trade = [%s]", ids(t, got))
	}
	// Markets nested in an event carry their live figures too, whether or
	// not the listing filtered on live figures.
	for _, c := range []struct {
		path string
		ev   map[string]any
	}{{"/events/103", ev}, {"/events?volume_min=100&volume_max=200", got[0]}} {
		var m42 map[string]any
		for _, m := range objs(t, c.ev["markets"]) {
			if m["id"] == "42" {
				m42 = m
			}
		}
		if m42 == nil || m42["volume"] != "125.5" || fmt.Sprint(m42["lastTradePrice"]) != "0.62" {
			t.Errorf("%s: nested market 42 = volume %v lastTradePrice %v", c.path, m42["volume"], m42["lastTradePrice"])
		}
	}
}

func TestRateLimitHookScopes(t *testing.T) {
	db := openDB(t)
	st, err := catalogsql.New(context.Background(), db)
	if err != nil {
		t.Fatal(err)
	}
	var seen []string
	h := cataloghttp.NewHandler(st, cataloghttp.Options{Limit: func(scopes []string, next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			seen = append(seen, r.URL.Path+"="+strings.Join(scopes, "+"))
			next.ServeHTTP(w, r)
		})
	}})
	for _, p := range []string{"/events/keyset", "/events/1", "/markets", "/tags/1", "/series"} {
		rec := newRecorder()
		h.ServeHTTP(rec, mustReq(p))
	}
	want := "/events/keyset=catalog+catalog-events+catalog-listing|/events/1=catalog+catalog-events|" +
		"/markets=catalog+catalog-markets+catalog-listing|/tags/1=catalog+catalog-tags|/series=catalog"
	if got := strings.Join(seen, "|"); got != want {
		t.Errorf("scopes:\n got %s\nwant %s", got, want)
	}
}

// Readers and a writer at once (run with -race): every read answers 200 and
// a read after the writes sees the last one.
func TestConcurrentReadsAndWrites(t *testing.T) {
	e := newEnv(t)
	done := make(chan struct{})
	errs := make(chan error, 8)
	for range 4 {
		go func() {
			for {
				select {
				case <-done:
					errs <- nil
					return
				default:
				}
				for _, p := range []string{"/events/keyset?limit=2", "/events/101", "/markets?limit=3"} {
					resp, err := http.Get(e.srv.URL + p)
					if err != nil {
						errs <- err
						return
					}
					resp.Body.Close()
					if resp.StatusCode != 200 {
						errs <- fmt.Errorf("%s: %d", p, resp.StatusCode)
						return
					}
				}
			}
		}()
	}
	line := demoMarkets()[0]
	for i := range 20 {
		line.EventTitle = fmt.Sprintf("Bitcoin price %d", i)
		if err := e.store.UpsertFromLedgerMarket(context.Background(), line); err != nil {
			t.Fatal(err)
		}
	}
	close(done)
	for range 4 {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
	var ev map[string]any
	e.get(t, "/events/101", &ev)
	if ev["title"] != "Bitcoin price 19" || objs(t, ev["markets"])[0]["events"].([]any)[0].(map[string]any)["title"] != "Bitcoin price 19" {
		t.Errorf("after writes: title %v", ev["title"])
	}
}

// include_markets=false removes the markets key (gamma-OBSERVED.md); absent
// or true keeps it.
func TestIncludeMarkets(t *testing.T) {
	e := newEnv(t)
	for _, c := range []struct {
		path string
		has  bool
	}{
		{"/events/101", true},
		{"/events/101?include_markets=true", true},
		{"/events/101?include_markets=false", false},
		{"/events/101", true}, // the cached variant does not leak
	} {
		var ev map[string]any
		e.get(t, c.path, &ev)
		if _, ok := ev["markets"]; ok != c.has || ev["id"] != "101" || ev["tags"] == nil {
			t.Errorf("%s: markets present %v, want %v", c.path, ok, c.has)
		}
	}
	var list []map[string]any
	e.get(t, "/events?include_markets=false&id=101", &list)
	if _, ok := list[0]["markets"]; ok {
		t.Errorf("listing kept markets")
	}
	var page map[string]any
	e.get(t, "/events/keyset?include_markets=false&limit=1", &page)
	if _, ok := objs(t, page["events"])[0]["markets"]; ok {
		t.Errorf("keyset kept markets")
	}
}

func TestEncodedSlug(t *testing.T) {
	e := newEnv(t)
	resp, err := http.Post(e.srv.URL+"/admin/catalog", "application/json", strings.NewReader(`{"id":"600","slug":"a/b c"}`))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	var ev map[string]any
	if st := e.get(t, "/events/slug/a%2Fb%20c", &ev); st != 200 || ev["id"] != "600" {
		t.Errorf("encoded slug: %d %v", st, ev)
	}
}
