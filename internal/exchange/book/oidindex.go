package book

// oidIndex maps live OIDs to order slots: open addressing with linear probing
// and backward-shift deletion (no tombstones). Key 0 marks an empty bucket,
// which is why OID 0 is invalid. Key and value share a bucket so a lookup
// touches one cache line. It never iterates, so it cannot leak an order into
// output; it allocates only when it grows past half full.
type oidIndex struct {
	b     []bucket
	shift uint // 64 - log2(len(b))
	n     int
}

type bucket struct {
	key  uint64
	slot int32
}

func newOIDIndex(capacity int) oidIndex {
	size := 16
	for size < 2*capacity {
		size <<= 1
	}
	var x oidIndex
	x.init(size)
	return x
}

func (x *oidIndex) init(size int) {
	x.b = make([]bucket, size)
	x.shift = 64
	for s := size; s > 1; s >>= 1 {
		x.shift--
	}
	x.n = 0
}

// home spreads sequential OIDs with Fibonacci hashing (high bits).
func (x *oidIndex) home(k uint64) int {
	return int((k * 0x9E3779B97F4A7C15) >> x.shift)
}

func (x *oidIndex) get(k uint64) int32 {
	mask := len(x.b) - 1
	for i := x.home(k); ; i = (i + 1) & mask {
		e := &x.b[i]
		if e.key == k {
			return e.slot
		}
		if e.key == 0 {
			return 0
		}
	}
}

// put inserts k (which must be absent and nonzero).
func (x *oidIndex) put(k uint64, v int32) {
	if 2*(x.n+1) > len(x.b) {
		x.grow()
	}
	mask := len(x.b) - 1
	i := x.home(k)
	for x.b[i].key != 0 {
		i = (i + 1) & mask
	}
	x.b[i] = bucket{k, v}
	x.n++
}

func (x *oidIndex) grow() {
	old := x.b
	x.init(2 * len(old))
	for _, e := range old {
		if e.key != 0 {
			x.put(e.key, e.slot)
		}
	}
}

// del removes k if present.
func (x *oidIndex) del(k uint64) {
	mask := len(x.b) - 1
	i := x.home(k)
	for x.b[i].key != k {
		if x.b[i].key == 0 {
			return
		}
		i = (i + 1) & mask
	}
	// Shift later members of the probe run back so lookups never stop early.
	for j := (i + 1) & mask; x.b[j].key != 0; j = (j + 1) & mask {
		h := x.home(x.b[j].key)
		if (j-h)&mask >= (j-i)&mask {
			x.b[i] = x.b[j]
			i = j
		}
	}
	x.b[i] = bucket{}
	x.n--
}
