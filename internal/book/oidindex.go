package book

// oidIndex maps live OIDs to order slots: open addressing with linear probing
// and backward-shift deletion (no tombstones). Key 0 marks an empty bucket,
// which is why OID 0 is invalid. It never iterates, so it cannot leak an
// order into output; it allocates only when it grows past half full.
type oidIndex struct {
	keys  []uint64
	vals  []int32
	shift uint // 64 - log2(len(keys))
	n     int
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
	x.keys = make([]uint64, size)
	x.vals = make([]int32, size)
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
	mask := len(x.keys) - 1
	for i := x.home(k); ; i = (i + 1) & mask {
		switch x.keys[i] {
		case k:
			return x.vals[i]
		case 0:
			return 0
		}
	}
}

// put inserts k (which must be absent and nonzero).
func (x *oidIndex) put(k uint64, v int32) {
	if 2*(x.n+1) > len(x.keys) {
		x.grow()
	}
	mask := len(x.keys) - 1
	i := x.home(k)
	for x.keys[i] != 0 {
		i = (i + 1) & mask
	}
	x.keys[i], x.vals[i] = k, v
	x.n++
}

func (x *oidIndex) grow() {
	keys, vals := x.keys, x.vals
	x.init(2 * len(keys))
	for i, k := range keys {
		if k != 0 {
			x.put(k, vals[i])
		}
	}
}

// del removes k if present.
func (x *oidIndex) del(k uint64) {
	mask := len(x.keys) - 1
	i := x.home(k)
	for x.keys[i] != k {
		if x.keys[i] == 0 {
			return
		}
		i = (i + 1) & mask
	}
	// Shift later members of the probe run back so lookups never stop early.
	for j := (i + 1) & mask; x.keys[j] != 0; j = (j + 1) & mask {
		h := x.home(x.keys[j])
		if (j-h)&mask >= (j-i)&mask {
			x.keys[i], x.vals[i] = x.keys[j], x.vals[j]
			i = j
		}
	}
	x.keys[i] = 0
	x.n--
}
