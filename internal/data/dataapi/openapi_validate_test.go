package dataapi_test

import (
	"archive/zip"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/getkin/kin-openapi/routers"

	"pmx/internal/clock"
	"pmx/internal/data/dataapi"
	"pmx/internal/data/ledger"
	"pmx/internal/data/sqlite"
	"pmx/internal/data/store"
	"pmx/internal/ratelimit"
)

// Identifiers of testdata/openapi_ledger.ndjson (the ledger package's valid
// sample plus two trades that leave open positions).
const (
	oaW      = "0x379a410a36c101e3b8dfb6c90d1176eb0def4b1a" // taker; redeems, trades a combo
	oaW2     = "0x00000000000000000000000000000000000000aa" // maker; splits, merges, converts
	oaNobody = "0x00000000000000000000000000000000000000fe"
	oaC1     = "0x571aafcdc9d3549ac260d5f956adc4ae57d9ace63575abd99db58ba0130e9fcf" // resolved
	oaC2     = "0x1111111111111111111111111111111111111111111111111111111111111111"
	oaCombo  = "0x03449eec66c044cecb729af4169b45afbf0000000000000000000000000000"
)

// oaStore is a real store that can be made to fail, for the 500 and 503
// answers: Value times out, UserVolume breaks.
type oaStore struct{ store.Store }

type oaTimeout struct{}

func (oaTimeout) Error() string { return "statement timeout" }
func (oaTimeout) Timeout() bool { return true }

func (s oaStore) Value(context.Context, store.ValueParams) (store.Value, error) {
	return store.Value{}, oaTimeout{}
}
func (s oaStore) UserVolume(context.Context, store.UserVolumeParams) (store.UserVolume, error) {
	return store.UserVolume{}, errors.New("disk on fire")
}

// The accounting snapshot is a ZIP: kin-openapi needs to be told that such
// a body is a file (its schema is a string with contentMediaType).
func init() { openapi3filter.RegisterBodyDecoder("application/zip", openapi3filter.FileBodyDecoder) }

type oaServers struct {
	good, bad *httptest.Server
	served    []string
}

func oaStart(t *testing.T) oaServers {
	t.Helper()
	f, err := os.Open(filepath.Join("testdata", "openapi_ledger.ndjson"))
	if err != nil {
		t.Fatal(err)
	}
	evs, err := ledger.ParseAll(f)
	f.Close()
	if err != nil {
		t.Fatal(err)
	}
	db, err := openStore(t, sqlite.Options{ReadConns: 2})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Apply(context.Background(), evs); err != nil {
		t.Fatal(err)
	}
	key := []byte("openapi-test-cursor-secret")
	good := dataapi.New(dataapi.Options{Store: db, CursorKey: key})
	// The bad server fails on purpose: a broken store, and an allowance of
	// one /v2/user-stats request per hour on a clock that never moves, so
	// the second is 429 at once (no sleeping).
	lim := ratelimit.Config{MaxWait: time.Millisecond, Rules: []ratelimit.Rule{{Scope: "t", Limit: 1, Window: time.Hour,
		Match: ratelimit.Match{Paths: []string{"/v2/user-stats"}}}}}
	bad := dataapi.New(dataapi.Options{Store: oaStore{db}, CursorKey: key, Limits: &lim,
		Clock: clock.NewManual(time.Date(2026, 9, 20, 0, 0, 0, 0, time.UTC))})
	s := oaServers{good: httptest.NewServer(good), bad: httptest.NewServer(bad), served: good.Routes()}
	t.Cleanup(func() { s.good.Close(); s.bad.Close(); db.Close() })
	return s
}

// oaCase is one real request. Its response must have the given status and
// match the document. Requests marked offSpec deliberately break the
// documented parameters, so only their response is validated.
type oaCase struct {
	method, target string
	status         int
	offSpec        bool
	bad            bool // send to the failing server
	follow         bool // also fetch and validate the next page
}

func oaCases() []oaCase {
	u := "user=" + oaW
	return []oaCase{
		// wallet
		{target: "/v2/positions?" + u, status: 200},
		{target: "/v2/positions?" + u + "&status=CLOSED", status: 200},
		{target: "/v2/positions?" + u + "&status=REDEEMABLE&sortBy=PRICE&sortDirection=ASC", status: 200},
		{target: "/v2/positions?user=" + oaW2 + "&status=MERGEABLE&include_archived=true", status: 200},
		{target: "/v2/positions?condition=" + oaC2 + "&limit=1", status: 200, follow: true},
		{target: "/v2/positions?" + u + "&limit=1", status: 200, follow: true},
		{target: "/v2/positions/combos?" + u, status: 200},
		{target: "/v2/positions/combos?user=" + oaW2, status: 200},
		{target: "/v2/positions?user=" + oaW2 + "&status=REDEEMABLE", status: 200},
		{target: "/v2/positions/combos?" + u + "&status=RESOLVED_WIN,RESOLVED_LOSS&sort_by=UPDATED", status: 200},
		{target: "/v2/value?" + u, status: 200},
		{target: "/v2/value?" + u + "&condition=" + oaC2, status: 200},
		{target: "/v2/approvals?" + u, status: 200},
		{target: "/v2/approvals?user=" + oaNobody, status: 200},
		{target: "/v2/user-pnl?" + u + "&interval=1w&fidelity=1d", status: 200},
		// An alias of a required parameter: OpenAPI cannot express it (the
		// document lists it in x-pmx-aliases), so only the answer is checked.
		{target: "/v2/user-pnl?user_address=" + oaW2 + "&interval=max&fidelity=1d", status: 200, offSpec: true},
		{target: "/v2/user-stats?" + u, status: 200},
		{target: "/v2/user-stats?user=" + oaNobody, status: 200},
		{target: "/v2/user-volume?" + u + "&start=1789300000&end=1789400000", status: 200},
		// feeds
		{target: "/v2/trades", status: 200},
		{target: "/v2/trades?" + u + "&start=1&side=BUY", status: 200},
		{target: "/v2/trades?condition=" + oaC1 + "&taker_only=false&filter_type=CASH&filter_amount=1", status: 200},
		{target: "/v2/trades?" + u + "&start=1&limit=1", status: 200, follow: true},
		{target: "/v2/activity?" + u + "&start=1", status: 200},
		{target: "/v2/activity?user=" + oaW2 + "&start=1&type=TRADE,SPLIT,MERGE,CONVERSION,REWARD,TIP&exclude_deposits_withdrawals=false", status: 200},
		{target: "/v2/activity?" + u + "&start=1&sort_direction=ASC&limit=2&excludeDepositsWithdrawals=false", status: 200, follow: true},
		{target: "/v2/activity/combos?" + u, status: 200},
		{target: "/v2/activity/combos?" + u + "&condition=" + oaCombo + "&limit=1", status: 200},
		// markets
		{target: "/v2/holders?condition=" + oaC2, status: 200},
		{target: "/v2/holders?condition=" + oaC2 + "&include_pnl=true", status: 200},
		{target: "/v2/oi", status: 200},
		{target: "/v2/oi?condition=" + oaC1 + "," + oaC2, status: 200},
		{target: "/v2/live-volume?event_id=1001,1002", status: 200},
		{target: "/v2/prices-history?token_id=11&interval=max", status: 200},
		{target: "/v2/resolutions?condition=" + oaC1, status: 200},
		{target: "/v2/resolutions?event_id=1001,1002", status: 200},
		{target: "/v2/resolutions?question_id=" + oaC2, status: 200},
		{target: "/v2/resolutions?condition=" + oaC1 + "&event_id=1001", status: 400},
		{target: "/v2/prices-history?token_id=12&start=1789300000&end=1789400000&bucket_seconds=60", status: 200},
		{target: "/v2/prices-history?token_id=11&as_of=1789400000", status: 200},
		{target: "/v2/prices-history?token_id=11&interval=max&limit=1", status: 200, follow: true},
		{target: "/v2/prices-history?token_id=11&start=0", status: 400, offSpec: true},
		{target: "/v2/holders?condition=" + oaC1 + "&limit=1&min_balance=1", status: 200},
		{target: "/v2/live-volume?id=9999", status: 200, offSpec: true},
		{target: "/v2/tokens?token_id=11&condition=" + oaC1, status: 400},
		{target: "/v2/status?offset=1", status: 400, offSpec: true},
		{target: "/v2/tokens?token_id=11,12", status: 200},
		{target: "/v2/tokens?condition=" + oaC1, status: 200},
		// boards
		{target: "/v2/leaderboard?time_period=all", status: 200},
		{target: "/v2/leaderboard?time_period=all&sort_by=VOLUME", status: 200},
		{target: "/v2/leaderboard?time_period=all&" + u, status: 200},
		{target: "/v2/leaderboard?time_period=all&user=" + oaNobody, status: 200},
		{target: "/v2/biggest-winners?time_period=all", status: 200},
		{target: "/v2/biggest-winners?time_period=all&category=combos", status: 200},
		{target: "/v2/biggest-winners?timePeriod=all&category=weather&limit=1", status: 200, follow: true},
		{target: "/v2/leaderboard?time_period=all&category=politics", status: 200},
		{target: "/v2/leaderboard?time_period=all&limit=1", status: 200, follow: true},
		{target: "/v2/builders/volume?interval=day&limit=90", status: 200},
		{target: "/v2/builders/leaderboard?time_period=all&limit=1", status: 200},
		{target: "/v2/builders/leaderboard?time_period=all", status: 200},
		{target: "/v2/builders/volume?interval=all", status: 200},
		// service
		{target: "/v2/status", status: 200},
		{target: "/v2/openapi.json", status: 200},
		{target: "/v1/accounting/snapshot?" + u, status: 200},
		// errors
		{target: "/v2/positions", status: 400},
		{target: "/v2/positions?" + u + "&sort_by=NOPE", status: 400, offSpec: true},
		{target: "/v2/value", status: 400, offSpec: true},
		{target: "/v2/trades?offset=5", status: 400, offSpec: true},
		{target: "/v2/trades?limit=5000", status: 400, offSpec: true},
		{target: "/v2/trades?cursor=bm90LWEtY3Vyc29y", status: 400},
		{target: "/v2/user-pnl?" + u + "&interval=2d", status: 400, offSpec: true},
		{target: "/v2/activity?" + u + "&condition=" + oaC1 + "&event_id=1001", status: 400},
		{target: "/v2/nope", status: 404},
		{target: "/v2/trades/", status: 404},
		{method: "POST", target: "/v2/trades", status: 405},
		{method: "DELETE", target: "/v2/openapi.json", status: 405},
		{target: "/v2/value?" + u, status: 503, bad: true},
		{target: "/v2/user-volume?" + u, status: 500, bad: true},
		{target: "/v2/user-stats?" + u, status: 200, bad: true},
		{target: "/v2/user-stats?" + u, status: 429, bad: true},
	}
}

// TestOpenAPIValidatesRealResponses calls every route through a real server
// on a ledger-loaded store and validates status, headers and body against
// the document (kin-openapi, JSON Schema 2020-12 for this 3.1 document).
// Every documented route must be exercised with a 200, and every retired v1
// route (deprecated in the document) must answer its documented 410.
func TestOpenAPIValidatesRealResponses(t *testing.T) {
	doc := loadOpenAPI(t)
	srv := oaStart(t)
	cases := oaCases()
	for p, item := range doc.Paths.Map() {
		if item.Get != nil && item.Get.Deprecated {
			cases = append(cases, oaCase{target: p, status: 410})
		}
	}
	exercised := map[string]bool{}
	for _, tc := range cases {
		route, _, _ := strings.Cut(tc.target, "?")
		if tc.method == "" {
			tc.method = http.MethodGet
		}
		name := tc.method + " " + tc.target
		base := srv.good.URL
		if tc.bad {
			base = srv.bad.URL
		}
		next := oaCheck(t, doc, base, tc, name)
		if tc.status == 200 && tc.method == http.MethodGet {
			exercised[route] = true
		}
		if tc.follow {
			if next == "" {
				t.Errorf("%s: expected a next page", name)
				continue
			}
			tc.target += "&cursor=" + url.QueryEscape(next)
			oaCheck(t, doc, base, tc, name+" (page 2)")
		}
	}
	for p, item := range doc.Paths.Map() {
		if item.Get != nil && !item.Get.Deprecated && !exercised[p] {
			t.Errorf("documented route %s has no 200 case", p)
		}
	}
}

// oaCheck makes one request, validates it, and returns the page's
// next_cursor ("" when none).
func oaCheck(t *testing.T, doc *openapi3.T, base string, tc oaCase, name string) string {
	t.Helper()
	req, err := http.NewRequest(tc.method, base+tc.target, nil)
	if err != nil {
		t.Fatal(err)
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	body, err := io.ReadAll(res.Body)
	res.Body.Close()
	if err != nil {
		t.Fatal(err)
	}
	if res.StatusCode != tc.status {
		t.Errorf("%s: status %d want %d: %s", name, res.StatusCode, tc.status, oaClip(body))
		return ""
	}
	route, err := oaRoute(doc, req, res.StatusCode)
	if err != nil {
		t.Errorf("%s: %v", name, err)
		return ""
	}
	ctx := context.Background()
	in := &openapi3filter.RequestValidationInput{Request: req, Route: route,
		Options: &openapi3filter.Options{IncludeResponseStatus: true, MultiError: true}}
	if !tc.offSpec && route.Operation.OperationID != "" {
		if err := openapi3filter.ValidateRequest(ctx, in); err != nil {
			t.Errorf("%s: request outside the document: %v", name, err)
		}
		// kin-openapi ignores unknown query parameters; every name a
		// well-formed case sends must be documented (or a listed alias).
		for k := range req.URL.Query() {
			if !oaDocumentsParam(route.Operation, k) {
				t.Errorf("%s: parameter %q is not documented", name, k)
			}
		}
	}
	out := &openapi3filter.ResponseValidationInput{RequestValidationInput: in, Status: res.StatusCode,
		Header: res.Header, Body: io.NopCloser(bytes.NewReader(body)), Options: in.Options}
	if err := openapi3filter.ValidateResponse(ctx, out); err != nil {
		t.Errorf("%s: response does not match the document: %v\nbody: %s", name, err, oaClip(body))
	}
	if res.Header.Get("Content-Type") == "application/zip" {
		// The document promises a ZIP holding positions.csv and equity.csv.
		zr, err := zip.NewReader(bytes.NewReader(body), int64(len(body)))
		var names []string
		if err == nil {
			for _, f := range zr.File {
				names = append(names, f.Name)
			}
		}
		if !slices.Equal(names, []string{"positions.csv", "equity.csv"}) {
			t.Errorf("%s: zip holds %v (%v)", name, names, err)
		}
	}
	if res.StatusCode >= 400 {
		var e struct {
			TraceID string `json:"trace_id"`
		}
		if json.Unmarshal(body, &e) != nil || e.TraceID != res.Header.Get("x-trace-id") {
			t.Errorf("%s: trace_id %q differs from x-trace-id %q", name, e.TraceID, res.Header.Get("x-trace-id"))
		}
		return ""
	}
	var pg struct {
		Pagination *struct {
			NextCursor *string `json:"next_cursor"`
		} `json:"pagination"`
	}
	if json.Unmarshal(body, &pg) == nil && pg.Pagination != nil && pg.Pagination.NextCursor != nil {
		return *pg.Pagination.NextCursor
	}
	return ""
}

// oaRoute is the documented operation a request reached. Paths are exact
// (no templates), so the lookup is a map access. An unknown path or a
// method other than GET has no operation: its answer is checked against the
// document's shared NotFound / MethodNotAllowed responses instead.
func oaRoute(doc *openapi3.T, req *http.Request, status int) (*routers.Route, error) {
	path := req.URL.Path
	item := doc.Paths.Value(path)
	if item != nil && req.Method == http.MethodGet {
		return &routers.Route{Spec: doc, Path: path, PathItem: item, Method: req.Method, Operation: item.Get}, nil
	}
	name := "NotFound"
	if item != nil {
		name = "MethodNotAllowed"
	}
	ref := doc.Components.Responses[name]
	if ref == nil {
		return nil, errors.New("no components.responses." + name)
	}
	op := openapi3.NewOperation()
	op.Responses = openapi3.NewResponses(openapi3.WithStatus(status, ref))
	return &routers.Route{Spec: doc, Path: path, PathItem: &openapi3.PathItem{}, Method: req.Method, Operation: op}, nil
}

func oaDocumentsParam(op *openapi3.Operation, name string) bool {
	for _, pr := range op.Parameters {
		if pr.Value.Name == name || slices.Contains(oaAliases(pr.Value), name) {
			return true
		}
	}
	return false
}

func oaClip(b []byte) string {
	if len(b) > 600 {
		return string(b[:600]) + "…"
	}
	return string(b)
}

// TestOpenAPIValidationCatchesDrift shows the response validation is live:
// against a document that drifted from the handlers, the same real
// responses must be rejected.
func TestOpenAPIValidationCatchesDrift(t *testing.T) {
	srv := oaStart(t)
	var raw map[string]any
	if err := json.Unmarshal(dataapi.OpenAPIDocument(), &raw); err != nil {
		t.Fatal(err)
	}
	schema := func(name string) map[string]any {
		return raw["components"].(map[string]any)["schemas"].(map[string]any)[name].(map[string]any)
	}
	cases := []struct {
		target string
		status int
		drift  func()
	}{
		{"/v2/positions?user=" + oaW, 200, func() { // a field the handler sends is undocumented
			pos := schema("Position")
			delete(pos["properties"].(map[string]any), "verified")
			pos["required"] = slices.DeleteFunc(pos["required"].([]any), func(v any) bool { return v == "verified" })
		}},
		{"/v2/trades?user=" + oaW + "&start=1", 200, func() { // a documented field is not sent
			tr := schema("Trade")
			tr["properties"].(map[string]any)["fill_id"] = map[string]any{"type": "string"}
			tr["required"] = append(tr["required"].([]any), "fill_id")
		}},
		{"/v2/user-stats?user=" + oaNobody, 200, func() { // null data not allowed
			raw["components"].(map[string]any)["schemas"].(map[string]any)["UserStatsEnvelope"] = map[string]any{
				"type": "object", "required": []any{"data"}, "properties": map[string]any{"data": map[string]any{"$ref": "#/components/schemas/UserStats"}}}
		}},
		{"/traded", 410, func() { // gone is not a documented code
			ec := schema("ErrorCode")
			ec["enum"] = slices.DeleteFunc(ec["enum"].([]any), func(v any) bool { return v == "gone" })
		}},
	}
	for _, tc := range cases {
		tc.drift()
	}
	src, err := json.Marshal(raw)
	if err != nil {
		t.Fatal(err)
	}
	doc := loadOpenAPIFrom(t, src)
	for _, tc := range cases {
		req, _ := http.NewRequest(http.MethodGet, srv.good.URL+tc.target, nil)
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(res.Body)
		res.Body.Close()
		if res.StatusCode != tc.status {
			t.Fatalf("%s: status %d", tc.target, res.StatusCode)
		}
		route, err := oaRoute(doc, req, res.StatusCode)
		if err != nil {
			t.Fatal(err)
		}
		in := &openapi3filter.RequestValidationInput{Request: req, Route: route}
		err = openapi3filter.ValidateResponse(context.Background(), &openapi3filter.ResponseValidationInput{
			RequestValidationInput: in, Status: res.StatusCode, Header: res.Header, Body: io.NopCloser(bytes.NewReader(body)),
			Options: &openapi3filter.Options{IncludeResponseStatus: true}})
		if err == nil {
			t.Errorf("%s: drifted document accepted the response", tc.target)
		}
	}
}
