package dataapi_test

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"

	"pmx/internal/data/dataapi"
)

// loadOpenAPI parses the embedded document with kin-openapi, resolving every
// $ref, and fails the test on any error.
func loadOpenAPI(t testing.TB) *openapi3.T {
	t.Helper()
	return loadOpenAPIFrom(t, dataapi.OpenAPIDocument())
}

func loadOpenAPIFrom(t testing.TB, src []byte) *openapi3.T {
	t.Helper()
	doc, err := openapi3.NewLoader().LoadFromData(src)
	if err != nil {
		t.Fatalf("load openapi.json: %v", err)
	}
	return doc
}

// TestOpenAPIDocumentValid: the document is a valid OpenAPI 3.1 document
// labeled 0.1.0, with examples and defaults checked against their schemas.
func TestOpenAPIDocumentValid(t *testing.T) {
	doc := loadOpenAPI(t)
	if doc.OpenAPI != "3.1.0" || !doc.IsOpenAPI31OrLater() {
		t.Fatalf("openapi = %q, want 3.1.0", doc.OpenAPI)
	}
	if doc.Info == nil || doc.Info.Version != "0.1.0" || doc.Info.Title != "pmx data service v2" {
		t.Fatalf("info = %+v", doc.Info)
	}
	if err := doc.Validate(context.Background(), openapi3.EnableExamplesValidation(), openapi3.EnableSchemaDefaultsValidation(), openapi3.EnableSchemaPatternValidation()); err != nil {
		t.Fatalf("validate: %v", err)
	}
	// kin-openapi does not check 3.1 schema-level `examples`: check each
	// against its schema here (they are real pmx answers of the test ledger).
	n := 0
	for name, ref := range doc.Components.Schemas {
		for i, ex := range ref.Value.Examples {
			if err := ref.Value.VisitJSON(ex, openapi3.EnableJSONSchema2020()); err != nil {
				t.Errorf("schema %s example %d: %v", name, i, err)
			}
			n++
		}
	}
	if n == 0 {
		t.Error("no schema examples checked")
	}
}

// TestOpenAPIExampleCheckIsLive: a wrong example is caught.
func TestOpenAPIExampleCheckIsLive(t *testing.T) {
	doc := loadOpenAPI(t)
	s := doc.Components.Schemas["ErrorResponse"].Value
	bad := map[string]any{"error": "x", "code": "bogus", "retryable": false, "trace_id": "0123456789abcdef0123456789abcdef"}
	if err := s.VisitJSON(bad, openapi3.EnableJSONSchema2020()); err == nil {
		t.Fatal("an error body with an unknown code passed")
	}
}

// TestOpenAPIValidateCatchesBrokenDocuments shows the validity check is
// live: each mutation of the real document must be rejected.
func TestOpenAPIValidateCatchesBrokenDocuments(t *testing.T) {
	src := string(dataapi.OpenAPIDocument())
	cases := []struct{ name, old, new string }{
		{"dangling $ref", `"#/components/schemas/Pagination"`, `"#/components/schemas/NoSuchSchema"`},
		{"unknown type", `"type": "boolean"`, `"type": "bool"`},
		{"bad default", `"default": "DESC"`, `"default": "SIDEWAYS"`},
		{"no responses", `"responses": {`, `"responzes": {`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if !strings.Contains(src, tc.old) {
				t.Fatalf("mutation anchor %q not in the document", tc.old)
			}
			bad := strings.Replace(src, tc.old, tc.new, 1)
			doc, err := openapi3.NewLoader().LoadFromData([]byte(bad))
			if err == nil {
				err = doc.Validate(context.Background(), openapi3.EnableSchemaDefaultsValidation())
			}
			if err == nil {
				t.Fatal("broken document accepted")
			}
		})
	}
}

// TestOpenAPIServedAsEmbedded: GET returns the embedded document byte for
// byte, as JSON with a trace id; HEAD has the headers and no body.
func TestOpenAPIServedAsEmbedded(t *testing.T) {
	srv := httptest.NewServer(oaService(t))
	defer srv.Close()
	for _, method := range []string{http.MethodGet, http.MethodHead} {
		req, _ := http.NewRequest(method, srv.URL+"/v2/openapi.json", nil)
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(res.Body)
		res.Body.Close()
		want := dataapi.OpenAPIDocument()
		if method == http.MethodHead {
			want = nil
		}
		if res.StatusCode != 200 || res.Header.Get("Content-Type") != "application/json" ||
			res.Header.Get("x-trace-id") == "" || !bytes.Equal(body, want) {
			t.Errorf("%s: status %d, headers %v, %d body bytes", method, res.StatusCode, res.Header, len(body))
		}
	}
}
