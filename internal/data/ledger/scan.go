package ledger

import (
	"errors"
	"fmt"
	"strconv"
	"unicode/utf16"
	"unicode/utf8"

	"pmx/internal/amount"
)

// decodeLine is a strict, allocation-light JSON decoder for one Event. It
// accepts a subset of what encoding/json accepts into Event (the reference,
// see decodeStd and FuzzDecodeAgrees) and yields the same Event for it. It is
// stricter in ways that only catch producer mistakes: keys match exactly
// (not case-insensitively), a key may appear once, strings must be valid
// UTF-8 without lone surrogate escapes, and array elements may not be null.
// It exists because ingest speed is load time: it is several times faster
// than encoding/json with DisallowUnknownFields.
func decodeLine(b []byte, e *Event) error {
	s := scanner{b: b}
	s.ws()
	if s.i >= len(s.b) {
		return errors.New("truncated JSON")
	}
	if s.b[s.i] != '{' {
		return errors.New("expected a JSON object")
	}
	var seen field
	var seenKind bool
	err := s.object(func(key []byte) error {
		if string(key) == "kind" {
			if seenKind {
				return errors.New(`duplicate field "kind"`)
			}
			seenKind = true
			if s.i >= len(s.b) || s.b[s.i] != '"' {
				return s.typeErr("kind", "a string (the event kind)")
			}
			v, err := s.strBytes()
			e.Kind = intern(v)
			return err
		}
		f, err := s.field(key, e)
		if err != nil {
			return err
		}
		if seen&f != 0 {
			return fmt.Errorf("duplicate field %q", key)
		}
		seen |= f
		return nil
	})
	if err != nil {
		return err
	}
	s.ws()
	if s.i != len(s.b) {
		return errors.New("trailing data after the event object")
	}
	return nil
}

type scanner struct {
	b []byte
	i int
}

var errTruncated = errors.New("truncated JSON")

func (s *scanner) ws() {
	for s.i < len(s.b) {
		switch s.b[s.i] {
		case ' ', '\t', '\n', '\r':
			s.i++
		default:
			return
		}
	}
}

func (s *scanner) syntax() error {
	if s.i >= len(s.b) {
		return errTruncated
	}
	return fmt.Errorf("invalid JSON at byte %d", s.i+1)
}

// expect consumes c after optional whitespace.
func (s *scanner) expect(c byte) error {
	s.ws()
	if s.i >= len(s.b) || s.b[s.i] != c {
		return s.syntax()
	}
	s.i++
	return nil
}

// more consumes the separator after a member or element: ',' (more to come)
// or close (done). End of input is errTruncated, anything else a syntax error.
func (s *scanner) more(close byte) (done bool, err error) {
	s.ws()
	if s.i >= len(s.b) {
		return false, errTruncated
	}
	switch s.b[s.i] {
	case ',':
		s.i++
		return false, nil
	case close:
		s.i++
		return true, nil
	}
	return false, s.syntax()
}

// object walks {"key": value, ...}; each calls fn with the raw key (valid
// until the next call), positioned at the value.
func (s *scanner) object(each func(key []byte) error) error {
	if err := s.expect('{'); err != nil {
		return err
	}
	s.ws()
	if s.i < len(s.b) && s.b[s.i] == '}' {
		s.i++
		return nil
	}
	for {
		s.ws()
		key, err := s.rawKey()
		if err != nil {
			return err
		}
		if err := s.expect(':'); err != nil {
			return err
		}
		s.ws()
		if err := each(key); err != nil {
			return err
		}
		if done, err := s.more('}'); done || err != nil {
			return err
		}
	}
}

// rawKey reads a key without escapes (every Event key is plain ASCII; a key
// with an escape cannot be one of them).
func (s *scanner) rawKey() ([]byte, error) {
	if s.i >= len(s.b) || s.b[s.i] != '"' {
		return nil, s.syntax()
	}
	start := s.i + 1
	for j := start; j < len(s.b); j++ {
		switch c := s.b[j]; {
		case c == '"':
			s.i = j + 1
			return s.b[start:j], nil
		case c == '\\' || c < 0x20:
			v, err := s.str() // decode it properly, only to report it
			if err != nil {
				return nil, err
			}
			return []byte(v), nil
		}
	}
	return nil, errTruncated
}

// null consumes a JSON null if one is next.
func (s *scanner) null() bool {
	if len(s.b)-s.i >= 4 && string(s.b[s.i:s.i+4]) == "null" {
		s.i += 4
		return true
	}
	return false
}

// known are the strings interned on decode: kinds and sides.
var known = func() map[string]string {
	m := map[string]string{"BUY": "BUY", "SELL": "SELL"}
	for k := range allowed {
		m[string(k)] = string(k)
	}
	return m
}()

func intern(b []byte) Kind {
	if v, ok := known[string(b)]; ok {
		return Kind(v)
	}
	return Kind(b)
}

// str reads a JSON string (escapes decoded).
func (s *scanner) str() (string, error) {
	b, err := s.strBytes()
	return string(b), err
}

// strBytes reads a JSON string; the result aliases the input when the
// string has no escapes.
func (s *scanner) strBytes() ([]byte, error) {
	if s.i >= len(s.b) || s.b[s.i] != '"' {
		return nil, s.syntax()
	}
	s.i++
	start := s.i
	for s.i < len(s.b) {
		c := s.b[s.i]
		switch {
		case c == '"':
			v := s.b[start:s.i]
			s.i++
			if !utf8.Valid(v) {
				return nil, errors.New("string is not valid UTF-8")
			}
			return v, nil
		case c == '\\':
			return s.slowStr(start)
		case c < 0x20:
			return nil, s.syntax()
		}
		s.i++
	}
	return nil, errTruncated
}

func (s *scanner) slowStr(start int) ([]byte, error) {
	out := append([]byte(nil), s.b[start:s.i]...)
	for s.i < len(s.b) {
		c := s.b[s.i]
		switch {
		case c == '"':
			s.i++
			if !utf8.Valid(out) {
				return nil, errors.New("string is not valid UTF-8")
			}
			return out, nil
		case c < 0x20:
			return nil, s.syntax()
		case c != '\\':
			out = append(out, c)
			s.i++
			continue
		}
		if s.i+1 >= len(s.b) {
			return nil, errTruncated
		}
		esc := s.b[s.i+1]
		s.i += 2
		switch esc {
		case '"', '\\', '/':
			out = append(out, esc)
		case 'b':
			out = append(out, '\b')
		case 'f':
			out = append(out, '\f')
		case 'n':
			out = append(out, '\n')
		case 'r':
			out = append(out, '\r')
		case 't':
			out = append(out, '\t')
		case 'u':
			r, ok := s.hex4()
			if !ok {
				return nil, s.syntax()
			}
			if utf16.IsSurrogate(r) {
				if s.i+1 < len(s.b) && s.b[s.i] == '\\' && s.b[s.i+1] == 'u' {
					s.i += 2
					r2, ok := s.hex4()
					if !ok {
						return nil, s.syntax()
					}
					r = utf16.DecodeRune(r, r2)
				} else {
					r = utf8.RuneError
				}
				if r == utf8.RuneError {
					return nil, errors.New("string has an unpaired surrogate escape")
				}
			}
			out = utf8.AppendRune(out, r)
		default:
			return nil, s.syntax()
		}
	}
	return nil, errTruncated
}

func (s *scanner) hex4() (rune, bool) {
	if len(s.b)-s.i < 4 {
		return 0, false
	}
	var r rune
	for _, c := range s.b[s.i : s.i+4] {
		switch {
		case '0' <= c && c <= '9':
			c -= '0'
		case 'a' <= c && c <= 'f':
			c -= 'a' - 10
		case 'A' <= c && c <= 'F':
			c -= 'A' - 10
		default:
			return 0, false
		}
		r = r<<4 | rune(c)
	}
	s.i += 4
	return r, true
}

// number returns the raw text of a JSON number (grammar checked).
func (s *scanner) number() ([]byte, error) {
	start := s.i
	if s.i < len(s.b) && s.b[s.i] == '-' {
		s.i++
	}
	switch {
	case s.i < len(s.b) && s.b[s.i] == '0':
		s.i++
	case s.i < len(s.b) && '1' <= s.b[s.i] && s.b[s.i] <= '9':
		s.digits()
	default:
		return nil, s.syntax()
	}
	if s.i < len(s.b) && s.b[s.i] == '.' {
		s.i++
		if s.digits() == 0 {
			return nil, s.syntax()
		}
	}
	if s.i < len(s.b) && (s.b[s.i] == 'e' || s.b[s.i] == 'E') {
		s.i++
		if s.i < len(s.b) && (s.b[s.i] == '+' || s.b[s.i] == '-') {
			s.i++
		}
		if s.digits() == 0 {
			return nil, s.syntax()
		}
	}
	return s.b[start:s.i], nil
}

func (s *scanner) digits() int {
	n := 0
	for s.i < len(s.b) && '0' <= s.b[s.i] && s.b[s.i] <= '9' {
		s.i++
		n++
	}
	return n
}

// typeErr mirrors encoding/json's message for a value of the wrong type.
func (s *scanner) typeErr(name, want string) error {
	got := "value"
	if s.i < len(s.b) {
		switch c := s.b[s.i]; {
		case c == '"':
			got = "string"
		case c == '[':
			got = "array"
		case c == '{':
			got = "object"
		case c == 't' || c == 'f':
			got = "bool"
		case c == '-' || '0' <= c && c <= '9':
			got = "number"
		}
	}
	return fmt.Errorf("field %q: expected %s, got JSON %s", name, want, got)
}

func (s *scanner) int(name string) (int64, error) {
	if s.null() {
		return 0, nil
	}
	if s.i >= len(s.b) || s.b[s.i] != '-' && (s.b[s.i] < '0' || s.b[s.i] > '9') {
		return 0, s.typeErr(name, "a 64-bit integer")
	}
	raw, err := s.number()
	if err != nil {
		return 0, err
	}
	v, err := strconv.ParseInt(string(raw), 10, 64)
	if err != nil {
		return 0, fmt.Errorf("field %q: expected a 64-bit integer, got JSON number %s", name, raw)
	}
	return v, nil
}

func (s *scanner) boolean(name string) (v, isNull bool, err error) {
	switch {
	case s.null():
		return false, true, nil
	case len(s.b)-s.i >= 4 && string(s.b[s.i:s.i+4]) == "true":
		s.i += 4
		return true, false, nil
	case len(s.b)-s.i >= 5 && string(s.b[s.i:s.i+5]) == "false":
		s.i += 5
		return false, false, nil
	}
	return false, false, s.typeErr(name, "bool")
}

func (s *scanner) text(name string) (string, error) {
	if s.null() {
		return "", nil
	}
	if s.i >= len(s.b) || s.b[s.i] != '"' {
		return "", s.typeErr(name, "string")
	}
	return s.str()
}

// micro reads an amount from a JSON string or number, as amount.Micro's
// UnmarshalJSON does (the string's raw bytes, no unescaping).
func (s *scanner) micro(name string) (amount.Micro, error) {
	var raw []byte
	switch {
	case s.i < len(s.b) && s.b[s.i] == '"':
		start := s.i
		if _, err := s.str(); err != nil {
			return 0, err
		}
		raw = s.b[start+1 : s.i-1]
	case s.i < len(s.b) && (s.b[s.i] == '-' || '0' <= s.b[s.i] && s.b[s.i] <= '9'):
		var err error
		if raw, err = s.number(); err != nil {
			return 0, err
		}
	default:
		return 0, fmt.Errorf("field %q: %s", name, amount.ErrSyntax)
	}
	v, err := amount.Parse(string(raw))
	if err != nil {
		return 0, fmt.Errorf("field %q: %w", name, err)
	}
	return v, nil
}

// array walks [v, ...], calling each positioned at an element. A null array
// leaves *isNull true.
func (s *scanner) array(name string, isNull *bool, each func() error) error {
	if s.null() {
		*isNull = true
		return nil
	}
	if s.i >= len(s.b) || s.b[s.i] != '[' {
		return s.typeErr(name, "array")
	}
	s.i++
	s.ws()
	if s.i < len(s.b) && s.b[s.i] == ']' {
		s.i++
		return nil
	}
	for {
		s.ws()
		if s.null() {
			return fmt.Errorf("field %q: null element", name)
		}
		if err := each(); err != nil {
			return err
		}
		if done, err := s.more(']'); done || err != nil {
			return err
		}
	}
}

func (s *scanner) strs(name string) ([]string, error) {
	out := []string{}
	isNull := false
	err := s.array(name, &isNull, func() error {
		if s.i >= len(s.b) || s.b[s.i] != '"' {
			return s.typeErr(name, "string")
		}
		v, err := s.str()
		out = append(out, v)
		return err
	})
	if isNull {
		return nil, err
	}
	return out, err
}

func (s *scanner) micros(name string) ([]amount.Micro, error) {
	out := []amount.Micro{}
	isNull := false
	err := s.array(name, &isNull, func() error {
		v, err := s.micro(name)
		out = append(out, v)
		return err
	})
	if isNull {
		return nil, err
	}
	return out, err
}

func (s *scanner) legs() ([]ComboLeg, error) {
	out := []ComboLeg{}
	isNull := false
	err := s.array("legs", &isNull, func() error {
		if s.i >= len(s.b) || s.b[s.i] != '{' {
			return s.typeErr("legs", "an object (a combo leg)")
		}
		var l ComboLeg
		var seenC, seenO bool
		err := s.object(func(key []byte) error {
			switch string(key) {
			case "condition_id":
				if seenC {
					return errors.New(`duplicate field "legs.condition_id"`)
				}
				seenC = true
				v, err := s.text("legs.condition_id")
				l.ConditionID = v
				return err
			case "outcome_index":
				if seenO {
					return errors.New(`duplicate field "legs.outcome_index"`)
				}
				seenO = true
				v, err := s.int("legs.outcome_index")
				l.OutcomeIndex = int(v)
				return err
			}
			return fmt.Errorf("unknown field %q", key)
		})
		out = append(out, l)
		return err
	})
	if isNull {
		return nil, err
	}
	return out, err
}
