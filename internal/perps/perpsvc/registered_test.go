package perpsvc

import (
	"testing"
	"time"
)

// TestRegisteredNegativeCache: a negative is served for less than
// RegisteredNegativeTTL, never after a registration (bump), never when it
// was read under an older generation, and the cache stays bounded.
func TestRegisteredNegativeCache(t *testing.T) {
	t0 := time.Unix(1_790_000_000, 0)
	var c regCache
	if hit, _ := c.get("0xa", t0); hit {
		t.Fatal("empty cache hit")
	}
	_, g := c.get("0xa", t0)
	c.put("0xa", g, t0)
	if hit, _ := c.get("0xa", t0.Add(RegisteredNegativeTTL-time.Millisecond)); !hit {
		t.Fatal("a fresh negative is served")
	}
	if hit, _ := c.get("0xa", t0.Add(RegisteredNegativeTTL)); hit {
		t.Fatal("served past the TTL")
	}
	c.bump()
	if hit, _ := c.get("0xa", t0); hit {
		t.Fatal("served after a registration")
	}
	_, old := c.get("0xb", t0)
	c.bump() // a registration between the read and the put
	c.put("0xb", old, t0)
	if hit, _ := c.get("0xb", t0); hit {
		t.Fatal("a negative read before a registration is served")
	}
	_, g = c.get("", t0)
	for i := 0; i < 3*registeredCacheMax; i++ {
		c.put(string(rune(i)), g, t0)
	}
	if n := len(c.neg); n > registeredCacheMax {
		t.Fatalf("%d cached", n)
	}
}
