package catalog

import (
	"bytes"
	"encoding/json"
	"errors"
	"strconv"
)

// Num is a JSON number kept as its exact decimal text, so no catalog figure
// passes through float64. It marshals as a bare JSON number and unmarshals from
// a number or a string holding one (production is not consistent about which).
// Invariant: a Num is either empty (never marshalled; use *Num for absent) or
// valid JSON number text.
type Num string

// ErrNumber is returned for text that is not a JSON number.
var ErrNumber = errors.New("not a number")

// ParseNum checks s against the JSON number grammar.
func ParseNum(s string) (Num, error) {
	if !validNumber(s) {
		return "", ErrNumber
	}
	return Num(s), nil
}

// MarshalJSON writes the number text.
func (n Num) MarshalJSON() ([]byte, error) {
	if !validNumber(string(n)) {
		return nil, ErrNumber
	}
	return []byte(n), nil
}

// UnmarshalJSON accepts 12.5 or "12.5".
func (n *Num) UnmarshalJSON(b []byte) error {
	if len(b) > 0 && b[0] == '"' {
		var s string
		if err := json.Unmarshal(b, &s); err != nil {
			return err
		}
		if s == "" {
			return ErrNumber
		}
		b = []byte(s)
	}
	if !validNumber(string(b)) {
		return ErrNumber
	}
	*n = Num(b)
	return nil
}

// validNumber implements the JSON number grammar (RFC 8259 §6).
func validNumber(s string) bool {
	i := 0
	if i < len(s) && s[i] == '-' {
		i++
	}
	if i >= len(s) {
		return false
	}
	if s[i] == '0' {
		i++
	} else if s[i] >= '1' && s[i] <= '9' {
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i++
		}
	} else {
		return false
	}
	if i < len(s) && s[i] == '.' {
		i++
		start := i
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i++
		}
		if i == start {
			return false
		}
	}
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		i++
		if i < len(s) && (s[i] == '+' || s[i] == '-') {
			i++
		}
		start := i
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i++
		}
		if i == start {
			return false
		}
	}
	return i == len(s)
}

// NumInt is a Num for an integer.
func NumInt(v int64) *Num { n := Num(strconv.FormatInt(v, 10)); return &n }

// Str is a string that also accepts a JSON number on input (production sends
// some ids and audit fields either way); it always marshals as a string.
type Str string

// UnmarshalJSON accepts "x" or 12.
func (s *Str) UnmarshalJSON(b []byte) error {
	b = bytes.TrimSpace(b)
	if len(b) > 0 && b[0] != '"' {
		if !validNumber(string(b)) {
			return errors.New("expected a string or a number")
		}
		*s = Str(b)
		return nil
	}
	var v string
	if err := json.Unmarshal(b, &v); err != nil {
		return err
	}
	*s = Str(v)
	return nil
}

// StrList is a list of strings that also accepts the JSON-in-a-string form
// ("[\"a\", \"b\"]") on input; it marshals as a native array.
type StrList []string

// UnmarshalJSON accepts ["a"] or "[\"a\"]".
func (l *StrList) UnmarshalJSON(b []byte) error {
	b = bytes.TrimSpace(b)
	if len(b) > 0 && b[0] == '"' {
		var s string
		if err := json.Unmarshal(b, &s); err != nil {
			return err
		}
		if s == "" {
			*l = StrList{}
			return nil
		}
		b = []byte(s)
	}
	var v []Str
	if err := json.Unmarshal(b, &v); err != nil {
		return err
	}
	out := make(StrList, len(v))
	for i, s := range v {
		out[i] = string(s)
	}
	*l = out
	return nil
}

// EncodeStringList renders the JSON-in-a-string form production uses:
// ["a", "b"] with a ", " separator, as a Go string.
func EncodeStringList(items []string) string {
	var b bytes.Buffer
	b.WriteByte('[')
	for i, it := range items {
		if i > 0 {
			b.WriteString(", ")
		}
		q, _ := json.Marshal(it)
		b.Write(q)
	}
	b.WriteByte(']')
	return b.String()
}

// DecodeStringList parses a JSON-in-a-string list (nil or "" is an empty list).
func DecodeStringList(s *string) ([]string, error) {
	if s == nil || *s == "" {
		return nil, nil
	}
	var l StrList
	if err := l.UnmarshalJSON([]byte(*s)); err != nil {
		return nil, err
	}
	return l, nil
}

func ptr[T any](v T) *T { return &v }

// text is a nullable wire string's text, "" when absent.
func text[T ~string](s *T) string {
	if s == nil {
		return ""
	}
	return string(*s)
}
