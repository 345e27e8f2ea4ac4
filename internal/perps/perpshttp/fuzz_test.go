package perpshttp

import (
	"encoding/json"
	"net/http/httptest"
	"strings"
	"testing"
)

// FuzzTradeBody: any body on any trading route is answered with JSON (a
// one-element array on batch routes), never a panic, a 5xx or a Go type
// name.
func FuzzTradeBody(f *testing.F) {
	for _, s := range []string{
		`{}`, `[]`, `null`, `{"op":{"type":"createOrders","args":[{"iid":1,"buy":true,"p":"1","qty":"1"}]},"sig":"0x","salt":1,"ts":1}`,
		`{"op":{"type":"cancelAll","args":{}},"sig":"0x00","salt":1,"ts":1790000000000}`,
		`{"op":{"type":"modifyOrders","args":[{"oid":1,"p":"1","qty":"1"}]},"sig":"0x","salt":18446744073709551615,"ts":1}`,
		`{"op":"x","sig":1}`,
	} {
		f.Add(s, uint8(0))
	}
	e := newEnv(f, Options{IPBudget: 1 << 30})
	h := e.srv.Handler()
	routes := [][2]string{{"POST", "/v1/trade/orders"}, {"PATCH", "/v1/trade/orders"}, {"PATCH", "/v1/trade/orders-coid"},
		{"DELETE", "/v1/trade/orders"}, {"DELETE", "/v1/trade/orders-coid"}, {"DELETE", "/v1/trade/orders/all"}}
	f.Fuzz(func(t *testing.T, body string, route uint8) {
		r := routes[int(route)%len(routes)]
		w := httptest.NewRecorder()
		h.ServeHTTP(w, httptest.NewRequest(r[0], r[1], strings.NewReader(body)))
		if w.Code >= 500 {
			t.Fatalf("%v %q: %d %s", r, body, w.Code, w.Body)
		}
		if b := w.Body.String(); strings.Contains(b, "Go ") || strings.Contains(b, "perpsauth.") || strings.Contains(b, "json: ") {
			t.Fatalf("%v %q: internals in %s", r, body, b)
		}
		var v any
		if err := json.Unmarshal(w.Body.Bytes(), &v); err != nil {
			t.Fatalf("%v %q: not JSON: %s", r, body, w.Body)
		}
		if _, isArr := v.([]any); r[1] != "/v1/trade/orders/all" && !isArr {
			t.Fatalf("%v %q: batch route answered %s", r, body, w.Body)
		}
	})
}
