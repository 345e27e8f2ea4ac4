package book

import (
	"encoding/binary"
	"errors"
)

// Op is what a Command asks the book to do.
type Op uint8

const (
	OpAdd    Op = 1 // place an order (limit or market)
	OpCancel Op = 2 // cancel a live order by OID
	OpModify Op = 3 // change a live order's price and/or total quantity
)

// Side is buy or sell, always in the order's own terms.
type Side uint8

const (
	Buy  Side = 0
	Sell Side = 1
)

// Opposite returns the other side.
func (s Side) Opposite() Side { return s ^ 1 }

// TIF is an order's time in force.
type TIF uint8

const (
	GTC TIF = 0 // rests until filled or cancelled
	IOC TIF = 1 // fills what it can at once; the rest expires
	FOK TIF = 2 // fills completely at once or not at all
)

// Flags modify an add.
type Flags uint8

const (
	PostOnly   Flags = 1 << 0 // reject instead of taking liquidity (GTC only)
	ReduceOnly Flags = 1 << 1 // quantity capped by the book's ReduceOnlyLimiter
	Market     Flags = 1 << 2 // no limit price (IOC or FOK only); Price is ignored
)

// Outcome selects the token of a complementary (outcome-token) market. In a
// plain book every order is OutcomeYes. An OutcomeNo order at price q is
// held in the YES book as the opposite side at price Max-q.
type Outcome uint8

const (
	OutcomeYes Outcome = 0
	OutcomeNo  Outcome = 1
)

// Command is one input to a book. It is the unit the engine journals, so it
// carries its own sequence number and timestamp: nothing else (no wall clock,
// no randomness) may influence what the book does with it.
//
// Prices are integer ticks, quantities integer lots (see internal/exchange/fixed). For
// OpAdd, Price is the order's limit in its own outcome's terms. For OpModify,
// Price and Qty are the new price and the new TOTAL quantity (including what
// has already filled). For OpCancel only OID matters.
type Command struct {
	Seq     uint64 // engine sequence number, strictly increasing
	Time    int64  // engine time in Unix nanoseconds, carried on the command
	Book    uint32 // instrument or market id; routing is the engine's job
	Op      Op
	Side    Side
	TIF     TIF
	Flags   Flags
	Outcome Outcome
	OID     uint64 // order id, nonzero, unique among live orders of a book
	Owner   uint64 // account id; self-trade prevention compares these
	Price   int64  // ticks
	Qty     int64  // lots
}

// Encoding errors.
var (
	ErrShort   = errors.New("book: command record too short")
	ErrVersion = errors.New("book: unknown command encoding version")
	ErrField   = errors.New("book: command field out of range")
	ErrVarint  = errors.New("book: malformed varint in command")
)

// encVersion is the first byte of every encoded Command.
const encVersion = 1

// MaxEncodedLen bounds the size of one encoded Command.
const MaxEncodedLen = 1 + 1 + 1 + 1 + 6*binary.MaxVarintLen64 + binary.MaxVarintLen32

// AppendBinary appends the compact encoding of c to dst:
//
//	version(1) op(1) side|tif<<1|outcome<<3 (1) flags(1)
//	uvarint Seq, varint Time, uvarint Book, uvarint OID, uvarint Owner,
//	varint Price, varint Qty
//
// Typical commands take 20-30 bytes. It never allocates when dst has room.
func (c *Command) AppendBinary(dst []byte) ([]byte, error) {
	if c.Side > Sell || c.TIF > FOK || c.Outcome > OutcomeNo {
		return dst, ErrField
	}
	dst = append(dst, encVersion, byte(c.Op), byte(c.Side)|byte(c.TIF)<<1|byte(c.Outcome)<<3, byte(c.Flags))
	dst = binary.AppendUvarint(dst, c.Seq)
	dst = binary.AppendVarint(dst, c.Time)
	dst = binary.AppendUvarint(dst, uint64(c.Book))
	dst = binary.AppendUvarint(dst, c.OID)
	dst = binary.AppendUvarint(dst, c.Owner)
	dst = binary.AppendVarint(dst, c.Price)
	dst = binary.AppendVarint(dst, c.Qty)
	return dst, nil
}

// MarshalBinary returns the compact encoding of c.
func (c *Command) MarshalBinary() ([]byte, error) {
	return c.AppendBinary(make([]byte, 0, MaxEncodedLen))
}

// UnmarshalBinary decodes exactly one Command occupying all of b.
func (c *Command) UnmarshalBinary(b []byte) error {
	n, err := c.Decode(b)
	if err != nil {
		return err
	}
	if n != len(b) {
		return ErrField
	}
	return nil
}

// Decode reads one Command from the front of b and returns the bytes used.
// It rejects unknown versions, out-of-range enum bits and overlong varints,
// so every accepted record re-encodes to the same bytes.
func (c *Command) Decode(b []byte) (int, error) {
	if len(b) < 4 {
		return 0, ErrShort
	}
	if b[0] != encVersion {
		return 0, ErrVersion
	}
	packed := b[2]
	if packed>>4 != 0 || (packed>>1)&3 > byte(FOK) {
		return 0, ErrField
	}
	var d Command
	d.Op = Op(b[1])
	d.Side = Side(packed & 1)
	d.TIF = TIF((packed >> 1) & 3)
	d.Outcome = Outcome((packed >> 3) & 1)
	d.Flags = Flags(b[3])
	p := 4
	var ok bool
	if d.Seq, p, ok = uvarint(b, p); !ok {
		return 0, ErrVarint
	}
	var u uint64
	if u, p, ok = uvarint(b, p); !ok {
		return 0, ErrVarint
	}
	d.Time = unzig(u)
	if u, p, ok = uvarint(b, p); !ok {
		return 0, ErrVarint
	}
	if u > 1<<32-1 {
		return 0, ErrField
	}
	d.Book = uint32(u)
	if d.OID, p, ok = uvarint(b, p); !ok {
		return 0, ErrVarint
	}
	if d.Owner, p, ok = uvarint(b, p); !ok {
		return 0, ErrVarint
	}
	if u, p, ok = uvarint(b, p); !ok {
		return 0, ErrVarint
	}
	d.Price = unzig(u)
	if u, p, ok = uvarint(b, p); !ok {
		return 0, ErrVarint
	}
	d.Qty = unzig(u)
	*c = d
	return p, nil
}

// uvarint reads a minimal (canonical) uvarint at b[p:].
func uvarint(b []byte, p int) (uint64, int, bool) {
	v, n := binary.Uvarint(b[p:])
	if n <= 0 {
		return 0, p, false
	}
	if n > 1 && b[p+n-1] == 0 { // overlong: a trailing zero group
		return 0, p, false
	}
	return v, p + n, true
}

func unzig(u uint64) int64 { return int64(u>>1) ^ -int64(u&1) }
