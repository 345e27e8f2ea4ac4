// Package chain is the simulated chain both exchanges settle on: block
// arithmetic only (no goroutine, no clock). Block h (h ≥ 1) is mined at
// Genesis + h·BlockTime; a transaction sent at t goes into the next block,
// Height(t)+1, and is confirmed when Confirmations blocks include it (its
// own block counts as the first). Callers pass the time already on their
// command, so an engine that replays its journal reaches the same verdicts.
// Times are Unix milliseconds; arithmetic saturates instead of overflowing.
package chain

import (
	"math"
	"math/bits"
)

// Params describe one chain. A zero BlockTime or Confirmations is read as
// the defaults (2 s, 3).
type Params struct {
	Genesis       int64 // Unix ms of height 0
	BlockTime     int64 // ms between blocks
	Confirmations int64 // blocks, its own included, that confirm a transaction
}

// Defaults of Params.
const (
	DefaultBlockTime     = 2000
	DefaultConfirmations = 3
)

// Status of a transaction on the chain.
type Status uint8

const (
	Pending   Status = iota // sent, in no block yet
	Mined                   // in a block, fewer than Confirmations deep
	Confirmed               // Confirmations deep
)

func (s Status) String() string {
	switch s {
	case Mined:
		return "mined"
	case Confirmed:
		return "confirmed"
	}
	return "pending"
}

func (p Params) blockTime() int64 {
	if p.BlockTime <= 0 {
		return DefaultBlockTime
	}
	return p.BlockTime
}

// Required is the number of confirmations that confirm a transaction.
func (p Params) Required() int64 {
	if p.Confirmations <= 0 {
		return DefaultConfirmations
	}
	return p.Confirmations
}

// Height is the last block mined at or before t (0 before the first one).
func (p Params) Height(t int64) int64 {
	if t <= p.Genesis {
		return 0
	}
	// t > Genesis: the difference fits in a uint64 even when t−Genesis
	// would not fit in an int64.
	h := (uint64(t) - uint64(p.Genesis)) / uint64(p.blockTime())
	if h > math.MaxInt64 {
		return math.MaxInt64
	}
	return int64(h)
}

// Time is when block h is mined (Genesis for h ≤ 0), saturated at MaxInt64.
func (p Params) Time(h int64) int64 {
	if h <= 0 {
		return p.Genesis
	}
	hi, d := bits.Mul64(uint64(h), uint64(p.blockTime()))
	if hi != 0 || d > math.MaxInt64 {
		return math.MaxInt64
	}
	sum, carry := bits.Add64(uint64(p.Genesis), d, 0)
	// Genesis ≥ 0: a carry or a sum past MaxInt64 does not fit. Genesis < 0:
	// without a carry the true sum is negative (sum as int64); with one it is
	// sum itself, which must fit.
	if (p.Genesis >= 0 && (carry != 0 || sum > math.MaxInt64)) || (p.Genesis < 0 && carry != 0 && sum > math.MaxInt64) {
		return math.MaxInt64
	}
	return int64(sum)
}

// Depth is the confirmations of a transaction sent at sent, seen at now
// (named apart from the Confirmations field): how many blocks
// mined in (sent, now] (0 while pending; now before sent counts none).
func (p Params) Depth(sent, now int64) int64 {
	if now <= sent {
		return 0
	}
	return p.Height(now) - p.Height(sent)
}

// Status of a transaction sent at sent, seen at now.
func (p Params) Status(sent, now int64) Status {
	switch c := p.Depth(sent, now); {
	case c >= p.Required():
		return Confirmed
	case c > 0:
		return Mined
	}
	return Pending
}

// MinedAt is when a transaction sent at sent is mined.
func (p Params) MinedAt(sent int64) int64 { return p.at(sent, 1) }

// ConfirmedAt is when a transaction sent at sent is confirmed.
func (p Params) ConfirmedAt(sent int64) int64 { return p.at(sent, p.Required()) }

func (p Params) at(sent, n int64) int64 {
	h := p.Height(sent)
	if h > math.MaxInt64-n {
		return math.MaxInt64
	}
	return p.Time(h + n)
}
