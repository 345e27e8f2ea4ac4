package perpsauth

import (
	"encoding/binary"
	"errors"
	"testing"
)

func rk(i uint64, expiresMs int64) ReplayKey {
	var d [32]byte
	binary.BigEndian.PutUint64(d[:], i*0x9e3779b97f4a7c15) // spread across shards
	return newReplayKey(d, [20]byte{1}, expiresMs)
}

func TestReplayCacheExpiry(t *testing.T) {
	c := NewReplayCache(0)
	const now = 1_000_000
	for i := range uint64(100) {
		if err := c.Add(rk(i, now+int64(i)*1000), now); err != nil {
			t.Fatal(err)
		}
	}
	if c.Len() != 100 {
		t.Fatalf("len %d", c.Len())
	}
	if err := c.Add(rk(5, now+5000), now); !errors.Is(err, ErrReplayed) {
		t.Fatalf("duplicate: %v", err)
	}
	// Same digest and signer with another expiry cannot happen for one
	// request (expiry comes from the signed ts); other signers never collide.
	d := [32]byte{0xee}
	a, b := newReplayKey(d, [20]byte{1}, now+1), newReplayKey(d, [20]byte{2}, now+1)
	if c.Add(a, now) != nil || c.Add(b, now) != nil {
		t.Fatal("distinct signers collided")
	}
	// Entries are dropped once their bucket has fully passed. Each shard
	// sweeps on its own next access, so touch every shard.
	later := int64(now + 200_000)
	for i := range byte(replayShards) {
		if err := c.Add(newReplayKey([32]byte{i, 0xfe}, [20]byte{}, later+1000), later); err != nil {
			t.Fatal(err)
		}
	}
	if c.Len() != replayShards {
		t.Fatalf("after expiry len %d, want only the %d fresh entries", c.Len(), replayShards)
	}
	// Expired keys are never stored.
	if err := c.Add(rk(5000, later-1), later); err != nil || c.Seen(rk(5000, later-1)) {
		t.Fatalf("expired key stored: %v", err)
	}
}

func TestReplayCacheFull(t *testing.T) {
	c := NewReplayCache(10)
	for i := range uint64(10) {
		if err := c.Add(rk(i, 5000), 0); err != nil {
			t.Fatal(err)
		}
	}
	if err := c.Add(rk(10, 5000), 0); !errors.Is(err, ErrReplayFull) {
		t.Fatalf("full: %v", err)
	}
	// A replay is still reported as a replay when full.
	if err := c.Add(rk(3, 5000), 0); !errors.Is(err, ErrReplayed) {
		t.Fatalf("replay when full: %v", err)
	}
	c.Remove(rk(3, 5000))
	c.Remove(rk(3, 5000)) // idempotent
	if c.Len() != 9 || c.Seen(rk(3, 5000)) {
		t.Fatalf("len %d", c.Len())
	}
	if err := c.Add(rk(10, 5000), 0); err != nil {
		t.Fatalf("after remove: %v", err)
	}
}

func TestReplayKeyBytes(t *testing.T) {
	k := newReplayKey([32]byte{1, 2, 3}, [20]byte{9, 8}, 1_800_000_300_000)
	if got := ReplayKeyFromBytes(k.Bytes()); got != k {
		t.Fatalf("round trip: %+v != %+v", got, k)
	}
	// Re-seeding a fresh cache makes the original a replay.
	c := NewReplayCache(0)
	if err := c.Add(ReplayKeyFromBytes(k.Bytes()), 1_800_000_000_000); err != nil {
		t.Fatal(err)
	}
	if err := c.Add(k, 1_800_000_000_000); !errors.Is(err, ErrReplayed) {
		t.Fatalf("re-seeded: %v", err)
	}
}
