// Package tally is a small deterministic state machine for testing the
// engine and journal: named non-negative counters. It is deliberately
// map-based so that its Hash and Snapshot must sort keys to be deterministic,
// which is the mistake a real machine must also avoid.
package tally

import (
	"bufio"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"io"
	"slices"
)

// Command encoding: key length (1 byte, 1..64), key, delta (int64 LE).
const maxKey = 64

// ErrMalformed is returned by Decode and Validate.
var ErrMalformed = errors.New("tally: malformed command")

// Encode builds a command adding delta to key.
func Encode(key string, delta int64) []byte {
	b := make([]byte, 0, 1+len(key)+8)
	b = append(b, byte(len(key)))
	b = append(b, key...)
	return binary.LittleEndian.AppendUint64(b, uint64(delta))
}

// Decode parses a command. The key aliases cmd.
func Decode(cmd []byte) (key []byte, delta int64, err error) {
	if len(cmd) < 1 {
		return nil, 0, ErrMalformed
	}
	n := int(cmd[0])
	if n == 0 || n > maxKey || len(cmd) != 1+n+8 {
		return nil, 0, ErrMalformed
	}
	return cmd[1 : 1+n], int64(binary.LittleEndian.Uint64(cmd[1+n:])), nil
}

// Validate is the stateless pre-loop check.
func Validate(cmd []byte) error {
	_, _, err := Decode(cmd)
	return err
}

// Event is the outcome of one command.
type Event struct {
	Seq      uint64
	Key      string
	Balance  int64 // after the command
	Rejected string
}

// Machine holds the counters. Invariant: every balance is >= 0.
type Machine struct {
	bal     map[string]int64
	applied uint64 // commands applied
	lastTS  int64
}

// New returns an empty machine.
func New() *Machine { return &Machine{bal: map[string]int64{}} }

// Apply adds delta to key unless the balance would go negative or overflow.
func (m *Machine) Apply(seq uint64, ts int64, cmd []byte, out []Event) []Event {
	m.applied++
	m.lastTS = ts
	key, delta, err := Decode(cmd)
	if err != nil {
		return append(out, Event{Seq: seq, Rejected: "malformed"})
	}
	cur := m.bal[string(key)]
	next := cur + delta
	switch {
	case (delta > 0 && next < cur) || (delta < 0 && next > cur):
		return append(out, Event{Seq: seq, Key: string(key), Balance: cur, Rejected: "overflow"})
	case next < 0:
		return append(out, Event{Seq: seq, Key: string(key), Balance: cur, Rejected: "insufficient"})
	}
	m.bal[string(key)] = next
	return append(out, Event{Seq: seq, Key: string(key), Balance: next})
}

// Balance returns the counter for key.
func (m *Machine) Balance(key string) int64 { return m.bal[key] }

func (m *Machine) sortedKeys() []string {
	keys := make([]string, 0, len(m.bal))
	for k := range m.bal {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// Snapshot writes applied, lastTS, count, then (key, balance) in key order.
func (m *Machine) Snapshot(w io.Writer) error {
	bw := bufio.NewWriter(w)
	var b []byte
	b = binary.LittleEndian.AppendUint64(b, m.applied)
	b = binary.LittleEndian.AppendUint64(b, uint64(m.lastTS))
	b = binary.LittleEndian.AppendUint64(b, uint64(len(m.bal)))
	bw.Write(b)
	for _, k := range m.sortedKeys() {
		b = append(b[:0], byte(len(k)))
		b = append(b, k...)
		b = binary.LittleEndian.AppendUint64(b, uint64(m.bal[k]))
		bw.Write(b)
	}
	return bw.Flush()
}

// Restore reads what Snapshot wrote.
func (m *Machine) Restore(r io.Reader) error {
	br := bufio.NewReader(r)
	var hdr [24]byte
	if _, err := io.ReadFull(br, hdr[:]); err != nil {
		return err
	}
	applied := binary.LittleEndian.Uint64(hdr[0:])
	lastTS := int64(binary.LittleEndian.Uint64(hdr[8:]))
	n := binary.LittleEndian.Uint64(hdr[16:])
	bal := make(map[string]int64)
	var kb [maxKey + 8]byte
	for range n {
		kl, err := br.ReadByte()
		if err != nil {
			return err
		}
		if kl == 0 || kl > maxKey {
			return ErrMalformed
		}
		if _, err := io.ReadFull(br, kb[:int(kl)+8]); err != nil {
			return err
		}
		v := int64(binary.LittleEndian.Uint64(kb[kl:]))
		if v < 0 {
			return ErrMalformed
		}
		bal[string(kb[:kl])] = v
	}
	m.bal, m.applied, m.lastTS = bal, applied, lastTS
	return nil
}

// Hash digests the snapshot encoding, so it covers the whole state.
func (m *Machine) Hash() [32]byte {
	h := sha256.New()
	m.Snapshot(h)
	var out [32]byte
	h.Sum(out[:0])
	return out
}
