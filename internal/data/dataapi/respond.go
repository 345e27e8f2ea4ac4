package dataapi

import (
	"bytes"
	"encoding/json"
	"log/slog"
	"net/http"
	"strconv"
	"sync"
)

// Pagination is the page object of paged routes. HasMore is not a field:
// it is derived from NextCursor when encoding, so has_more == (next_cursor
// != null) holds by construction (the official SDK throws otherwise).
type Pagination struct {
	Limit      int32
	Offset     int32
	NextCursor string // "" on the last page, encoded as null
}

// HasMore reports whether another page exists.
func (p Pagination) HasMore() bool { return p.NextCursor != "" }

func (p Pagination) MarshalJSON() ([]byte, error) {
	b := make([]byte, 0, 64+len(p.NextCursor))
	b = append(b, `{"limit":`...)
	b = strconv.AppendInt(b, int64(p.Limit), 10)
	b = append(b, `,"offset":`...)
	b = strconv.AppendInt(b, int64(p.Offset), 10)
	b = append(b, `,"has_more":`...)
	b = strconv.AppendBool(b, p.HasMore())
	b = append(b, `,"next_cursor":`...)
	if p.HasMore() && !safeCursor(p.NextCursor) {
		q, err := json.Marshal(p.NextCursor)
		if err != nil {
			return nil, err
		}
		b = append(b, q...)
	} else if p.HasMore() {
		// Cursors are base64url: no character needs escaping.
		b = append(b, '"')
		b = append(b, p.NextCursor...)
		b = append(b, '"')
	} else {
		b = append(b, "null"...)
	}
	return append(b, '}'), nil
}

func safeCursor(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !('A' <= c && c <= 'Z' || 'a' <= c && c <= 'z' || '0' <= c && c <= '9' || c == '-' || c == '_') {
			return false
		}
	}
	return true
}

type envelope struct {
	Data any `json:"data"`
}

type page struct {
	Data       any        `json:"data"`
	Pagination Pagination `json:"pagination"`
}

var bufPool = sync.Pool{New: func() any { return new(bytes.Buffer) }}

// WriteData answers 200 {"data": v}. v may be nil (a documented miss).
func WriteData(w http.ResponseWriter, r *http.Request, v any) {
	writeJSON(w, r, http.StatusOK, envelope{v})
}

// WriteList answers 200 {"data": rows} for a list route that is not paged;
// a nil slice is written as [] (a list route's miss is an empty list, never
// null).
func WriteList[T any](w http.ResponseWriter, r *http.Request, rows []T) {
	if rows == nil {
		rows = []T{}
	}
	WriteData(w, r, rows)
}

// WritePage answers 200 {"data": rows, "pagination": p}. A nil slice is
// written as [] (a list route's miss is an empty list, never null).
func WritePage[T any](w http.ResponseWriter, r *http.Request, rows []T, p Pagination) {
	if rows == nil {
		rows = []T{}
	}
	writeJSON(w, r, http.StatusOK, page{rows, p})
}

// getBuf takes an empty response buffer from the pool; putBuf returns it,
// unless it grew past 1 MiB (the pool would pin it).
func getBuf() *bytes.Buffer {
	buf := bufPool.Get().(*bytes.Buffer)
	buf.Reset()
	return buf
}

func putBuf(buf *bytes.Buffer) {
	if buf.Cap() <= 1<<20 {
		buf.Reset()
		bufPool.Put(buf)
	}
}

// writeBody answers status with a complete JSON body.
func writeBody(w http.ResponseWriter, status int, body []byte) {
	h := w.Header()
	h.Set("Content-Type", "application/json")
	h.Set("Content-Length", strconv.Itoa(len(body)))
	w.WriteHeader(status)
	_, _ = w.Write(body)
}

// writeJSON encodes fully before writing, so an encoding failure becomes a
// clean 500 instead of a truncated 200.
func writeJSON(w http.ResponseWriter, r *http.Request, status int, v any) {
	buf := getBuf()
	defer putBuf(buf)
	enc := json.NewEncoder(buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		if status != http.StatusInternalServerError {
			WriteError(w, r, Internal(err))
			return
		}
		http.Error(w, `{"error":"internal server error","code":"internal","retryable":false}`, status)
		return
	}
	writeBody(w, status, buf.Bytes())
}

type errorBody struct {
	Error     string  `json:"error"`
	Code      Code    `json:"code"`
	Retryable bool    `json:"retryable"`
	TraceID   string  `json:"trace_id"`
	Parameter *string `json:"parameter,omitempty"`
}

// WriteError answers with the contract's error body for any error (see
// AsError), with Retry-After on retryable codes. 5xx causes are logged with
// the trace id; their text never reaches the client.
func WriteError(w http.ResponseWriter, r *http.Request, err error) {
	e := AsError(err)
	id := traceOf(w, r)
	body := errorBody{Error: e.Message, Code: e.Code, Retryable: e.Code.Retryable(), TraceID: id}
	if e.Parameter != "" {
		body.Parameter = &e.Parameter
	}
	if body.Retryable {
		ra := e.RetryAfter
		if ra <= 0 {
			ra = DefaultRetryAfter
		}
		w.Header().Set("Retry-After", retryAfterSeconds(ra))
	}
	if e.Code.Status() >= 500 {
		slog.Error("data request failed", "trace_id", id, "code", e.Code, "path", r.URL.Path, "err", e)
	}
	writeJSON(w, r, e.Code.Status(), body)
}
