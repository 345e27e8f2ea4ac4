package catalog

import "testing"

func TestDateKey(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"2021-12-04T00:00:00Z", "2021-12-04T00:00:00.000000Z"},
		{"2025-07-03T20:25:56.889606Z", "2025-07-03T20:25:56.889606Z"},
		{"2022-07-27 14:40:02.064+00", "2022-07-27T14:40:02.064000Z"},
		{"2026-12-31", "2026-12-31T00:00:00.000000Z"},
		{"2026-01-01T02:00:00+02:00", "2026-01-01T00:00:00.000000Z"},
		{"", ""},
		{"yesterday", ""},
	} {
		if got := DateKey(c.in); got != c.want {
			t.Errorf("DateKey(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

func TestCursorRoundTrip(t *testing.T) {
	for _, c := range []Cursor{
		{Order: OrderID, Ascending: true, ID: 7},
		{Order: OrderEndDate, Key: "2026-12-31T00:00:00.000000Z", ID: 1},
	} {
		got, err := DecodeCursor(c.Encode())
		if err != nil || got != c {
			t.Errorf("round trip %+v: got %+v, %v", c, got, err)
		}
	}
	for _, bad := range []string{"", "!!", "eyJvIjoieCJ9", Cursor{Order: "volume"}.Encode(), Cursor{Order: "id", ID: -1}.Encode()} {
		if _, err := DecodeCursor(bad); err == nil {
			t.Errorf("DecodeCursor(%q) accepted", bad)
		}
	}
}

func FuzzDecodeCursor(f *testing.F) {
	f.Add(Cursor{Order: OrderID, ID: 3}.Encode())
	f.Add("eyJvIjoiaWQifQ")
	f.Add("")
	f.Fuzz(func(t *testing.T, s string) {
		c, err := DecodeCursor(s)
		if err != nil {
			return
		}
		c2, err := DecodeCursor(c.Encode())
		if err != nil || c2 != c {
			t.Fatalf("re-encode of %+v: %+v %v", c, c2, err)
		}
	})
}

func FuzzDateKey(f *testing.F) {
	f.Add("2022-07-27 14:40:02.064+00")
	f.Add("2026-12-31")
	f.Fuzz(func(t *testing.T, s string) {
		k := DateKey(s)
		if k != "" && (len(k) != len(dateKeyLayout) || DateKey(k) != k) {
			t.Fatalf("DateKey(%q) = %q not a fixed point", s, k)
		}
	})
}
