package ratelimit

import (
	"runtime"
	"strconv"
	"testing"
	"time"
)

var bt0 = time.Unix(1_700_000_000, 0)

// TestBucketExact: continuous refill, all-or-nothing costs and the minimum
// wait are exact to the token with an injected clock.
func TestBucketExact(t *testing.T) {
	b := NewBuckets(16)
	spec := Spec{Rate: 40, Burst: 60}
	if v := b.Take("s", spec, 60, bt0); !v.OK || v.Remaining != 0 {
		t.Fatalf("full burst: %+v", v)
	}
	if v := b.Take("s", spec, 1, bt0); v.OK || v.Wait != 25*time.Millisecond {
		t.Fatalf("empty: %+v", v)
	}
	// 25 ms later exactly one token has refilled.
	if v := b.Take("s", spec, 2, bt0.Add(25*time.Millisecond)); v.OK || v.Wait != 25*time.Millisecond {
		t.Fatalf("one token, cost two: %+v", v)
	}
	if v := b.Take("s", spec, 1, bt0.Add(25*time.Millisecond)); !v.OK || v.Remaining != 0 {
		t.Fatalf("one token: %+v", v)
	}
	// Many tiny steps earn exactly what one long step does.
	now := bt0.Add(25 * time.Millisecond)
	for range 1000 {
		now = now.Add(time.Microsecond)
		b.Peek("s", spec, 1, now)
	}
	if v := b.Take("s", spec, 1, now.Add(24*time.Millisecond)); !v.OK {
		t.Fatalf("refill lost in small steps: %+v", v)
	}
	// Refill stops at the burst.
	if v := b.Take("s", spec, 60, now.Add(time.Hour)); !v.OK || v.Remaining != 0 {
		t.Fatalf("refill past burst: %+v", v)
	}
	// A cost above the burst can never pass.
	if v := b.Take("s", spec, 61, now.Add(2*time.Hour)); v.OK || v.Wait != -1 {
		t.Fatalf("above burst: %+v", v)
	}
}

// TestBucketDebt: Charge goes into debt only where the spec allows it, and
// a bucket in debt refuses until it can pay the next request.
func TestBucketDebt(t *testing.T) {
	b := NewBuckets(16)
	debt, floor := Spec{Rate: 80, Burst: 120, Debt: true}, Spec{Rate: 900, Burst: 1350}
	b.Take("d", debt, 1, bt0)
	if r := b.Charge("d", debt, 200, bt0); r != -81 {
		t.Fatalf("debt balance %d", r)
	}
	if v := b.Take("d", debt, 1, bt0.Add(time.Second)); v.OK || v.Remaining != -1 || v.Wait != 25*time.Millisecond {
		t.Fatalf("in debt: %+v", v)
	}
	b.Take("f", floor, 1, bt0)
	if r := b.Charge("f", floor, 5000, bt0); r != 0 {
		t.Fatalf("floored balance %d", r)
	}
}

// TestBucketsBounded: a million distinct keys never track more than the
// cap, and the heap stays bounded.
func TestBucketsBounded(t *testing.T) {
	const cap = 4096
	b := NewBuckets(cap)
	spec := Spec{Rate: 40, Burst: 60}
	var before, after runtime.MemStats
	for i := range 1_000_000 {
		if i == 100_000 {
			runtime.GC()
			runtime.ReadMemStats(&before)
		}
		b.Take("k"+strconv.Itoa(i), spec, 1, bt0.Add(time.Duration(i)))
	}
	runtime.GC()
	runtime.ReadMemStats(&after)
	if n := b.Len(); n != cap || len(b.index) != cap {
		t.Fatalf("tracked %d keys (index %d), cap %d", n, len(b.index), cap)
	}
	if grew := int64(after.HeapInuse) - int64(before.HeapInuse); grew > 4<<20 {
		t.Fatalf("heap grew %d bytes over 900,000 new keys", grew)
	}
}

func TestBucketNoAllocs(t *testing.T) {
	b := NewBuckets(16)
	spec := Spec{Rate: 40, Burst: 60}
	now := bt0
	if n := testing.AllocsPerRun(1000, func() {
		now = now.Add(time.Millisecond)
		b.Take("signer", spec, 1, now)
	}); n != 0 {
		t.Fatalf("%v allocations per Take", n)
	}
}
