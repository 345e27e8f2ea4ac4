package dataapi_test

import (
	"context"
	"strings"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"

	"pmx/internal/dataapi"
)

// loadOpenAPI parses the embedded document with kin-openapi, resolving every
// $ref, and fails the test on any error.
func loadOpenAPI(t testing.TB) *openapi3.T {
	t.Helper()
	loader := openapi3.NewLoader()
	doc, err := loader.LoadFromData(dataapi.OpenAPIDocument())
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
