// Package matching adapts a fixed set of order books (internal/exchange/book) to the
// engine's Machine interface: journal payloads are book.Command encodings,
// routed to the book named by Command.Book. The journal record's sequence
// number and timestamp replace whatever the encoded command carried, so the
// book sees exactly what replay will see.
package matching

import (
	"bufio"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"slices"

	"pmx/internal/exchange/book"
)

// Market is one book the machine runs.
type Market struct {
	ID     uint32
	Config book.Config
}

// Event is a book event tagged with its book. Malformed and UnknownBook mark
// payloads the machine could not route (Validate stops them before the
// journal; the machine still answers deterministically if one gets through).
type Event struct {
	Book        uint32
	Malformed   bool
	UnknownBook bool
	book.Event
}

// ErrUnknownBook is returned by Validate for a command to a book the
// machine does not run.
var ErrUnknownBook = errors.New("matching: unknown book")

// Machine runs its books in one engine. Invariant: ids is sorted and
// books[i] has id ids[i]; nothing iterates a map.
type Machine struct {
	ids     []uint32
	books   []*book.Book
	cmd     book.Command
	scratch []book.Event
}

// New returns a machine with empty books. It panics on duplicate ids or an
// invalid book config (a programming error: markets come from the catalogue).
func New(markets []Market) *Machine {
	ms := slices.Clone(markets)
	slices.SortFunc(ms, func(a, b Market) int { return int(int64(a.ID) - int64(b.ID)) })
	m := &Machine{}
	for i, mk := range ms {
		if i > 0 && ms[i-1].ID == mk.ID {
			panic(fmt.Sprintf("matching: duplicate book %d", mk.ID))
		}
		m.ids = append(m.ids, mk.ID)
		m.books = append(m.books, book.New(mk.Config))
	}
	return m
}

func (m *Machine) index(id uint32) (int, bool) { return slices.BinarySearch(m.ids, id) }

// Book returns the book with id, for read-only inspection in the engine
// goroutine (or after Close).
func (m *Machine) Book(id uint32) *book.Book {
	if i, ok := m.index(id); ok {
		return m.books[i]
	}
	return nil
}

// Validate is the stateless pre-journal check: the payload decodes and names
// a book the machine runs. Book-level rules (prices, quantities, OIDs) stay
// with the book, which rejects with a reason.
func (m *Machine) Validate(payload []byte) error {
	var c book.Command
	if err := c.UnmarshalBinary(payload); err != nil {
		return err
	}
	if _, ok := m.index(c.Book); !ok {
		return ErrUnknownBook
	}
	return nil
}

// Apply decodes one command and runs it on its book.
func (m *Machine) Apply(seq uint64, ts int64, payload []byte, out []Event) []Event {
	if err := m.cmd.UnmarshalBinary(payload); err != nil {
		return append(out, Event{Malformed: true, Event: book.Event{Kind: book.EvRejected}})
	}
	i, ok := m.index(m.cmd.Book)
	if !ok {
		return append(out, Event{Book: m.cmd.Book, UnknownBook: true, Event: book.Event{Kind: book.EvRejected, OID: m.cmd.OID}})
	}
	m.cmd.Seq, m.cmd.Time = seq, ts
	m.scratch = m.books[i].Apply(&m.cmd, m.scratch[:0])
	for _, ev := range m.scratch {
		out = append(out, Event{Book: m.cmd.Book, Event: ev})
	}
	return out
}

// Snapshot writes, per book in id order: uvarint id, uvarint length, the
// book's canonical snapshot (book.AppendSnapshot).
func (m *Machine) Snapshot(w io.Writer) error {
	bw := bufio.NewWriter(w)
	var buf []byte
	for i, b := range m.books {
		buf = book.AppendSnapshot(buf[:0], b)
		var hdr []byte
		hdr = binary.AppendUvarint(hdr, uint64(m.ids[i]))
		hdr = binary.AppendUvarint(hdr, uint64(len(buf)))
		bw.Write(hdr)
		bw.Write(buf)
	}
	return bw.Flush()
}

// Restore replaces every book with the snapshot's. The snapshot must hold
// exactly the configured books.
func (m *Machine) Restore(r io.Reader) error {
	data, err := io.ReadAll(r)
	if err != nil {
		return err
	}
	books := make([]*book.Book, len(m.books))
	for i := range m.books {
		id, k := binary.Uvarint(data)
		if k <= 0 || id != uint64(m.ids[i]) {
			return fmt.Errorf("matching: snapshot book %d: bad id", i)
		}
		data = data[k:]
		n, k := binary.Uvarint(data)
		if k <= 0 || n > uint64(len(data)-k) {
			return fmt.Errorf("matching: snapshot book %d: bad length", m.ids[i])
		}
		data = data[k:]
		if books[i], err = book.Restore(m.books[i].Config(), data[:n]); err != nil {
			return fmt.Errorf("matching: snapshot book %d: %w", m.ids[i], err)
		}
		data = data[n:]
	}
	if len(data) != 0 {
		return errors.New("matching: trailing bytes in snapshot")
	}
	m.books = books
	return nil
}

// Hash is SHA-256 over (id, book.Hash) of every book in id order.
func (m *Machine) Hash() [32]byte {
	h := sha256.New()
	for i, b := range m.books {
		bh := book.Hash(b)
		h.Write(binary.LittleEndian.AppendUint32(nil, m.ids[i]))
		h.Write(bh[:])
	}
	var out [32]byte
	h.Sum(out[:0])
	return out
}
