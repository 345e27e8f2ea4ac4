package dataapi_test

import (
	"net/http"
	"net/http/httptest"
	"testing"

	"pmx/internal/data/dataapi"
	"pmx/internal/ratelimit"
)

// BenchmarkOpenAPIServe is GET /v2/openapi.json through the whole service
// stack (trace, per-client limiter, deadline, mux): the document is static
// bytes, so this is the stack's cost plus one ~200 KB write.
func BenchmarkOpenAPIServe(b *testing.B) {
	lim := ratelimit.DataDefaults()
	for i := range lim.Rules {
		lim.Rules[i].Limit = 1 << 30
	}
	svc := dataapi.New(dataapi.Options{CursorKey: []byte("openapi-test-cursor-secret"), Limits: &lim})
	req := httptest.NewRequest(http.MethodGet, "/v2/openapi.json", nil)
	b.SetBytes(int64(len(dataapi.OpenAPIDocument())))
	for b.Loop() {
		w := httptest.NewRecorder()
		svc.ServeHTTP(w, req)
		if w.Code != 200 {
			b.Fatal(w.Code)
		}
	}
}

// BenchmarkOpenAPILoad is parsing and resolving the document with
// kin-openapi, the fixed cost of every OpenAPI test.
func BenchmarkOpenAPILoad(b *testing.B) {
	for b.Loop() {
		loadOpenAPI(b)
	}
}
