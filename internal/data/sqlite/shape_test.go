package sqlite_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"sort"
	"testing"

	"pmx/internal/amount"
	"pmx/internal/data/store"
)

// Copies of live production captures (the data service v2 fixtures; see
// ../dataapi/testdata/data-v2/PROVENANCE.md).
const fixtures = "testdata/fixtures"

// kinds maps a JSON value's keys to their JSON types, one level deep.
func kinds(t *testing.T, v any) map[string]string {
	t.Helper()
	obj, ok := v.(map[string]any)
	if !ok {
		t.Fatalf("not an object: %v", v)
	}
	out := map[string]string{}
	for k, x := range obj {
		switch x.(type) {
		case nil:
			out[k] = "null"
		case float64:
			out[k] = "number"
		case string:
			out[k] = "string"
		case bool:
			out[k] = "bool"
		case []any:
			out[k] = "array"
		default:
			out[k] = "object"
		}
	}
	return out
}

func fixtureRow(t *testing.T, file string, path ...string) any {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(fixtures, file))
	if err != nil {
		t.Fatal(err)
	}
	var v any
	if err := json.Unmarshal(b, &v); err != nil {
		t.Fatal(err)
	}
	for _, p := range path {
		switch x := v.(type) {
		case map[string]any:
			v = x[p]
		case []any:
			v = x[0]
		}
	}
	return v
}

// TestWireShapes checks every row type against a live capture: same keys,
// same JSON types (a nullable field may be null on either side).
func TestWireShapes(t *testing.T) {
	one := amount.One
	s := "2026-01-01T00:00:00Z"
	var micros int64 = 1
	leg := store.ComboLeg{LegResolvedAt: &s, Market: store.ComboLegMarket{Line: &one, Outcomes: []string{}, Tags: []string{}}}
	pt := store.UserPnLPoint{UnrealizedPnL: &one, FeesRefunded: &one, MakerRebate: &one, TakerRebate: &one,
		RewardIncome: &one, YieldIncome: &one, ReferralIncome: &one, WalletIncome: &one, PositionPnL: &one,
		SettledPnL: &one, EconomicPnL: &one, TradePnL: &one, SponsoredIncome: &one, Fees: &one, FeesPaid: &one}
	join := int64(5)
	cases := []struct {
		file string
		path []string
		row  any
	}{
		{"positions.json", []string{"data", "0"}, store.Position{}},
		{"positions_closed.json", []string{"data", "0"}, store.Position{}},
		{"trades.json", []string{"data", "0"}, store.Trade{}},
		{"activity.json", []string{"data", "0"}, store.Activity{}},
		{"combo_positions.json", []string{"data", "0"}, store.ComboPosition{ResolvedAt: &s, FirstEntryAtMicros: &micros,
			Legs: []store.ComboLeg{leg}}},
		{"combo_positions.json", []string{"data", "0", "legs", "0"}, leg},
		{"combo_positions.json", []string{"data", "0", "legs", "0", "market"}, leg.Market},
		{"combo_activity.json", []string{"data", "0"}, store.ComboActivity{Legs: []store.ComboLeg{}}},
		{"user_pnl.json", []string{"data"}, store.UserPnLSeries{Points: []store.UserPnLPoint{}}},
		{"user_pnl.json", []string{"data", "points", "0"}, pt},
		{"user_stats.json", []string{"data"}, store.UserStats{JoinDate: &join, AllTimePnL: &pt}},
		{"user_volume.json", []string{"data"}, store.UserVolume{}},
		{"value.json", []string{"data"}, store.Value{}},
	}
	for _, tc := range cases {
		t.Run(tc.file+"/"+tc.path[len(tc.path)-1], func(t *testing.T) {
			want := kinds(t, fixtureRow(t, tc.file, tc.path...))
			b, err := json.Marshal(tc.row)
			if err != nil {
				t.Fatal(err)
			}
			var v any
			json.Unmarshal(b, &v)
			got := kinds(t, v)
			var keys []string
			for k := range want {
				keys = append(keys, k)
			}
			for k := range got {
				// is_combo is optional; block_timestamp and sequence_id are the
				// contract's names, served beside production's.
				if _, ok := want[k]; !ok && k != "is_combo" && k != "block_timestamp" && k != "sequence_id" {
					t.Errorf("extra field %q", k)
				}
			}
			sort.Strings(keys)
			for _, k := range keys {
				g, w := got[k], want[k]
				if g != w && g != "null" && w != "null" {
					t.Errorf("field %q: %s, fixture %s", k, g, w)
				}
				if g == "" {
					t.Errorf("missing field %q", k)
				}
			}
		})
	}
}

func TestUserPnLGrid(t *testing.T) {
	db, _ := openDB(t)
	world(t, db, true)
	day := store.DayFloor(1_780_000_000)
	s, err := db.UserPnL(ctx, store.UserPnLParams{User: addr(1), Interval: "1w", Fidelity: "1d", Now: day + 3*86400 + 500})
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Points) != 7 || s.Points[0].Timestamp != day-3*86400 || s.Points[6].Timestamp != day+3*86400 {
		t.Fatalf("grid %+v", s.Points)
	}
	for i, p := range s.Points {
		want := amount.Micro(0)
		if i >= 4 {
			want = m("43.5")
		}
		if p.RealizedPnL != want || (i >= 4 && (p.SourceBlock == 0 || p.TradeCount != 2)) {
			t.Fatalf("point %d: %+v", i, p)
		}
	}
	s, err = db.UserPnL(ctx, store.UserPnLParams{User: addr(1), Now: day + 86400 + 7200})
	if err != nil || len(s.Points) != 24 || s.Interval != "1d" || s.Fidelity != "1h" || s.Points[23].Timestamp != day+86400+7200 {
		t.Fatalf("defaults: %d points %+v %v", len(s.Points), s, err)
	}
	s, err = db.UserPnL(ctx, store.UserPnLParams{User: addr(1), Interval: "max", Fidelity: "1d", Now: day + 2*86400})
	// From the first observation's day to now: three daily points.
	if err != nil || len(s.Points) != 3 || s.Points[0].RealizedPnL != 0 || s.Points[2].RealizedPnL != m("43.5") {
		t.Fatalf("max: %+v %v", s.Points, err)
	}
}
