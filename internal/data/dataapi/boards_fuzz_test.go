package dataapi_test

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"pmx/internal/clock"
	"pmx/internal/data/dataapi"
	"pmx/internal/data/ledger"
	"pmx/internal/data/sqlite"

	"context"
	"strings"
)

// FuzzBoardsQuery sends arbitrary query strings to the board routes: every
// answer is 200 with a data envelope or a 400 invalid_request naming a
// parameter, never a 5xx.
func FuzzBoardsQuery(f *testing.F) {
	for _, s := range []string{"", "time_period=week&sort_by=VOLUME", "timePeriod=ALL&category=Sports&limit=1",
		"user=0x00000000000000000000000000000000000000a1&time_period=month", "category=combos&limit=0",
		"interval=month&limit=90", "time_period=hour", "limit=-1", "offset=1", "cursor=%ZZ", "sort_by=pnl&limit=1000",
		"time_period=day&time_period=week", "category=%00%FF", "limit=99999999999"} {
		f.Add(s)
	}
	db, err := openStore(f, sqlite.Options{Clock: func() time.Time { return Now }})
	if err != nil {
		f.Fatal(err)
	}
	defer db.Close()
	evs, err := ledger.ParseAll(strings.NewReader(expand(boardsLedger)))
	if err != nil {
		f.Fatal(err)
	}
	if _, err := db.Apply(context.Background(), evs); err != nil {
		f.Fatal(err)
	}
	svc := dataapi.New(dataapi.Options{Store: db, CursorKey: []byte("fuzz-cursor-secret-0123456789abcdef"),
		Clock: clock.NewManual(Now), Limits: generous()})
	routes := []string{"/v2/leaderboard", "/v2/biggest-winners", "/v2/builders/leaderboard", "/v2/builders/volume"}
	f.Fuzz(func(t *testing.T, raw string) {
		for _, route := range routes {
			req := httptest.NewRequest(http.MethodGet, "/", nil)
			req.URL.Path, req.URL.RawQuery = route, raw
			rec := httptest.NewRecorder()
			svc.ServeHTTP(rec, req)
			var body map[string]any
			if err := json.Unmarshal(rec.Body.Bytes(), &body); err != nil {
				t.Fatalf("%s?%s: %d non-JSON body %q", route, raw, rec.Code, rec.Body)
			}
			switch rec.Code {
			case 200:
				if _, ok := body["data"]; !ok {
					t.Fatalf("%s?%s: 200 without data", route, raw)
				}
			case 400:
				if body["code"] != "invalid_request" {
					t.Fatalf("%s?%s: 400 code %v", route, raw, body["code"])
				}
			default:
				t.Fatalf("%s?%s: status %d: %s", route, raw, rec.Code, rec.Body)
			}
		}
	})
}
