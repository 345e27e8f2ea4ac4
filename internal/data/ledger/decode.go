package ledger

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
)

// MaxLine is the longest accepted ledger line. Real lines are under 2 KiB; the
// cap only bounds memory on hostile input.
const MaxLine = 16 << 20

// LineError is a rejected line: its 1-based number and why.
type LineError struct {
	Line   int
	Reason string
}

func (e *LineError) Error() string { return fmt.Sprintf("line %d: %s", e.Line, e.Reason) }

// Decoder reads NDJSON ledger events one line at a time. Blank lines are
// skipped (but counted). Each event is decoded strictly (unknown fields are
// an error), normalized and validated, and checked against the markets seen
// earlier in the same stream (see Batch).
type Decoder struct {
	sc    *bufio.Scanner
	line  int
	err   error
	batch Batch
}

// NewDecoder returns a Decoder reading from r.
func NewDecoder(r io.Reader) *Decoder {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 256<<10), MaxLine)
	return &Decoder{sc: sc}
}

// SetLookup supplies outcome counts of markets the stream does not declare
// itself (e.g. already in the store), so cross-event checks reach them too.
func (d *Decoder) SetLookup(f func(conditionID string) (outcomes int, ok bool)) {
	d.batch.Lookup = f
}

// Line is the 1-based number of the line last read.
func (d *Decoder) Line() int { return d.line }

// Decode fills e with the next event. It returns io.EOF after the last one,
// and a *LineError for a bad line; after an error the Decoder is finished
// and keeps returning that error.
func (d *Decoder) Decode(e *Event) error {
	if d.err != nil {
		return d.err
	}
	for d.sc.Scan() {
		d.line++
		b := d.sc.Bytes()
		if len(bytes.TrimSpace(b)) == 0 {
			continue
		}
		*e = Event{}
		if err := Unmarshal(b, e); err != nil {
			return d.fail(err)
		}
		if err := d.batch.Check(e); err != nil {
			return d.fail(err)
		}
		return nil
	}
	if err := d.sc.Err(); err != nil {
		if errors.Is(err, bufio.ErrTooLong) {
			d.line++ // the scanner stopped inside this line
			return d.fail(fmt.Errorf("line longer than %d bytes", MaxLine))
		}
		d.err = err // an I/O error, not a bad line
		return err
	}
	d.err = io.EOF
	return io.EOF
}

func (d *Decoder) fail(err error) error {
	d.err = &LineError{Line: d.line, Reason: err.Error()}
	return d.err
}

// ParseAll reads a whole NDJSON ledger. It returns every event, or nil and
// the first error: a batch with any bad line is rejected whole.
func ParseAll(r io.Reader) ([]Event, error) { return NewDecoder(r).ReadAll() }

// ReadAll is ParseAll for a Decoder, e.g. one given a lookup of the markets
// already stored: d := NewDecoder(r); d.SetLookup(st.Outcomes); d.ReadAll().
func (d *Decoder) ReadAll() ([]Event, error) {
	var out []Event
	for {
		var e Event
		err := d.Decode(&e)
		if err == io.EOF {
			return out, nil
		}
		if err != nil {
			return nil, err
		}
		out = append(out, e)
	}
}

// Unmarshal decodes one ledger line strictly into e (unknown or repeated
// fields are errors), then normalizes and validates it. It knows nothing of
// other lines (see Batch). On error e may be partly filled.
func Unmarshal(line []byte, e *Event) error {
	if err := decodeLine(line, e); err != nil {
		return err
	}
	return Validate(e)
}
