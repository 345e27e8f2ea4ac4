package catalog

import (
	"strings"
	"testing"

	"pmx/internal/httpjson"
)

// Operator input errors name the field and what was expected, never a Go
// type (catalog.Event, []catalog.Market, ...).
func TestImportErrorsNameTheFieldNeverAGoType(t *testing.T) {
	cases := map[string]string{
		`[[]]`:                             "expected an object",
		`{"id":"1","markets":{}}`:          "markets: expected an array",
		`{"id":"1","markets":[{"id":[]}]}`: "markets.0.id",
		`{"id":"1","title":7}`:             "title: expected a string",
		`{"id":"1","volume":"abc"}`:        "volume",
		`{"id":{}}`:                        "id",
		`{`:                                "document is not JSON",
	}
	for doc, want := range cases {
		_, err := ParseImport([]byte(doc))
		if err == nil {
			t.Errorf("%s: accepted", doc)
			continue
		}
		msg := err.Error()
		if !strings.Contains(msg, want) || httpjson.LeaksGo(msg) || strings.Contains(msg, "catalog.") {
			t.Errorf("%s: %q; want it to name %q and no Go type", doc, msg, want)
		}
	}
}

// Operator text is served publicly, so the import refuses control
// characters, bidi overrides and overlong strings, naming the field.
func TestImportRefusesControlCharactersAndOverlongText(t *testing.T) {
	cases := map[string]string{
		`{"id":"1","title":"a\u0000b"}`:                          "field title: contains the control character U+0000",
		`{"id":"1","markets":[{"id":"2","question":"\u202e"}]}`:  "field markets.0.question: contains the control character U+202E",
		`{"id":"1","slug":"` + strings.Repeat("s", 70000) + `"}`: "field slug: too long",
	}
	for doc, want := range cases {
		if _, err := ParseImport([]byte(doc)); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%.60s: %v; want %q", doc, err, want)
		}
	}
}
