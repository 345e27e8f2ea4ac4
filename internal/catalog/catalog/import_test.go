package catalog

import (
	"encoding/json"
	"os"
	"strconv"
	"strings"
	"testing"
)

func TestParseID(t *testing.T) {
	for _, c := range []struct {
		in   string
		want int64
		ok   bool
	}{
		{"0", 0, true}, {"2890", 2890, true}, {"9223372036854775807", 1<<63 - 1, true},
		{"9223372036854775808", 0, false}, {"-1", 0, false}, {"1.0", 0, false}, {"", 0, false},
		{"abc", 0, false}, {" 1", 0, false}, {"+1", 0, false}, {"0x1", 0, false},
	} {
		got, err := ParseID(c.in)
		if (err == nil) != c.ok || got != c.want {
			t.Errorf("ParseID(%q) = %d, %v", c.in, got, err)
		}
	}
}

func TestParseImportFixture(t *testing.T) {
	body, err := os.ReadFile("../catalogsql/testdata/event_full.json")
	if err != nil {
		t.Fatal(err)
	}
	evs, err := ParseImport(body)
	if err != nil || len(evs) != 1 {
		t.Fatalf("ParseImport: %v, %d events", err, len(evs))
	}
	e := evs[0]
	if len(e.Markets) != 2 || e.Markets[0].Events[0].ID != "9001" || *e.Markets[0].SocialCardImage == "" {
		t.Errorf("parsed event: %+v", e.Markets[0].Events)
	}
	// Rendering and re-importing is a fixed point.
	b, _ := json.Marshal(e)
	again, err := ParseImport(b)
	if err != nil {
		t.Fatal(err)
	}
	b2, _ := json.Marshal(again[0])
	if string(b) != string(b2) {
		t.Errorf("render/import is not a fixed point")
	}
}

func FuzzParseID(f *testing.F) {
	for _, s := range []string{"0", "17", "-3", "1e3", "99999999999999999999"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		v, err := ParseID(s)
		if err != nil {
			return
		}
		w, perr := strconv.ParseInt(s, 10, 64)
		if v < 0 || perr != nil || w != v || s[0] == '-' || s[0] == '+' {
			t.Fatalf("ParseID(%q) = %d", s, v)
		}
	})
}

func FuzzParseImport(f *testing.F) {
	f.Add(`{"id":"1","markets":[{"id":"2","outcomes":"[\"Yes\", \"No\"]","clobTokenIds":"[\"1\", \"2\"]"}]}`)
	f.Add(`[{"id":"3","tags":[{"id":"4"}],"series":[{"id":5}]}]`)
	f.Add(`{"events":[{"id":"6","volume":"1.5","twitterCardImage":"x"}]}`)
	f.Add(`{"id":"x"}`)
	f.Fuzz(func(t *testing.T, s string) {
		evs, err := ParseImport([]byte(s))
		if err != nil {
			return
		}
		b, err := json.Marshal(evs)
		if err != nil {
			t.Fatalf("accepted %q but cannot render: %v", s, err)
		}
		again, err := ParseImport(b)
		if err != nil || len(again) != len(evs) {
			t.Fatalf("rendered form of %q does not re-import: %v", s, err)
		}
	})
}

// The data store's rule (internal/data/sqlite derivedMarketID): the first 7 hex
// digits of the condition id.
func TestDerivedMarketID(t *testing.T) {
	for _, c := range []struct {
		cond string
		want int64
	}{
		{"0x571aafcdc9d3549ac260d5f956adc4ae57d9ace63575abd99db58ba0130e9fcf", 0x571aafc},
		{"0x0000001" + strings.Repeat("0", 57), 1},
		{"0x12", 0},
		{"0xzzzzzzz" + strings.Repeat("0", 57), 0},
	} {
		if got := DerivedMarketID(c.cond); got != c.want {
			t.Errorf("DerivedMarketID(%.12s…) = %d, want %d", c.cond, got, c.want)
		}
	}
}
