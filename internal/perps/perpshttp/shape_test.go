package perpshttp

import (
	"encoding/json"
	"os"
	"sort"
	"strings"
	"testing"
)

// testdata/fixture_shapes.json holds the first object of each production
// capture of the perps REST routes, trimmed. Every key
// production sends must be present here with the same JSON type, except
// the extras listed in optional.
var optional = map[string]bool{"display_symbol": true, "logo": true, "ui_live_time": true}

func jsonType(v any) string {
	switch v.(type) {
	case string:
		return "string"
	case float64:
		return "number"
	case bool:
		return "bool"
	case []any:
		return "array"
	case map[string]any:
		return "object"
	}
	return "null"
}

func sameShape(t *testing.T, name string, want, got map[string]any) {
	t.Helper()
	var missing []string
	for k, wv := range want {
		if optional[k] {
			continue
		}
		gv, ok := got[k]
		if !ok {
			missing = append(missing, k)
			continue
		}
		if jsonType(gv) != jsonType(wv) {
			t.Errorf("%s.%s: %s, production sends %s", name, k, jsonType(gv), jsonType(wv))
		}
	}
	sort.Strings(missing)
	if len(missing) > 0 {
		t.Errorf("%s: missing %s", name, strings.Join(missing, ", "))
	}
}

func TestFixtureShapes(t *testing.T) {
	raw, err := os.ReadFile("testdata/fixture_shapes.json")
	if err != nil {
		t.Fatal(err)
	}
	var want map[string]map[string]any
	if err := json.Unmarshal(raw, &want); err != nil {
		t.Fatal(err)
	}
	e := newEnv(t, Options{})
	e.instrument()
	e.adminPost("/admin/perps/index", `{"instrument_id":1,"price":"100"}`)
	a, b := e.trader(1, "100000"), e.trader(2, "100000")
	a.placeOK(ord{iid: 1, buy: true, p: "99", qty: "1"})
	a.placeOK(ord{iid: 1, buy: false, p: "101", qty: "1"})
	pub := e.dial(t)
	pub.call("sub", `"chs":["trades::1","bbo::1"]`)
	b.placeOK(ord{iid: 1, buy: true, p: "101", qty: "0.5", tif: "ioc"})

	one := func(path string) map[string]any {
		var v any
		if code, body := e.get(path, &v); code != 200 {
			t.Fatalf("%s: %d %s", path, code, body)
		}
		switch x := v.(type) {
		case []any:
			return x[0].(map[string]any)
		case map[string]any:
			if d, ok := x["data"].([]any); ok {
				return d[0].(map[string]any)
			}
			return x
		}
		t.Fatalf("%s: %v", path, v)
		return nil
	}
	for name, path := range map[string]string{
		"exchange": "/v1/info/exchange", "assets": "/v1/info/assets", "instruments": "/v1/info/instruments",
		"tickers": "/v1/info/tickers", "bbo": "/v1/info/bbo?instrument_id=1", "book": "/v1/info/book?instrument_id=1&depth=10",
		"trades": "/v1/info/trades?instrument_id=1",
	} {
		sameShape(t, name, want[name], one(path))
	}
	push := func(ch string) map[string]any {
		_, d := pub.pushOn(ch)
		var v any
		json.Unmarshal(d, &v)
		if arr, ok := v.([]any); ok {
			v = arr[0]
		}
		return v.(map[string]any)
	}
	sameShape(t, "ws_trades", want["ws_trades"], push("trades::1"))
	sameShape(t, "ws_bbo", want["ws_bbo"], push("bbo::1"))
}
