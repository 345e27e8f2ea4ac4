package catalog

import (
	"encoding/base64"
	"encoding/json"
	"errors"
	"strings"
	"time"
)

// Cursor is a keyset position: the sort key and id of the last row served,
// under the order it was served in. Encoded opaque (base64url JSON) so a
// client can only hand back what it was given.
type Cursor struct {
	Order     string `json:"o"`
	Ascending bool   `json:"a"`
	Key       string `json:"k,omitempty"` // the row's sort key (empty for order=id)
	ID        int64  `json:"i"`
}

// ErrCursor is returned for a cursor that does not decode.
var ErrCursor = errors.New("invalid after_cursor")

// Encode returns the opaque form.
func (c Cursor) Encode() string {
	b, _ := json.Marshal(c)
	return base64.RawURLEncoding.EncodeToString(b)
}

// DecodeCursor parses an opaque cursor.
func DecodeCursor(s string) (Cursor, error) {
	if s == "" || len(s) > 1024 {
		return Cursor{}, ErrCursor
	}
	b, err := base64.RawURLEncoding.DecodeString(s)
	if err != nil {
		return Cursor{}, ErrCursor
	}
	var c Cursor
	if err := json.Unmarshal(b, &c); err != nil {
		return Cursor{}, ErrCursor
	}
	switch c.Order {
	case OrderID, OrderStartDate, OrderEndDate, OrderCreatedAt, OrderSlug:
	default:
		return Cursor{}, ErrCursor
	}
	if c.ID < 0 {
		return Cursor{}, ErrCursor
	}
	return c, nil
}

// dateKeyLayout sorts lexically in time order (fixed width, UTC).
const dateKeyLayout = "2006-01-02T15:04:05.000000Z"

var dateLayouts = []string{
	time.RFC3339Nano,
	"2006-01-02 15:04:05.999999999-07",
	"2006-01-02 15:04:05.999999999-07:00",
	"2006-01-02 15:04:05.999999999Z07:00",
	"2006-01-02T15:04:05.999999999",
	"2006-01-02",
}

// DateKey normalises a production date-time (RFC 3339, Postgres text such as
// "2022-07-27 14:40:02.064+00", or a bare date) to a fixed-width UTC key that
// sorts lexically in time order. Unparseable or empty input gives "".
func DateKey(s string) string {
	s = strings.TrimSpace(s)
	if s == "" || len(s) > 64 {
		return ""
	}
	for _, l := range dateLayouts {
		if t, err := time.Parse(l, s); err == nil {
			if t.Year() < 1 || t.Year() > 9999 {
				return ""
			}
			return t.UTC().Format(dateKeyLayout)
		}
	}
	return ""
}
