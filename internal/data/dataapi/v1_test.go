package dataapi

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

func TestV1RoutesAnswer410NamingTheirV2Successor(t *testing.T) {
	s := New(Options{CursorKey: []byte("0123456789abcdef0123456789abcdef")})
	for path, next := range v1Successors {
		rec := httptest.NewRecorder()
		s.ServeHTTP(rec, httptest.NewRequest("GET", path+"?user=0x0000000000000000000000000000000000000001", nil))
		if rec.Code != http.StatusGone {
			t.Errorf("%s: status %d", path, rec.Code)
			continue
		}
		var m map[string]any
		_ = json.Unmarshal(rec.Body.Bytes(), &m)
		if m["code"] != "gone" || !strings.Contains(m["error"].(string), next) || m["trace_id"] != rec.Header().Get("x-trace-id") {
			t.Errorf("%s: body %s", path, rec.Body.String())
		}
	}
}
