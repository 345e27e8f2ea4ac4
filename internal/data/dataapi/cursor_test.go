package dataapi

import (
	"encoding/base64"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

var testSecret = []byte("0123456789abcdef0123456789abcdef")

func mustCursors(t testing.TB, secret []byte) *Cursors {
	t.Helper()
	c, err := NewCursors(secret)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func isCursorErr(err error) bool {
	var e *Error
	return errors.As(err, &e) && e.Code == CodeInvalidRequest && e.Parameter == "cursor"
}

func TestCursorRoundTrip(t *testing.T) {
	c := mustCursors(t, testSecret)
	k := Keyset{Limit: 100, Offset: 200, TS: 1790000000, Seq: "937842960003104210", Dir: "ASC"}
	s, err := c.Encode("activity", k)
	if err != nil {
		t.Fatal(err)
	}
	got, err := c.DecodeKeyset("activity", s, 1000)
	if err != nil || got != k {
		t.Fatalf("keyset: %+v %v", got, err)
	}
	co := Cohort{Limit: 50, Offset: 50, Key: "18.2516", Tie: "123"}
	co.Pin("status", "CLOSED")
	co.Pin("sort_by", "REALIZED_PNL")
	s, err = c.Encode("positions", co)
	if err != nil {
		t.Fatal(err)
	}
	gotC, err := c.DecodeCohort("positions", s, 1000)
	if err != nil || !reflect.DeepEqual(gotC, co) {
		t.Fatalf("cohort: %+v %v", gotC, err)
	}
}

func TestCursorRejections(t *testing.T) {
	c := mustCursors(t, testSecret)
	other := mustCursors(t, []byte("another-secret-of-32-bytes......"))
	good, _ := c.Encode("trades", Keyset{Limit: 10, TS: 1, Seq: "2"})
	foreign, _ := other.Encode("trades", Keyset{Limit: 10, TS: 1, Seq: "2"})
	tooBig, _ := c.Encode("trades", Keyset{Limit: 5000, TS: 1, Seq: "2"})
	extra, _ := c.Encode("trades", map[string]any{"l": 10, "evil": true})
	cases := map[string]struct{ kind, s string }{
		"another route's cursor": {"activity", good},
		"another secret":         {"trades", foreign},
		"empty":                  {"trades", ""},
		"not base64":             {"trades", "!!!"},
		"base64 of junk":         {"trades", base64.RawURLEncoding.EncodeToString([]byte("junk"))},
		"limit over the cap":     {"trades", tooBig},
		"unknown field":          {"trades", extra},
		"oversized":              {"trades", string(make([]byte, maxCursorLen+1))},
	}
	for name, tc := range cases {
		if _, err := c.DecodeKeyset(tc.kind, tc.s, 1000); !isCursorErr(err) {
			t.Errorf("%s: %v", name, err)
		}
	}
	// Any single-byte change of the token is rejected.
	raw, _ := base64.RawURLEncoding.DecodeString(good)
	for i := range raw {
		mod := append([]byte(nil), raw...)
		mod[i] ^= 0x01
		if _, err := c.DecodeKeyset("trades", base64.RawURLEncoding.EncodeToString(mod), 1000); !isCursorErr(err) {
			t.Fatalf("byte %d flipped: accepted (%v)", i, err)
		}
	}
	if _, err := NewCursors([]byte("short")); err == nil {
		t.Error("short secret accepted")
	}
}

// TestDecodedPagesAreRangeChecked: a verified cursor still carries a page
// size in 1..max and a non-negative offset, or it is the same 400 (keyset,
// cohort, and through pageInRange the sort-key walks).
func TestDecodedPagesAreRangeChecked(t *testing.T) {
	c := mustCursors(t, testSecret)
	for _, p := range []struct {
		limit, offset int32
		ok            bool
	}{{1, 0, true}, {1000, 7, true}, {0, 0, false}, {-1, 0, false}, {1001, 0, false}, {10, -1, false}} {
		if got := pageInRange(p.limit, p.offset, 1000); got != p.ok {
			t.Errorf("pageInRange(%d, %d): %v", p.limit, p.offset, got)
		}
		ks, _ := c.Encode("trades", Keyset{Limit: p.limit, Offset: p.offset, TS: 1, Seq: "1"})
		co, _ := c.Encode("holders", Cohort{Limit: p.limit, Offset: p.offset})
		_, errK := c.DecodeKeyset("trades", ks, 1000)
		_, errC := c.DecodeCohort("holders", co, 1000)
		for name, err := range map[string]error{"keyset": errK, "cohort": errC} {
			if p.ok != (err == nil) || !p.ok && !isCursorErr(err) {
				t.Errorf("%s limit %d offset %d: %v", name, p.limit, p.offset, err)
			}
		}
	}
}

func TestCohortBind(t *testing.T) {
	var co Cohort
	co.Pin("time_period", "week")
	cases := []struct {
		param, given, want string
		bad                bool
	}{
		{"time_period", "", "week", false},      // omitted adopts the pin
		{"time_period", "week", "week", false},  // restating is fine
		{"time_period", "day", "", true},        // contradicting is a 400
		{"category", "sports", "sports", false}, // not pinned: as given
		{"category", "", "", false},
	}
	for _, tc := range cases {
		got, err := co.Bind(tc.param, tc.given)
		if tc.bad != (err != nil) || got != tc.want {
			t.Errorf("%s=%q: %q %v", tc.param, tc.given, got, err)
		}
		if tc.bad && !isCursorErr(err) {
			t.Errorf("%s: wrong error %v", tc.param, err)
		}
	}
}

func TestLoadSecret(t *testing.T) {
	p := filepath.Join(t.TempDir(), "cursor.secret")
	a, err := LoadSecret(p)
	if err != nil || len(a) != 64 {
		t.Fatalf("create: %q %v", a, err)
	}
	b, err := LoadSecret(p)
	if err != nil || string(a) != string(b) {
		t.Fatalf("reload: %q %v", b, err)
	}
	if st, _ := os.Stat(p); st.Mode().Perm() != 0o600 {
		t.Errorf("mode %v", st.Mode())
	}
	os.WriteFile(p, []byte("short\n"), 0o600)
	if _, err := LoadSecret(p); err == nil {
		t.Error("short secret file accepted")
	}
}

// FuzzDecodeCursor: arbitrary input never panics, every failure is the
// cursor 400, and anything accepted re-encodes to a cursor that decodes to
// the same value.
func FuzzDecodeCursor(f *testing.F) {
	c := mustCursors(f, testSecret)
	for _, k := range []Keyset{{Limit: 1, TS: 1, Seq: "1"}, {Limit: 1000, Offset: 5, TS: -1, Seq: "x", Dir: "ASC"}} {
		s, _ := c.Encode("trades", k)
		f.Add(s)
	}
	co := Cohort{Limit: 3, Offset: 6}
	co.Pin("status", "OPEN")
	s, _ := c.Encode("trades", co)
	f.Add(s)
	f.Add("")
	f.Add("eyJkYXRhIjp7fX0")
	f.Add("e30")
	f.Fuzz(func(t *testing.T, s string) {
		k, err := c.DecodeKeyset("trades", s, 1000)
		if err != nil {
			if !isCursorErr(err) {
				t.Fatalf("non-cursor error %v", err)
			}
			return
		}
		again, err := c.Encode("trades", k)
		if err != nil {
			t.Fatal(err)
		}
		k2, err := c.DecodeKeyset("trades", again, 1000)
		if err != nil || k2 != k {
			t.Fatalf("re-encode: %+v %v", k2, err)
		}
	})
}
