package dataapi_test

import (
	"net/url"
	"slices"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"

	"pmx/internal/data/dataapi"
)

func oaService(t testing.TB) *dataapi.Service {
	return dataapi.New(dataapi.Options{CursorKey: []byte("openapi-test-cursor-secret")})
}

// TestOpenAPICoversServedRoutes: the served paths and the documented paths
// are the same set. A served route missing from the document always fails;
// a documented route that is not served fails too.
func TestOpenAPICoversServedRoutes(t *testing.T) {
	doc := loadOpenAPI(t)
	served := oaService(t).Routes()
	documented := map[string]bool{}
	for p, item := range doc.Paths.Map() {
		documented[p] = true
		// Only GET is served (HEAD follows it); the document must not
		// promise any other method.
		for m := range item.Operations() {
			if m != "GET" {
				t.Errorf("%s documents method %s; only GET is served", p, m)
			}
		}
		if item.Get == nil {
			t.Errorf("%s has no GET operation", p)
		}
	}
	for _, p := range served {
		if !documented[p] {
			t.Errorf("served route %s is not in openapi.json", p)
		}
	}
	for p := range documented {
		if !slices.Contains(served, p) {
			t.Errorf("documented route %s is not served", p)
		}
	}
}

// TestOpenAPIOperationsComplete: every operation has an id, a summary, the
// shared error responses, and every parameter a description; retired v1
// routes answer only errors, 410 first.
func TestOpenAPIOperationsComplete(t *testing.T) {
	doc := loadOpenAPI(t)
	ids := map[string]string{}
	for p, item := range doc.Paths.Map() {
		op := item.Get
		if op == nil {
			continue
		}
		if op.OperationID == "" || op.Summary == "" {
			t.Errorf("%s: missing operationId or summary", p)
		}
		if prev, dup := ids[op.OperationID]; dup {
			t.Errorf("%s: operationId %s also used by %s", p, op.OperationID, prev)
		}
		ids[op.OperationID] = p
		for _, st := range []int{429, 500, 503} {
			if op.Responses.Status(st) == nil {
				t.Errorf("%s: no %d response", p, st)
			}
		}
		if op.Deprecated {
			if op.Responses.Status(410) == nil || op.Responses.Status(200) != nil {
				t.Errorf("%s: a retired route documents 410 and no 200", p)
			}
		} else if op.Responses.Status(200) == nil {
			t.Errorf("%s: no 200 response", p)
		}
		if len(op.Parameters) > 0 && op.Responses.Status(400) == nil {
			t.Errorf("%s: takes parameters but documents no 400", p)
		}
		for _, pr := range op.Parameters {
			if pr.Value == nil || pr.Value.Description == "" || pr.Value.In != "query" {
				t.Errorf("%s: parameter %+v lacks a description or is not a query parameter", p, pr.Value)
			}
		}
	}
}

// oaAliases is a parameter's documented other spellings (x-pmx-aliases).
func oaAliases(p *openapi3.Parameter) []string {
	var out []string
	if raw, ok := p.Extensions["x-pmx-aliases"].([]any); ok {
		for _, a := range raw {
			if s, ok := a.(string); ok {
				out = append(out, s)
			}
		}
	}
	return out
}

// TestOpenAPIAliasesAccepted: every spelling the document lists in
// x-pmx-aliases reaches the parameter through the service's own query
// parser, and so does the canonical name.
func TestOpenAPIAliasesAccepted(t *testing.T) {
	doc := loadOpenAPI(t)
	n := 0
	for path, item := range doc.Paths.Map() {
		if item.Get == nil {
			continue
		}
		for _, pr := range item.Get.Parameters {
			p := pr.Value
			for _, spelling := range append([]string{p.Name}, oaAliases(p)...) {
				q, err := dataapi.ParseQuery(path, url.QueryEscape(spelling)+"=probe")
				if err != nil {
					t.Errorf("%s: %s=probe: %v", path, spelling, err)
					continue
				}
				if got, err := q.Get(p.Name); err != nil || got != "probe" {
					t.Errorf("%s: %s does not reach parameter %s (got %q, %v)", path, spelling, p.Name, got, err)
				}
				n++
			}
		}
	}
	if n < 100 {
		t.Fatalf("only %d spellings checked", n)
	}
}
