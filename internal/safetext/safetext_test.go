package safetext

import (
	"strings"
	"testing"
)

func TestCheckRefusesControlCharactersBidiOverridesOverlongAndInvalidText(t *testing.T) {
	bad := map[string]string{
		"a\x00b":                 "U+0000",
		"evil\u202egnp.exe":      "U+202E",
		"x\u2066y":               "U+2066",
		"\x1b[31mred":            "U+001B",
		"del\x7f":                "U+007F",
		"c1\u0085":               "U+0085",
		"\xff\xfe":               "UTF-8",
		strings.Repeat("a", 101): "too long",
	}
	for s, want := range bad {
		if err := Check(s, 100); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: %v, want %q", s, err, want)
		}
	}
	for _, s := range []string{"", "BTC-USD", "Will it rain?\nYes\tNo\r", "Café ☕ 東京 \u200d", "\ufffd literal replacement char"} {
		if err := Check(s, 100); err != nil {
			t.Errorf("%q refused: %v", s, err)
		}
	}
}

func TestWalkNamesTheFieldOfTheFirstRefusedString(t *testing.T) {
	type leg struct {
		Name string `json:"name"`
	}
	type ev struct {
		Kind string         `json:"kind"`
		Legs []leg          `json:"legs"`
		Meta map[string]any `json:"meta"`
		Ptr  *string        `json:"ptr,omitempty"`
	}
	bad := "x\x00"
	cases := []struct {
		v    any
		want string
	}{
		{ev{Kind: "a", Legs: []leg{{"ok"}, {bad}}}, "field legs.1.name: contains the control character U+0000"},
		{ev{Ptr: &bad}, "field ptr: contains"},
		{ev{Meta: map[string]any{"k": []any{"fine", bad}}}, "field meta.k.1: contains"},
		{map[string]any{bad: 1}, `key "x\x00"`},
	}
	for _, c := range cases {
		if err := Walk(c.v, 100); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: %v, want %q", c.v, err, c.want)
		}
	}
	if err := Walk(ev{Kind: "k", Legs: []leg{{"a"}}, Meta: map[string]any{"n": 1.5}}, 100); err != nil {
		t.Errorf("clean value refused: %v", err)
	}
}

func FuzzCheck(f *testing.F) {
	for _, s := range []string{"BTC-USD", "a\x00", "\u202e", "\xff"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if Check(s, 1<<20) != nil {
			return
		}
		for _, r := range s {
			if Forbidden(r) {
				t.Fatalf("%q accepted with %U", s, r)
			}
		}
	})
}
