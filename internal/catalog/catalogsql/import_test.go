package catalogsql_test

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"pmx/internal/catalog/catalog"
)

// dump renders every catalog table, ordered, so two states can be compared.
func dump(t *testing.T, db *sql.DB) string {
	t.Helper()
	var b strings.Builder
	for _, q := range []string{
		"SELECT * FROM catalog_events ORDER BY id",
		"SELECT * FROM catalog_markets ORDER BY id",
		"SELECT * FROM catalog_market_tokens ORDER BY token_id",
		"SELECT * FROM catalog_tags ORDER BY id",
		"SELECT * FROM catalog_event_tags ORDER BY event_id, tag_id",
		"SELECT * FROM catalog_market_tags ORDER BY market_id, tag_id",
		"SELECT * FROM catalog_series ORDER BY id",
		"SELECT * FROM catalog_event_series ORDER BY event_id, series_id",
	} {
		rows, err := db.Query(q)
		if err != nil {
			t.Fatal(err)
		}
		cols, _ := rows.Columns()
		n := 0
		for rows.Next() {
			vals := make([]any, len(cols))
			ptrs := make([]any, len(cols))
			for i := range vals {
				ptrs[i] = &vals[i]
			}
			if err := rows.Scan(ptrs...); err != nil {
				t.Fatal(err)
			}
			for _, v := range vals {
				if bs, ok := v.([]byte); ok {
					v = string(bs)
				}
				fmt.Fprintf(&b, "%v|", v)
			}
			b.WriteByte('\n')
			n++
		}
		rows.Close()
		fmt.Fprintf(&b, "-- %s: %d rows\n", q, n)
	}
	return b.String()
}

func TestImportIsIdempotent(t *testing.T) {
	e := newEnv(t) // has imported the fixture and ingested the ledger lines once
	before := dump(t, e.db)
	if !strings.Contains(before, "catalog_markets ORDER BY id: 6 rows") {
		t.Fatalf("unexpected seed:\n%s", before)
	}
	e.importFile(t, "testdata/event_full.json")
	for _, ev := range demoMarkets() {
		if err := e.store.UpsertFromLedgerMarket(context.Background(), ev); err != nil {
			t.Fatal(err)
		}
	}
	if after := dump(t, e.db); after != before {
		t.Errorf("re-import changed the store:\nbefore:\n%s\nafter:\n%s", before, after)
	}
}

func TestImportShapesAndErrors(t *testing.T) {
	e := newEnv(t)
	post := func(body string) (int, string) {
		resp, err := http.Post(e.srv.URL+"/admin/catalog", "application/json", strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var b bytes.Buffer
		b.ReadFrom(resp.Body)
		var msg struct{ Error string }
		if json.Unmarshal(b.Bytes(), &msg) == nil && msg.Error != "" {
			return resp.StatusCode, msg.Error
		}
		return resp.StatusCode, strings.TrimSpace(b.String())
	}
	// The three accepted shapes: object, array, keyset page.
	for _, body := range []string{
		`{"id":"500","title":"one"}`,
		`[{"id":"501"},{"id":"502","markets":[{"id":"5020","outcomes":"[\"Yes\", \"No\"]","clobTokenIds":"[\"7\", \"8\"]"}]}]`,
		`{"events":[{"id":"503","tags":[{"id":"9","label":"Nine","slug":"nine"}]}],"next_cursor":"x"}`,
	} {
		if st, msg := post(body); st != 200 {
			t.Errorf("import %s: %d %s", body, st, msg)
		}
	}
	var ev map[string]any
	if st := e.get(t, "/events/502", &ev); st != 200 || len(objs(t, ev["markets"])) != 1 {
		t.Errorf("/events/502: %d %v", st, ev)
	}
	var tag map[string]any
	if e.get(t, "/tags/slug/nine", &tag); tag["id"] != "9" {
		t.Errorf("imported tag: %v", tag)
	}
	for _, c := range []struct{ body, msg string }{
		{`nope`, "document is not JSON"},
		{`{"id":"x"}`, `event id must be a non-negative integer, got "x"`},
		{`{"id":"1","markets":[{"id":"2","outcomes":"[\"Yes\"]","clobTokenIds":"[\"1\",\"2\"]"}]}`, "clobTokenIds has 2 entries for 1 outcomes"},
		{`{"id":"1","markets":[{"id":"2","conditionId":"0x12"}]}`, `conditionId "0x12" is not 0x + 64 hex`},
		{`{"id":"1","volume":"lots"}`, "not a number"},
		{`42`, "document must be an event"},
	} {
		st, msg := post(c.body)
		if st != 400 || !strings.Contains(msg, c.msg) {
			t.Errorf("import %s: %d %s, want 400 containing %q", c.body, st, msg, c.msg)
		}
	}
	// One market id for two condition ids is refused whole (409), not merged.
	st, msg := post(`{"id":"700","markets":[{"id":"559651","conditionId":"0x` + strings.Repeat("77", 32) + `"}]}`)
	if st != 409 || !strings.Contains(msg, "market id 559651 already belongs to condition") {
		t.Errorf("conflicting market id: %d %s", st, msg)
	}
	var ev700 map[string]any
	if st := e.get(t, "/events/700", &ev700); st != 404 {
		t.Errorf("a refused import left event 700 behind: %d", st)
	}
	req, _ := http.NewRequest(http.MethodGet, e.srv.URL+"/admin/catalog", nil)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 405 {
		t.Errorf("GET /admin/catalog: %d", resp.StatusCode)
	}
}

// A market ledger line becomes a catalog market with the same condition id,
// token ids, slugs, event id, category and tag; later lines update it.
func TestLedgerMarketMapping(t *testing.T) {
	e := newEnv(t)
	var ev map[string]any
	e.get(t, "/events/101", &ev)
	if ev["slug"] != "btc-2026" || ev["title"] != "Bitcoin price" || ev["category"] != "Crypto" || ev["active"] != true || ev["closed"] != false {
		t.Errorf("event fields: %v %v %v %v %v", ev["slug"], ev["title"], ev["category"], ev["active"], ev["closed"])
	}
	ms := objs(t, ev["markets"])
	if len(ms) != 2 || ms[0]["slug"] != "btc-100k" || ms[1]["slug"] != "btc-150k" {
		t.Fatalf("markets in ledger order: %v", ids(t, ms))
	}
	m := ms[0]
	if m["id"] != fmt.Sprint(catalog.DerivedMarketID(cond(0x11))) || m["conditionId"] != cond(0x11) ||
		m["clobTokenIds"] != `["101", "102"]` || m["endDateIso"] != "2026-12-31" || m["category"] != "Crypto" {
		t.Errorf("market fields: %v", m)
	}
	if pos := m["positionIds"].([]any); len(pos) != 2 || pos[0] != "101" {
		t.Errorf("positionIds = %v", pos)
	}
	tg := objs(t, m["tags"])
	if len(tg) != 1 || tg[0]["slug"] != "crypto" || tg[0]["label"] != "Crypto" {
		t.Errorf("market tags = %v", tg)
	}
	cats := objs(t, ev["categories"])
	if len(cats) != 1 || cats[0]["slug"] != "crypto" {
		t.Errorf("event categories = %v", cats)
	}
	var closed map[string]any
	e.get(t, "/events/102", &closed)
	if closed["closed"] != true {
		t.Errorf("event of a closed market: closed = %v", closed["closed"])
	}
	// Closing one market of 101 does not close the event; closing both does.
	lines := demoMarkets()
	lines[0].Closed = bp(true)
	if err := e.store.UpsertFromLedgerMarket(context.Background(), lines[0]); err != nil {
		t.Fatal(err)
	}
	e.get(t, "/events/101", &ev)
	if ev["closed"] != false || objs(t, ev["markets"])[0]["closed"] != true || objs(t, ev["markets"])[0]["acceptingOrders"] != false {
		t.Errorf("after closing one market: event closed %v", ev["closed"])
	}
	lines[1].Closed = bp(true)
	e.store.UpsertFromLedgerMarket(context.Background(), lines[1])
	e.get(t, "/events/101", &ev)
	if ev["closed"] != true {
		t.Errorf("after closing both: event closed %v", ev["closed"])
	}
	// A ledger line for a market of an imported event keeps imported detail.
	imp := lines[0]
	imp.ConditionID, imp.EventID, imp.MarketID, imp.Closed = "0x"+strings.Repeat("a4", 32), 9001, 0, bp(false)
	if err := e.store.UpsertFromLedgerMarket(context.Background(), imp); err != nil {
		t.Fatal(err)
	}
	var im map[string]any
	e.get(t, "/markets/559651", &im)
	if im["slug"] != "btc-100k" || im["sponsorName"] != "pmx" || im["oracleBond"] != "500" {
		t.Errorf("merged market lost imported fields: %v %v %v", im["slug"], im["sponsorName"], im["oracleBond"])
	}
}

// The live production captures (copied verbatim into testdata/gamma)
// import unchanged and come back with every contract field, their ids and
// titles intact, and re-importing them changes nothing.
func TestImportProductionCaptures(t *testing.T) {
	e := newEnv(t)
	files, err := filepath.Glob("testdata/gamma/event_*.json")
	if err != nil || len(files) != 4 {
		t.Fatalf("fixtures: %v %v", files, err)
	}
	for _, f := range files {
		raw, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var src []map[string]any
		dec := json.NewDecoder(bytes.NewReader(raw))
		dec.UseNumber()
		if err := dec.Decode(&src); err != nil || len(src) != 1 {
			t.Fatalf("%s: %v", f, err)
		}
		e.importFile(t, f)
		var ev map[string]any
		if st := e.get(t, "/events/"+src[0]["id"].(string), &ev); st != 200 {
			t.Fatalf("%s: GET status %d", f, st)
		}
		checkFields(t, filepath.Base(f), ev, eventFields, false)
		for _, k := range []string{"id", "slug", "title", "startTime", "seriesSlug"} {
			if src[0][k] != nil && ev[k] != src[0][k] {
				t.Errorf("%s: %s = %v, want %v", f, k, ev[k], src[0][k])
			}
		}
		if src[0]["volume"] != nil && fmt.Sprint(ev["volume"]) != fmt.Sprint(src[0]["volume"]) {
			t.Errorf("%s: volume %v, want %v", f, ev["volume"], src[0]["volume"])
		}
		for _, tg := range objs(t, ev["tags"]) {
			checkFields(t, filepath.Base(f)+" tag", tg, tagFields, false)
		}
	}
	before := dump(t, e.db)
	for _, f := range files {
		e.importFile(t, f)
	}
	if after := dump(t, e.db); after != before {
		t.Errorf("re-importing the captures changed the store")
	}
}

// Two ledger markets whose derived ids collide: the second is refused.
func TestDerivedIDCollisionRefused(t *testing.T) {
	e := newEnv(t)
	line := demoMarkets()[0]
	line.ConditionID = cond(0x11)[:10] + strings.Repeat("f", 56) // same first 7 hex digits as cond(0x11)
	line.EventID, line.Slug = 104, "other"
	err := e.store.UpsertFromLedgerMarket(context.Background(), line)
	if !errors.Is(err, catalog.ErrConflict) {
		t.Fatalf("collision: %v, want ErrConflict", err)
	}
	var ev map[string]any
	if st := e.get(t, "/events/104", &ev); st != 404 {
		t.Errorf("refused line left event 104 behind: %d", st)
	}
}
