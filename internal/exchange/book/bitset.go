package book

import "math/bits"

// bitset is a hierarchical bitset over [0, n): level 0 holds one bit per
// index; bit j of word w at level k+1 is set iff word w*64+j of level k is
// nonzero. Finding the next or previous set bit costs O(levels), about 4-5
// word scans for a 2^26 grid, so empty price ranges are skipped cheaply.
type bitset struct {
	lv [][]uint64 // lv[0] is the finest; the last level has one word
}

func newBitset(n int64) bitset {
	var b bitset
	for {
		words := (n + 63) / 64
		b.lv = append(b.lv, make([]uint64, words))
		if words <= 1 {
			return b
		}
		n = words
	}
}

func (b *bitset) set(i int64) {
	for k := range b.lv {
		w := i >> 6
		old := b.lv[k][w]
		b.lv[k][w] = old | 1<<(uint(i)&63)
		if old != 0 { // upper levels already know this word is nonempty
			return
		}
		i = w
	}
}

func (b *bitset) clear(i int64) {
	for k := range b.lv {
		w := i >> 6
		b.lv[k][w] &^= 1 << (uint(i) & 63)
		if b.lv[k][w] != 0 {
			return
		}
		i = w
	}
}

// next returns the smallest set index >= i, or -1.
func (b *bitset) next(i int64) int64 {
	k := 0
	for {
		if k == len(b.lv) {
			return -1
		}
		w := i >> 6
		if w >= int64(len(b.lv[k])) {
			return -1
		}
		m := b.lv[k][w] & (^uint64(0) << (uint(i) & 63))
		if m != 0 {
			i = w<<6 + int64(bits.TrailingZeros64(m))
			break
		}
		i = w + 1 // first index of the next word, one level up
		k++
	}
	for k > 0 { // descend to the first set bit under i
		k--
		i = i<<6 + int64(bits.TrailingZeros64(b.lv[k][i]))
	}
	return i
}

// prev returns the largest set index <= i, or -1.
func (b *bitset) prev(i int64) int64 {
	k := 0
	for {
		if k == len(b.lv) || i < 0 {
			return -1
		}
		w := i >> 6
		m := b.lv[k][w] & (^uint64(0) >> (63 - uint(i)&63))
		if m != 0 {
			i = w<<6 + 63 - int64(bits.LeadingZeros64(m))
			break
		}
		i = w - 1
		k++
	}
	for k > 0 {
		k--
		i = i<<6 + 63 - int64(bits.LeadingZeros64(b.lv[k][i]))
	}
	return i
}
