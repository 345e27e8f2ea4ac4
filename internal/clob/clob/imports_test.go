package clob

import (
	"go/build"
	"strings"
	"testing"
)

// TestImportDirection: HTTP -> service -> engine -> domain; storage
// depends on the domain only; nothing below HTTP imports net/http.
func TestImportDirection(t *testing.T) {
	forbidden := map[string][]string{
		"clob":       {"pmx/internal/clob/clobhttp", "pmx/internal/clob/clobsvc", "pmx/internal/clob/clobengine", "pmx/internal/clob/clobsql", "net/http", "database/sql"},
		"clobengine": {"pmx/internal/clob/clobhttp", "pmx/internal/clob/clobsvc", "pmx/internal/clob/clobsql", "net/http", "database/sql"},
		"clobsvc":    {"pmx/internal/clob/clobhttp", "net/http"},
		"clobsql":    {"pmx/internal/clob/clobhttp", "pmx/internal/clob/clobsvc", "pmx/internal/clob/clobengine", "net/http"},
	}
	for dir, bad := range forbidden {
		p, err := build.ImportDir("../"+dir, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, imp := range p.Imports {
			for _, b := range bad {
				if imp == b || strings.HasPrefix(imp, b+"/") {
					t.Errorf("%s imports %s", dir, imp)
				}
			}
		}
	}
}
