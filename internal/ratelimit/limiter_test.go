package ratelimit

import (
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"pmx/internal/clock"
)

var t0 = time.Date(2026, 11, 21, 0, 0, 0, 0, time.UTC)

func oneRule(t *testing.T, limit int, maxWait time.Duration) (*Limiter, *clock.Manual) {
	t.Helper()
	c := clock.NewManual(t0)
	l, err := New(Config{
		Rules:   []Rule{{Scope: "s", Limit: limit, Window: 10 * time.Second, Match: prefix("/")}},
		MaxWait: maxWait,
	}, c)
	if err != nil {
		t.Fatal(err)
	}
	return l, c
}

type step struct {
	at    time.Duration // since t0
	ok    bool
	wait  time.Duration // when ok
	retry time.Duration // when !ok
}

func TestSlidingWindow(t *testing.T) {
	s := time.Second
	cases := []struct {
		name    string
		limit   int
		maxWait time.Duration
		steps   []step
	}{
		{"admits up to the limit then rejects past the bound", 3, 0, []step{
			{0, true, 0, 0}, {0, true, 0, 0}, {0, true, 0, 0},
			// Bucket 0 leaves every window at 11 s (10 s window, 1 s buckets, conservative).
			{0, false, 0, 11 * s},
		}},
		{"slides: old buckets free slots one by one, not all at a fixed boundary", 3, 0, []step{
			{0, true, 0, 0}, {0, true, 0, 0}, {5 * s, true, 0, 0},
			{10 * s, false, 0, 1 * s},
			{11 * s, true, 0, 0}, {11 * s, true, 0, 0},
			// The request at 5 s still counts until 16 s.
			{11 * s, false, 0, 5 * s},
			{16 * s, true, 0, 0},
		}},
		{"delays instead of rejecting, then rejects past the bound", 3, 5 * s, []step{
			{0, true, 0, 0}, {0, true, 0, 0}, {0, true, 0, 0},
			{7 * s, true, 4 * s, 0}, {7 * s, true, 4 * s, 0}, {7 * s, true, 4 * s, 0},
			// Bucket 11 is now full of reservations until 22 s.
			{7 * s, false, 0, 15 * s},
			{20 * s, true, 2 * s, 0},
		}},
		{"sub-bucket arrival waits for the bucket start", 1, 5 * s, []step{
			{500 * time.Millisecond, true, 0, 0},
			{9*s + 300*time.Millisecond, true, 1700 * time.Millisecond, 0},
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			maxWait := tc.maxWait
			if maxWait == 0 {
				maxWait = time.Nanosecond
			}
			l, c := oneRule(t, tc.limit, maxWait)
			for i, st := range tc.steps {
				if d := t0.Add(st.at).Sub(c.Now()); d > 0 {
					c.Advance(d)
				}
				got := l.Admit("1.2.3.4", []string{"s"})
				if got.OK != st.ok || (st.ok && got.Wait != st.wait) || (!st.ok && got.RetryAfter != st.retry) {
					t.Fatalf("step %d at %v: got %+v, want ok=%v wait=%v retry=%v", i, st.at, got, st.ok, st.wait, st.retry)
				}
			}
		})
	}
}

func TestKeysAreIndependent(t *testing.T) {
	l, _ := oneRule(t, 1, time.Nanosecond)
	if !l.Admit("a", []string{"s"}).OK || !l.Admit("b", []string{"s"}).OK {
		t.Fatal("first request of each key must pass")
	}
	if l.Admit("a", []string{"s"}).OK {
		t.Fatal("second request of a must be limited")
	}
}

func TestMultipleScopesAllMustAdmit(t *testing.T) {
	c := clock.NewManual(t0)
	l, err := New(Config{Rules: []Rule{
		{Scope: "wide", Limit: 5, Window: 10 * time.Second},
		{Scope: "narrow", Limit: 2, Window: 10 * time.Second},
	}, MaxWait: time.Nanosecond}, c)
	if err != nil {
		t.Fatal(err)
	}
	both := []string{"wide", "narrow", "wide"} // duplicates are charged once
	for i := 0; i < 2; i++ {
		if d := l.Admit("k", both); !d.OK {
			t.Fatalf("request %d: %+v", i, d)
		}
	}
	if d := l.Admit("k", both); d.OK || d.Scope != "narrow" {
		t.Fatalf("third: want rejection by narrow, got %+v", d)
	}
	// The wide scope alone still has 3 left (2 charged, the rejection charged nothing).
	for i := 0; i < 3; i++ {
		if d := l.Admit("k", []string{"wide"}); !d.OK {
			t.Fatalf("wide %d: %+v", i, d)
		}
	}
	if d := l.Admit("k", []string{"wide"}); d.OK {
		t.Fatalf("wide over limit admitted")
	}
	if d := l.Admit("k", []string{"unknown"}); !d.OK {
		t.Fatalf("unmatched scope must pass: %+v", d)
	}
}

// TestNeverExceedsWindow checks the sliding-window guarantee under random
// traffic: no Window-long interval contains more than Limit admissions
// (counted at their admission times, delays included).
func TestNeverExceedsWindow(t *testing.T) {
	const limit, window = 7, 10 * time.Second
	r := rand.New(rand.NewPCG(1, 2))
	c := clock.NewManual(t0)
	l, err := New(Config{Rules: []Rule{{Scope: "s", Limit: limit, Window: window}}, MaxWait: 3 * time.Second}, c)
	if err != nil {
		t.Fatal(err)
	}
	var admitted []time.Time
	rejected := 0
	for i := 0; i < 5000; i++ {
		c.Advance(time.Duration(r.IntN(int(800 * time.Millisecond))))
		d := l.Admit("k", []string{"s"})
		if d.OK {
			if d.Wait > 3*time.Second || d.Wait < 0 {
				t.Fatalf("wait %v out of bounds", d.Wait)
			}
			admitted = append(admitted, c.Now().Add(d.Wait))
		} else {
			rejected++
			if d.RetryAfter <= 3*time.Second {
				t.Fatalf("rejected with retry %v within the bound", d.RetryAfter)
			}
		}
	}
	if rejected == 0 || len(admitted) < 1000 {
		t.Fatalf("traffic did not exercise the limit: %d admitted, %d rejected", len(admitted), rejected)
	}
	slices.SortFunc(admitted, func(a, b time.Time) int { return a.Compare(b) })
	for i := range admitted {
		j := i
		for j < len(admitted) && admitted[j].Sub(admitted[i]) < window {
			j++
		}
		if j-i > limit {
			t.Fatalf("%d admissions within %v starting %v", j-i, window, admitted[i].Sub(t0))
		}
	}
}

func TestMemoryBounded(t *testing.T) {
	c := clock.NewManual(t0)
	l, err := New(Config{Rules: []Rule{{Scope: "s", Limit: 10, Window: 10 * time.Second}}, MaxKeys: 128}, c)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 10000; i++ {
		l.Admit(string(rune('a'+i%26))+string(rune(i)), []string{"s"})
	}
	if n := l.Keys(); n > 128 {
		t.Fatalf("%d keys tracked, bound 128", n)
	}
	// Idle keys are swept: after the window passes, a sweep empties the map.
	c.Advance(time.Minute)
	for i := 0; i < shardCount*sweepEvery; i++ {
		l.Admit("fresh", []string{"s"})
	}
	if n := l.Keys(); n != 1 {
		t.Fatalf("idle keys not evicted: %d", n)
	}
}

func TestConfigValidation(t *testing.T) {
	bad := []Config{
		{},
		{Rules: []Rule{{Scope: "", Limit: 1, Window: time.Second}}},
		{Rules: []Rule{{Scope: "x", Limit: 0, Window: time.Second}}},
		{Rules: []Rule{{Scope: "x", Limit: 1, Window: 0}}},
		{Rules: []Rule{{Scope: "x", Limit: 1, Window: 7}}, Buckets: 10},
	}
	for i, cfg := range bad {
		if _, err := New(cfg, nil); err == nil {
			t.Errorf("config %d accepted", i)
		}
	}
	for name, cfg := range map[string]Config{"data": DataDefaults(), "catalog": CatalogDefaults(), "clob": CLOBDefaults()} {
		if _, err := New(cfg, nil); err != nil {
			t.Errorf("%s defaults: %v", name, err)
		}
	}
}
