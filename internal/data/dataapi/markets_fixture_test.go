package dataapi_test

import (
	"encoding/json"
	"fmt"
	"sort"
	"testing"
)

// shapeDiff lists where got differs from want in key sets or JSON types.
// Arrays compare element by element up to the shorter length.
func shapeDiff(path string, want, got any) []string {
	if jsonType(want) != jsonType(got) {
		return []string{fmt.Sprintf("%s: %s in the fixture, %s served", path, jsonType(want), jsonType(got))}
	}
	var out []string
	switch w := want.(type) {
	case map[string]any:
		g := got.(map[string]any)
		keys := map[string]bool{}
		for k := range w {
			keys[k] = true
		}
		for k := range g {
			keys[k] = true
		}
		var sorted []string
		for k := range keys {
			sorted = append(sorted, k)
		}
		sort.Strings(sorted)
		for _, k := range sorted {
			wv, inW := w[k]
			gv, inG := g[k]
			switch {
			case !inG:
				out = append(out, path+"."+k+": missing")
			case !inW:
				out = append(out, path+"."+k+": not in the fixture")
			default:
				out = append(out, shapeDiff(path+"."+k, wv, gv)...)
			}
		}
	case []any:
		g := got.([]any)
		for i := 0; i < len(w) && i < len(g); i++ {
			out = append(out, shapeDiff(fmt.Sprintf("%s[%d]", path, i), w[i], g[i])...)
		}
		if len(w) > 0 && len(g) == 0 {
			out = append(out, path+": served empty, cannot compare rows")
		}
	}
	return out
}

// TestFixtureShapes: every market and service route's response has the
// production fixture's key sets and JSON types, row by row.
func TestFixtureShapes(t *testing.T) {
	h := newMHarness(t, handEvs)
	c1 := mcond(1)
	cases := []struct{ fixture, path string }{
		{"holders.json", "/v2/holders?limit=2&condition=" + c1},
		{"holders_pnl.json", "/v2/holders?include_pnl=true&limit=2&condition=" + c1},
		{"open_interest.json", "/v2/oi?condition=" + c1},
		{"open_interest_global.json", "/v2/oi"},
		{"live_volume.json", "/v2/live-volume?event_id=100"},
		{"prices_history.json", "/v2/prices-history?token_id=11&interval=1d&limit=2"},
		{"resolutions.json", "/v2/resolutions?condition=" + mcond(2)},
		{"resolutions_pending.json", "/v2/resolutions?condition=" + c1},
		{"status.json", "/v2/status"},
	}
	for _, c := range cases {
		t.Run(c.fixture, func(t *testing.T) {
			var want, got any
			if err := json.Unmarshal(sharedFixture(t, c.fixture), &want); err != nil {
				t.Fatal(err)
			}
			h.ok(c.path, &got)
			for _, d := range shapeDiff("", want, got) {
				t.Error(d)
			}
		})
	}
}

// TestShapeDiffCatches: the comparison does see a missing key and a type
// change (holders vs holders with economics; a number served as a string).
func TestShapeDiffCatches(t *testing.T) {
	var plain, pnl any
	if json.Unmarshal(sharedFixture(t, "holders.json"), &plain) != nil || json.Unmarshal(sharedFixture(t, "holders_pnl.json"), &pnl) != nil {
		t.Fatal("fixtures do not parse")
	}
	if d := shapeDiff("", pnl, plain); len(d) != 4*7 { // 4 rows × 7 economics keys
		t.Errorf("economics keys: %v", d)
	}
	if d := shapeDiff("", map[string]any{"v": 1.0}, map[string]any{"v": "1"}); len(d) != 1 {
		t.Errorf("type change: %v", d)
	}
}
