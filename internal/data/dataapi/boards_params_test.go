package dataapi_test

import (
	"net/url"
	"slices"
	"strings"
	"testing"
)

func TestBoards_ParameterErrors(t *testing.T) {
	w := MustWorld(t)
	w.MustApply(boardsLedger)
	const tp = "time_period must be one of day, week, month, all"
	for _, tc := range []struct{ path, param, msg string }{
		{"/v2/leaderboard?time_period=year", "time_period", tp},
		{"/v2/leaderboard?timePeriod=", "", ""}, // blank = absent: not an error (checked below)
		{"/v2/leaderboard?sort_by=CASH", "sort_by", "sort_by must be PNL or VOLUME"},
		{"/v2/leaderboard?limit=1001", "limit", "limit must be at most 1000"},
		{"/v2/leaderboard?limit=-1", "limit", "limit must be an integer between 0 and 1000"},
		{"/v2/leaderboard?limit=ten", "limit", "limit must be an integer between 0 and 1000"},
		{"/v2/leaderboard?offset=0", "offset", "offset is not supported"},
		{"/v2/leaderboard?time_period=day&timePeriod=week", "time_period", "conflicting values"},
		{"/v2/leaderboard?category=" + strings.Repeat("x", 101), "category", "category must be at most 100 characters"},
		{"/v2/leaderboard?cursor=abc", "cursor", "invalid cursor"},
		{"/v2/biggest-winners?time_period=hour", "time_period", tp},
		{"/v2/biggest-winners?limit=1001", "limit", "limit must be at most 1000"},
		{"/v2/biggest-winners?offset=10", "offset", "offset is not supported"},
		{"/v2/biggest-winners?cursor=abc", "cursor", "invalid cursor"},
		{"/v2/builders/leaderboard?time_period=1d", "time_period", tp},
		{"/v2/builders/leaderboard?limit=5000", "limit", "limit must be at most 1000"},
		{"/v2/builders/leaderboard?cursor=abc", "cursor", "invalid cursor"},
		{"/v2/builders/volume?interval=hour", "interval", tp},
		{"/v2/builders/volume?time_period=hour", "interval", tp},
		{"/v2/builders/volume?timePeriod=year", "interval", tp},
		{"/v2/builders/volume?interval=day&time_period=week", "interval", "conflicting values"},
		{"/v2/builders/volume?limit=91", "limit", "limit must be at most 90"},
		{"/v2/builders/volume?limit=-3", "limit", "limit must be an integer between 0 and 90"},
		{"/v2/builders/volume?offset=1", "offset", "offset is not supported"},
	} {
		if tc.param == "" {
			w.MustPage(tc.path)
			continue
		}
		w.MustError(tc.path, 400, "invalid_request", tc.param, tc.msg)
	}
	for _, p := range []string{"/v2/leaderboard", "/v2/biggest-winners", "/v2/builders/leaderboard", "/v2/builders/volume"} {
		r := w.Do("POST", p)
		MustErrorResp(t, r, "POST "+p, 405, "method_not_allowed", "", "")
		if r.Header.Get("Allow") == "" {
			t.Errorf("POST %s: no Allow header", p)
		}
		if r := w.Do("HEAD", p); r.Status != 200 {
			t.Errorf("HEAD %s: %d", p, r.Status)
		}
	}
}

func TestBoards_Defaults(t *testing.T) {
	w := MustWorld(t)
	w.MustApply(boardsLedger)
	for _, p := range []string{"/v2/leaderboard", "/v2/biggest-winners", "/v2/builders/leaderboard"} {
		for _, q := range []string{"", "?limit=0", "?limit="} {
			pg := w.MustPage(p + q)
			if *pg.Pagination.Limit != 100 || *pg.Pagination.Offset != 0 {
				t.Errorf("%s%s: limit %d offset %d", p, q, *pg.Pagination.Limit, *pg.Pagination.Offset)
			}
		}
		// Defaults: day window (and PNL, overall): explicit equals implicit.
		if a, b := w.Get(p).Body, w.Get(p+"?time_period=day&category=overall&sort_by=PNL").Body; string(a) != string(b) {
			t.Errorf("%s: defaults differ from explicit day/overall/PNL:\n%s\n%s", p, a, b)
		}
	}
	// builders/volume: 30 daily buckets by default (09-05 is 11 days back).
	if n := len(w.MustPageless("/v2/builders/volume")); n != 3 {
		t.Errorf("default buckets: %d rows", n)
	}
	if n := len(w.MustPageless("/v2/builders/volume?limit=0")); n != 3 {
		t.Errorf("limit=0: %d rows", n)
	}
	if n := len(w.MustPageless("/v2/builders/volume?limit=10")); n != 2 {
		t.Errorf("limit=10: %d rows", n)
	}
}

// Board cursors pin the cohort: a bare cursor resumes it, restating the
// pinned values is fine, contradicting one is a 400 naming the cursor, and
// the cursor's page size wins over limit.
func TestBoards_CursorPins(t *testing.T) {
	w := MustWorld(t)
	w.MustApply(boardsLedger)
	for _, tc := range []struct {
		route, first string
		restate      []string
		contradict   []string // param=value
	}{
		{"/v2/leaderboard", "time_period=week&sort_by=VOLUME&category=overall",
			[]string{"time_period=week", "sort_by=VOLUME", "sortBy=volume", "timePeriod=WEEK", "category=OVERALL", "time_period=week&sort_by=VOLUME&category=overall"},
			[]string{"time_period=day", "sort_by=PNL", "category=sports"}},
		{"/v2/leaderboard", "", // defaults are pinned too
			[]string{"time_period=day", "sort_by=PNL", "category=overall"},
			[]string{"time_period=all", "sort_by=VOLUME", "category=combos"}},
		{"/v2/biggest-winners", "time_period=all&category=sports",
			[]string{"time_period=all", "category=sports", "category=Sports"},
			[]string{"time_period=day", "category=overall", "category=combos"}},
		{"/v2/builders/leaderboard", "time_period=week",
			[]string{"time_period=week", "timePeriod=Week"},
			[]string{"time_period=month", "time_period=day"}},
	} {
		full := w.MustWalk(tc.route+"?limit=100&"+tc.first, "")
		if len(full) < 2 {
			t.Fatalf("%s?%s: only %d rows", tc.route, tc.first, len(full))
		}
		first := w.MustPage(tc.route + "?limit=1&" + tc.first)
		cur := *first.Pagination.NextCursor
		bare := w.MustPage(tc.route + "?cursor=" + url.QueryEscape(cur) + "&limit=50")
		if *bare.Pagination.Limit != 1 || *bare.Pagination.Offset != 1 || len(bare.Data) != 1 {
			t.Fatalf("%s: resumed page %+v", tc.route, bare.Pagination)
		}
		if !equalRow(bare.Data[0], full[1]) {
			t.Errorf("%s: resumed row %v, want %v", tc.route, bare.Data[0], full[1])
		}
		for _, q := range tc.restate {
			pg := w.MustPage(tc.route + "?cursor=" + url.QueryEscape(cur) + "&" + q)
			if !equalRow(pg.Data[0], full[1]) {
				t.Errorf("%s restating %s: row %v", tc.route, q, pg.Data[0])
			}
		}
		for _, q := range tc.contradict {
			param, _, _ := strings.Cut(q, "=")
			w.MustError(tc.route+"?cursor="+url.QueryEscape(cur)+"&"+q, 400, "invalid_request", "cursor",
				"invalid cursor: "+param+"=")
		}
	}
	// Cursors are typed per route.
	lb := *w.MustPage("/v2/leaderboard?limit=1").Pagination.NextCursor
	bw := *w.MustPage("/v2/biggest-winners?limit=1").Pagination.NextCursor
	w.MustError("/v2/biggest-winners?cursor="+url.QueryEscape(lb), 400, "invalid_request", "cursor", "invalid cursor")
	w.MustError("/v2/leaderboard?cursor="+url.QueryEscape(bw), 400, "invalid_request", "cursor", "invalid cursor")
	w.MustError("/v2/builders/leaderboard?cursor="+url.QueryEscape(lb), 400, "invalid_request", "cursor", "invalid cursor")
	tampered := []byte(lb)
	tampered[len(tampered)/2] ^= 1
	w.MustError("/v2/leaderboard?cursor="+url.QueryEscape(string(tampered)), 400, "invalid_request", "cursor", "invalid cursor")
}

func equalRow(a, b map[string]any) bool {
	ka, kb := keys(a), keys(b)
	if !slices.Equal(ka, kb) {
		return false
	}
	for _, k := range ka {
		if str(a[k]) != str(b[k]) {
			return false
		}
	}
	return true
}

func keys(m map[string]any) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

// contractRowFields are the row fields the contract names that production
// spells otherwise: served beside production's (interface.md, "Data service
// rows named in the interface").
var contractRowFields = map[string]string{"biggest_winners": "title", "biggest_winners_combos": "title",
	"builders_leaderboard": "builder", "builder_volume": "builder"}

// Row key sets and JSON types match the production captures exactly, plus
// the contract's own names.
func TestBoards_FixtureShapes(t *testing.T) {
	w := MustWorld(t)
	w.MustApply(boardsLedger)
	for _, tc := range []struct{ fixture, path string }{
		{"leaderboard", "/v2/leaderboard?limit=2"},
		{"leaderboard_user", "/v2/leaderboard?user={A}"},
		{"biggest_winners", "/v2/biggest-winners?limit=2"},
		{"biggest_winners_combos", "/v2/biggest-winners?category=combos&limit=1"},
		{"builders_leaderboard", "/v2/builders/leaderboard?time_period=all&limit=1"},
		{"builder_volume", "/v2/builders/volume"},
	} {
		fx := loadFixture(t, tc.fixture)
		var got map[string]any
		w.MustGet(tc.path, &got)
		mustSameShape(t, tc.fixture, got, fx)
		if !slices.Equal(keys(got), keys(fx)) {
			t.Errorf("%s: envelope keys %v, fixture %v", tc.path, keys(got), keys(fx))
		}
		g, f := firstObject(got["data"]), firstObject(fx["data"])
		if g == nil || f == nil {
			t.Fatalf("%s: no row to compare", tc.path)
		}
		want := keys(f)
		if extra := contractRowFields[tc.fixture]; extra != "" {
			want = append(want, extra)
			slices.Sort(want)
		}
		if !slices.Equal(keys(g), want) {
			t.Errorf("%s: row keys %v, want the fixture's plus the contract's: %v", tc.path, keys(g), want)
		}
	}
}

func firstObject(v any) map[string]any {
	switch x := v.(type) {
	case map[string]any:
		return x
	case []any:
		if len(x) > 0 {
			m, _ := x[0].(map[string]any)
			return m
		}
	}
	return nil
}
