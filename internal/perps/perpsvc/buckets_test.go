package perpsvc

import (
	"strconv"
	"testing"
	"time"
)

// TestBucketsRefillAtBudgetPerWindow: budget tokens at once, then budget per
// window, continuously; a refused request consumes nothing.
func TestBucketsRefillAtBudgetPerWindow(t *testing.T) {
	b := NewBuckets(60, time.Minute)
	t0 := time.Unix(1_800_000_000, 0)
	if ok, _ := b.Take("a", 60, t0); !ok {
		t.Fatal("the full budget was refused")
	}
	if ok, wait := b.Take("a", 1, t0); ok || wait != time.Second {
		t.Fatalf("empty bucket: ok %v wait %v, want a refusal for 1s", ok, wait)
	}
	if ok, _ := b.Take("a", 1, t0.Add(time.Second)); !ok {
		t.Fatal("one token a second later was refused")
	}
	if ok, wait := b.Take("b", 61, t0); ok || wait != time.Minute {
		t.Fatalf("over the budget: ok %v wait %v", ok, wait)
	}
	if ok, _ := b.Take("b", 60, t0); !ok {
		t.Fatal("a refused request consumed tokens")
	}
}

// TestBucketsStayBoundedUnderAKeySpray: a million distinct keys keep the set
// at its fixed capacity (the old map grew past 65,536 keys).
func TestBucketsStayBoundedUnderAKeySpray(t *testing.T) {
	b := NewBuckets(1000, time.Minute)
	now := time.Unix(1_800_000_000, 0)
	for i := range 1_000_000 {
		b.Take(strconv.Itoa(i), 1, now)
	}
	if n := b.set.Len(); n > 1<<16 {
		t.Fatalf("%d keys tracked, want at most %d", n, 1<<16)
	}
}
