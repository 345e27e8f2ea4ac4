package internal_test

import (
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
)

// The dependency direction of docs/ARCHITECTURE.md: HTTP → service →
// domain/engine → storage. A package may import its own layer and the
// layers below; storage may also import domain types (it implements the
// domain's interfaces); nothing below HTTP imports net/http; building
// blocks import only building blocks.
//
// A package's layer comes from layers below, else from its name inside a
// service folder (data, catalog, clob, perps, exchange): …http → HTTP,
// …svc → service, …sql or sqlite → storage, anything else → domain. A
// package outside the service folders must be listed.

const (
	base    = iota // cross-service building blocks
	storage        // journals and SQL stores
	domain         // domain types, engines, state machines, authentication rules
	service        // running services: goroutines, timers, orchestration
	httpL          // HTTP and WebSocket translation, listeners, operator API
	tests          // test-only helpers: anything below
)

var layers = map[string]int{
	"amount": base, "hexid": base, "jsonstr": base, "httpjson": base, "safetext": base, "tokenbucket": base, "config": base, "cpuclock": base, "clock": base, "acceptencoding": base, "chain": base,
	"progress": base, "crypto/keccak": base, "crypto/secp": base, "crypto/eip712": base, "crypto/msgpack": base,
	"migrate": base,

	"exchange/journal": storage, "pgsql": storage, "data/postgres": storage, "catalog/catalogpg": storage,
	"clob/clobpg":  storage,
	"demo":         domain,
	"data/ingest":  service,
	"data/dataapi": httpL, "clob/clobauth": httpL, "admin": httpL, "server": httpL, "ratelimit": httpL,
	"clob/clobws": httpL, "wsguard": httpL,
	"loadgen": httpL, // the load generator and the bare endpoint it measures against

	"npmtest": tests, "exchange/workload": tests, "exchange/engine/enginetest": tests,
	"perps/perpsauth/testsigner": tests, "pgsql/pgtest": tests, "hostile": tests,
}

// layerOf is pkg's layer by layers, else by its name in a service folder.
func layerOf(pkg string) (int, bool) {
	if l, ok := layers[pkg]; ok {
		return l, true
	}
	dir, name, ok := strings.Cut(pkg, "/")
	switch dir {
	case "data", "catalog", "clob", "perps", "exchange":
	default:
		return 0, false
	}
	if !ok {
		return 0, false
	}
	name = name[strings.LastIndex(name, "/")+1:]
	switch {
	case strings.HasSuffix(name, "http"):
		return httpL, true
	case strings.HasSuffix(name, "svc"):
		return service, true
	case strings.HasSuffix(name, "sql") || name == "sqlite":
		return storage, true
	case strings.HasSuffix(name, "test") || name == "testsigner":
		return tests, true
	}
	return domain, true
}

// exceptions are edges that break the rules today, each with the work that
// removes it. An entry whose edge has gone is reported (remove it).
var exceptions = map[string]string{
	"httpjson -> net/http": "names http.MaxBytesError's limit in its body-too-large message; serves nothing",
}

func TestImportsPointInward(t *testing.T) {
	imports := map[string]map[string]bool{}
	err := filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") ||
			strings.Contains(path, "testdata") {
			return err
		}
		f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.ImportsOnly)
		if err != nil {
			return err
		}
		pkg := filepath.ToSlash(filepath.Dir(path))
		if imports[pkg] == nil {
			imports[pkg] = map[string]bool{}
		}
		for _, im := range f.Imports {
			p, _ := strconv.Unquote(im.Path.Value)
			if q, ok := strings.CutPrefix(p, "pmx/internal/"); ok {
				imports[pkg][q] = true
			} else if p == "net/http" || p == "net/http/httptest" {
				imports[pkg]["net/http"] = true
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(imports) < 40 {
		t.Fatalf("found %d packages: not run from internal/?", len(imports))
	}
	used := map[string]bool{}
	var bad []string
	for pkg, ims := range imports {
		from, ok := layerOf(pkg)
		if !ok {
			bad = append(bad, pkg+": not classified in layers_test.go")
			continue
		}
		for im := range ims {
			edge := pkg + " -> " + im
			if why := violation(from, im); why != "" {
				if _, ok := exceptions[edge]; ok {
					used[edge] = true
					continue
				}
				bad = append(bad, edge+": "+why)
			}
		}
	}
	for edge := range exceptions {
		if !used[edge] {
			t.Logf("%s: listed as an exception but no longer imported; remove it", edge)
		}
	}
	sort.Strings(bad)
	for _, b := range bad {
		t.Error(b)
	}
}

// violation says why a package of layer from may not import im, or "".
func violation(from int, im string) string {
	if im == "net/http" {
		if from < httpL && from != tests {
			return "only HTTP packages import net/http"
		}
		return ""
	}
	to, ok := layerOf(im)
	switch {
	case !ok:
		return "imports an unclassified package"
	case to == tests && from != tests:
		return "imports a test-only package"
	case from == tests || to == base:
		return ""
	case from == base:
		return "a building block imports a layer"
	case from == storage && to == domain:
		return "" // storage implements the domain's interfaces
	case to > from:
		return "points outward (HTTP → service → domain/engine → storage)"
	}
	return ""
}
