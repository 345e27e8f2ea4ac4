package perpshttp

import (
	"io"
	"strconv"
	"sync"

	"pmx/internal/perps/perps"
)

// The createOrders acknowledgement is the answer to every placement, so it
// is written by hand instead of through encoding/json's reflection. The
// bytes are exactly what json.NewEncoder(w).Encode(acks) writes
// (FuzzAppendAcks); strings that encoding/json would escape send the whole
// answer back to it.

var ackBufs = sync.Pool{New: func() any { b := make([]byte, 0, 512); return &b }}

// writeAcks writes acks as JSON, or reports false (having written nothing)
// when a string needs escaping.
func writeAcks(w io.Writer, acks []perps.Ack) bool {
	bp := ackBufs.Get().(*[]byte)
	b, ok := appendAcks((*bp)[:0], acks)
	if ok {
		_, _ = w.Write(b)
	}
	*bp = b[:0]
	ackBufs.Put(bp)
	return ok
}

// appendAcks appends the JSON array of acks and a newline (Encode's form).
func appendAcks(b []byte, acks []perps.Ack) ([]byte, bool) {
	if acks == nil {
		return append(b, "null\n"...), true
	}
	b = append(b, '[')
	for i, a := range acks {
		if i > 0 {
			b = append(b, ',')
		}
		if !plainJSON(a.Status) || !plainJSON(a.COID) || !plainJSON(a.Error) {
			return b, false
		}
		b = append(b, `{"status":"`...)
		b = append(b, a.Status...)
		b = append(b, '"')
		if a.OID != 0 {
			b = append(b, `,"oid":`...)
			b = strconv.AppendUint(b, a.OID, 10)
		}
		if a.COID != "" {
			b = append(b, `,"coid":"`...)
			b = append(b, a.COID...)
			b = append(b, '"')
		}
		if a.Error != "" {
			b = append(b, `,"error":"`...)
			b = append(b, a.Error...)
			b = append(b, '"')
		}
		b = append(b, '}')
	}
	return append(b, "]\n"...), true
}

// plainJSON: printable ASCII that encoding/json writes unchanged (it
// escapes quote and backslash, and <, > and & for HTML safety).
func plainJSON(s string) bool {
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c < 0x20 || c >= 0x7f, c == '"', c == '\\', c == '<', c == '>', c == '&':
			return false
		}
	}
	return true
}
