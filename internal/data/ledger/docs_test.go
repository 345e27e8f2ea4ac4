package ledger

import (
	"os"
	"strings"
	"testing"
)

// TestDocExamples keeps docs/ledger-events.md honest: every example line
// parses, and every kind has at least one.
func TestDocExamples(t *testing.T) {
	doc, err := os.ReadFile("../../../docs/ledger-events.md")
	if err != nil {
		t.Fatal(err)
	}
	seen := map[Kind]int{}
	for i, l := range strings.Split(string(doc), "\n") {
		if !strings.HasPrefix(l, `{"kind"`) {
			continue
		}
		var e Event
		if err := Unmarshal([]byte(l), &e); err != nil {
			t.Errorf("docs line %d: %v", i+1, err)
		}
		seen[e.Kind]++
	}
	for k := range allowed {
		if seen[k] == 0 {
			t.Errorf("no example of %s", k)
		}
	}
}
