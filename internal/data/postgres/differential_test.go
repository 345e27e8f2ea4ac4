package postgres_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"net/url"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"pmx/internal/clock"
	"pmx/internal/data/dataapi"
	"pmx/internal/data/ledger"
	"pmx/internal/data/postgres"
	"pmx/internal/data/sqlite"
	"pmx/internal/data/store"
	"pmx/internal/demo"
	"pmx/internal/pgsql/pgtest"
	"pmx/internal/ratelimit"
)

// The differential test: one seeded demo world applied to both stores (in
// the same batches), the real data service over each, and thousands of
// requests drawn from the service's own OpenAPI document (every route, every
// parameter, valid and invalid values) whose answers must be byte-identical,
// with every page of a cursor walk compared as well.

var now = time.Date(2026, 9, 15, 12, 0, 0, 0, time.UTC)

func demoWorld(t testing.TB, scale float64) []ledger.Event {
	t.Helper()
	var evs []ledger.Event
	if err := demo.Generate(demo.Options{Seed: 7, Scale: scale, Now: now}, func(e *ledger.Event) error {
		evs = append(evs, *e)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	return evs
}

func serve(t testing.TB, s store.Store) *httptest.Server {
	t.Helper()
	limits := ratelimit.DataDefaults()
	for i := range limits.Rules {
		limits.Rules[i].Limit = 1 << 30
	}
	srv := httptest.NewServer(dataapi.New(dataapi.Options{Store: s, CursorKey: []byte("differential-cursor-key-0123456789"),
		Clock: clock.NewManual(now), Limits: &limits, HeavySlots: 64}))
	t.Cleanup(srv.Close)
	return srv
}

// pair is the same world on both stores, PostgreSQL twice: through the
// writer (the hot read model, as the file) and through a read node (no hot
// model: every route reads SQL).
type pair struct {
	lite, pg, node *httptest.Server
	client         *http.Client
}

func newPair(t *testing.T, evs []ledger.Event, batch int) *pair {
	t.Helper()
	clock := func() time.Time { return now }
	lite, err := sqlite.Open(filepath.Join(t.TempDir(), "pmx.db"), sqlite.Options{Clock: clock})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { lite.Close() })
	url := pgtest.DB(t)
	// CopyMin 40: in each batch some upserted tables go through COPY's
	// staging table and the smaller ones through multi-row upserts (the
	// activity rows always COPY), so both write paths are compared.
	pg, err := postgres.Open(context.Background(), url, postgres.Options{Options: sqlite.Options{Clock: clock}, CopyMin: 40})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { pg.Close() })
	for i := 0; i < len(evs); i += batch {
		b := evs[i:min(i+batch, len(evs))]
		n1, err1 := lite.Apply(context.Background(), b)
		n2, err2 := pg.Apply(context.Background(), b)
		if err1 != nil || err2 != nil || n1 != n2 {
			t.Fatalf("batch at %d: sqlite %d %v, postgres %d %v", i, n1, err1, n2, err2)
		}
	}
	node, err := postgres.Open(context.Background(), url, postgres.Options{Options: sqlite.Options{Clock: clock}, Follower: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { node.Close() })
	return &pair{lite: serve(t, lite), pg: serve(t, pg), node: serve(t, node), client: &http.Client{}}
}

var traceID = regexp.MustCompile(`"trace_id":"[^"]*"`)

func (p *pair) get(t *testing.T, path string) (int, []byte, []byte) {
	t.Helper()
	a, sa := p.fetch(t, p.lite.URL+path)
	b, sb := p.fetch(t, p.pg.URL+path)
	if sa != sb || !bytes.Equal(a, b) {
		t.Fatalf("GET %s differs:\nsqlite   %d %.600s\npostgres %d %.600s", path, sa, a, sb, b)
	}
	if c, sc := p.fetch(t, p.node.URL+path); sa != sc || !bytes.Equal(a, c) {
		t.Fatalf("GET %s differs:\nsqlite    %d %.600s\nread node %d %.600s", path, sa, a, sc, c)
	}
	return sa, a, b
}

func (p *pair) fetch(t *testing.T, u string) ([]byte, int) {
	res, err := p.client.Get(u)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	body, err := io.ReadAll(res.Body)
	if err != nil {
		t.Fatal(err)
	}
	return traceID.ReplaceAllLiteral(body, []byte(`"trace_id":""`)), res.StatusCode
}

// param is one query parameter of a route, from the OpenAPI document.
type param struct {
	Name     string `json:"name"`
	Required bool   `json:"required"`
	Ref      string `json:"$ref"`
	Schema   struct {
		Type string   `json:"type"`
		Enum []string `json:"enum"`
	} `json:"schema"`
}

// routes reads the served OpenAPI document: path → parameters.
func (p *pair) routes(t *testing.T) map[string][]param {
	_, body, _ := p.get(t, "/v2/openapi.json")
	var doc struct {
		Paths map[string]struct {
			Get *struct {
				Parameters []param `json:"parameters"`
			} `json:"get"`
		} `json:"paths"`
		Components struct {
			Parameters map[string]param `json:"parameters"`
		} `json:"components"`
	}
	if err := json.Unmarshal(body, &doc); err != nil {
		t.Fatal(err)
	}
	out := map[string][]param{}
	for path, item := range doc.Paths {
		if item.Get == nil {
			continue
		}
		var ps []param
		for _, x := range item.Get.Parameters {
			if x.Ref != "" {
				x = doc.Components.Parameters[strings.TrimPrefix(x.Ref, "#/components/parameters/")]
			}
			ps = append(ps, x)
		}
		out[path] = ps
	}
	if len(out) < 20 {
		t.Fatalf("OpenAPI lists %d routes", len(out))
	}
	return out
}

// ids are values seen in the world's answers, by kind.
type ids map[string][]string

// harvest collects wallets, condition ids, token ids and event ids from
// JSON answers.
func (v ids) harvest(body []byte) {
	var x any
	if json.Unmarshal(body, &x) != nil {
		return
	}
	var walk func(any)
	walk = func(x any) {
		switch x := x.(type) {
		case map[string]any:
			for k, e := range x {
				s, _ := e.(string)
				if f, ok := e.(float64); ok && strings.Contains(strings.ToLower(k), "event") && strings.HasSuffix(strings.ToLower(k), "id") {
					s = strconv.FormatInt(int64(f), 10)
				}
				kind := ""
				switch lk := strings.ToLower(k); {
				case lk == "proxy_wallet" || lk == "user" || lk == "proxywallet":
					kind = "user"
				case strings.Contains(lk, "condition"):
					kind = "condition"
				case lk == "asset" || lk == "token_id" || lk == "tokenid":
					kind = "token"
				case strings.Contains(lk, "event") && strings.HasSuffix(lk, "id"):
					kind = "event"
				}
				if kind != "" && s != "" && len(v[kind]) < 400 && !slices.Contains(v[kind], s) {
					v[kind] = append(v[kind], s)
				}
				walk(e)
			}
		case []any:
			for _, e := range x {
				walk(e)
			}
		}
	}
	walk(x)
}

func (v ids) pick(r *rand.Rand, kind string) string {
	if len(v[kind]) == 0 || r.IntN(10) == 0 {
		return [...]string{"0x" + strings.Repeat("ab", 20), "0x" + strings.Repeat("0", 64), "zz", "1", ""}[r.IntN(5)]
	}
	return v[kind][r.IntN(len(v[kind]))]
}

// value draws a value for one parameter: mostly plausible, sometimes not.
func (v ids) value(r *rand.Rand, p param) string {
	if r.IntN(25) == 0 {
		return [...]string{"", "-1", "bogus", "1e9", "0x"}[r.IntN(5)]
	}
	if len(p.Schema.Enum) > 0 {
		return p.Schema.Enum[r.IntN(len(p.Schema.Enum))]
	}
	day := int64(86400)
	switch p.Name {
	case "user":
		return v.pick(r, "user")
	case "condition", "market":
		if r.IntN(4) == 0 {
			return v.pick(r, "condition") + "," + v.pick(r, "condition")
		}
		return v.pick(r, "condition")
	case "token_id":
		return v.pick(r, "token")
	case "event_id":
		return v.pick(r, "event")
	case "limit":
		return strconv.Itoa([...]int{0, 1, 2, 3, 7, 25, 100, 500}[r.IntN(8)])
	case "start", "updated_after", "as_of":
		return strconv.FormatInt(now.Unix()-int64(r.IntN(100))*day, 10)
	case "end", "updated_before":
		return strconv.FormatInt(now.Unix()-int64(r.IntN(60))*day+int64(r.IntN(2))*day*30, 10)
	case "type":
		ts := []string{"TRADE", "SPLIT", "MERGE", "REDEEM", "REWARD", "CONVERSION", "YIELD", "MAKER_REBATE", "REFERRAL_REWARD", "DEPOSIT", "WITHDRAWAL", "TIP"}
		return ts[r.IntN(len(ts))] + "," + ts[r.IntN(len(ts))]
	case "category":
		return [...]string{"overall", "politics", "sports", "crypto", "OVERALL", "nope"}[r.IntN(6)]
	case "title":
		return [...]string{"will", "WILL", "the", "zzz", "a"}[r.IntN(5)]
	case "bucket_seconds":
		return strconv.Itoa([...]int{60, 3600, 86400, 7}[r.IntN(4)])
	case "question_id":
		return "0x" + strings.Repeat("0", 64)
	}
	switch p.Schema.Type {
	case "integer":
		return strconv.Itoa(r.IntN(1000))
	case "number":
		return [...]string{"0", "1", "10", "250.5", "100000"}[r.IntN(5)]
	case "boolean":
		return [...]string{"true", "false"}[r.IntN(2)]
	}
	return "x"
}

// walk requests path and then follows its next_cursor for up to pages
// pages, comparing every answer; it reports the requests made.
func (p *pair) walk(t *testing.T, path string, v ids, pages int) int {
	n := 0
	for {
		st, body, _ := p.get(t, path)
		n++
		if st != 200 {
			return n
		}
		v.harvest(body)
		var page struct {
			Pagination *struct {
				Next *string `json:"next_cursor"`
			} `json:"pagination"`
		}
		if json.Unmarshal(body, &page) != nil || page.Pagination == nil || page.Pagination.Next == nil || n >= pages {
			return n
		}
		u, err := url.Parse(path)
		if err != nil {
			t.Fatal(err)
		}
		q := u.Query()
		q.Set("cursor", *page.Pagination.Next)
		u.RawQuery = q.Encode()
		path = u.String()
	}
}

func TestDifferential_EveryRouteAnswersTheSameBytesOnBothStores(t *testing.T) {
	evs := demoWorld(t, 0.01)
	p := newPair(t, evs, 2000) // several batches: the incremental paths too
	routes := p.routes(t)
	paths := make([]string, 0, len(routes))
	for path := range routes {
		paths = append(paths, path)
	}
	sort.Strings(paths)
	v := ids{}
	// Seed the id pools from the feeds and boards (compared like any request).
	for _, s := range []string{"/v2/trades?limit=500&taker_only=false", "/v2/leaderboard?time_period=all&limit=50",
		"/v2/builders/leaderboard?time_period=all", "/v2/biggest-winners?time_period=all&limit=50"} {
		p.walk(t, s, v, 3)
	}
	for _, k := range []string{"user", "condition", "token", "event"} {
		if len(v[k]) == 0 {
			t.Fatalf("no %s ids harvested from the world", k)
		}
	}
	r := rand.New(rand.NewPCG(21, 1))
	requests, ok := 0, map[string]int{}
	for requests < 3000 {
		path := paths[r.IntN(len(paths))]
		q := url.Values{}
		for _, prm := range routes[path] {
			if prm.Name == "cursor" {
				continue
			}
			if prm.Required || r.IntN(2) == 0 {
				q.Set(prm.Name, v.value(r, prm))
			}
		}
		u := path
		if len(q) > 0 {
			u += "?" + q.Encode()
		}
		st, _, _ := p.get(t, u)
		requests++
		if st == 200 {
			ok[path]++
			requests += p.walk(t, u, v, 1+r.IntN(6)) // the same request again, then its cursor walk
		}
	}
	// Every route answered 200 at least once: the comparison covered data, not only errors.
	for _, path := range paths {
		if ok[path] == 0 && strings.HasPrefix(path, "/v2/") {
			t.Errorf("%s never answered 200 in %d requests", path, requests)
		}
	}
	t.Logf("%d requests over %d routes, all byte-identical; 200s by route: %v", requests, len(paths), ok)
}
