package book

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"errors"
)

// ErrSnapshot reports a snapshot that does not decode to a valid book.
var ErrSnapshot = errors.New("book: invalid snapshot")

const snapVersion = 1

// AppendSnapshot appends the canonical encoding of ob's live orders:
//
//	version(1) uvarint count, then per order in Orders() order:
//	uvarint OID, uvarint Owner, varint Time, varint Price, varint Orig,
//	varint Filled, byte side|outcome<<1, byte flags
//
// Two books with the same orders in the same priority encode identically,
// whatever their internal layout; Hash is SHA-256 of this encoding.
func AppendSnapshot(dst []byte, ob OrderBook) []byte {
	dst = append(dst, snapVersion)
	dst = binary.AppendUvarint(dst, uint64(ob.Len()))
	ob.Orders(func(o OrderInfo) bool {
		dst = binary.AppendUvarint(dst, o.OID)
		dst = binary.AppendUvarint(dst, o.Owner)
		dst = binary.AppendVarint(dst, o.Time)
		dst = binary.AppendVarint(dst, o.Price)
		dst = binary.AppendVarint(dst, o.Orig)
		dst = binary.AppendVarint(dst, o.Filled)
		dst = append(dst, byte(o.Side)|byte(o.Outcome)<<1, byte(o.Flags))
		return true
	})
	return dst
}

// Hash is the deterministic state hash of a book: SHA-256 of AppendSnapshot.
func Hash(ob OrderBook) [32]byte { return sha256.Sum256(AppendSnapshot(nil, ob)) }

// Restore builds a Book from AppendSnapshot output. It rejects anything that
// would not re-encode to the same bytes (wrong priority order, duplicates,
// bad quantities, prices off the grid) and crossed books.
func Restore(cfg Config, data []byte) (*Book, error) {
	if len(data) < 1 || data[0] != snapVersion {
		return nil, ErrSnapshot
	}
	p := 1
	n, k := binary.Uvarint(data[p:])
	if k <= 0 || n > uint64(len(data)) {
		return nil, ErrSnapshot
	}
	p += k
	cfg.Orders = max(cfg.Orders, int(n))
	b := New(cfg)
	for i := uint64(0); i < n; i++ {
		var o order
		var v [6]uint64
		for j := range v {
			x, k := binary.Uvarint(data[p:])
			if k <= 0 {
				return nil, ErrSnapshot
			}
			v[j], p = x, p+k
		}
		if p+2 > len(data) {
			return nil, ErrSnapshot
		}
		o.oid, o.owner = v[0], v[1]
		o.time, o.price, o.orig, o.filled = unzig(v[2]), unzig(v[3]), unzig(v[4]), unzig(v[5])
		so := data[p]
		o.side, o.outcome, o.flags = Side(so&1), Outcome(so>>1), Flags(data[p+1])
		p += 2
		if so>>2 != 0 || o.oid == 0 || o.price <= 0 || o.price >= cfg.Ticks || o.filled < 0 || o.filled >= o.orig ||
			(o.outcome == OutcomeNo && !cfg.Complement) || b.index.get(o.oid) != 0 {
			return nil, ErrSnapshot
		}
		s := b.alloc()
		b.orders[s] = o
		b.index.put(o.oid, s)
		b.live++
		b.link(s)
	}
	if p != len(data) {
		return nil, ErrSnapshot
	}
	if bp, _, ok := b.BestBid(); ok {
		if ap, _, ok := b.BestAsk(); ok && bp >= ap {
			return nil, ErrSnapshot
		}
	}
	if !bytes.Equal(AppendSnapshot(nil, b), data) {
		return nil, ErrSnapshot // not in canonical priority order
	}
	return b, nil
}
