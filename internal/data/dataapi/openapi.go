package dataapi

import (
	_ "embed"
	"net/http"
)

// openAPIDocument is pmx's own OpenAPI 3.1 description of the data service
// (docs/openapi.md). It is authored by hand; the openapi_*_test.go files
// check it against the served routes and validate real responses with it.
//
//go:embed openapi/openapi.json
var openAPIDocument []byte

// OpenAPIDocument returns a copy of the served OpenAPI document.
func OpenAPIDocument() []byte { return append([]byte(nil), openAPIDocument...) }

// openAPI serves the document as-is: it is not a data payload, so it has no
// envelope.
func (s *Service) openAPI(w http.ResponseWriter, r *http.Request) error {
	w.Header().Set("Cache-Control", "public, max-age=300")
	writeBody(w, http.StatusOK, openAPIDocument)
	return nil
}
