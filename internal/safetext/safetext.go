// Package safetext decides whether text from outside (operator uploads as
// much as user requests) may be stored and served to the public: valid
// UTF-8, bounded length, no control characters (tab, newline and carriage
// return aside) and no bidirectional overrides or isolates, which let a name
// display as something else (U+202E "right-to-left override").
package safetext

import (
	"fmt"
	"reflect"
	"strconv"
	"strings"
	"unicode/utf8"
)

// MaxText bounds one string of operator input (a market description is a
// few KiB; a 100 KB symbol is an attack, not a name).
const MaxText = 64 << 10

// Error is a refused string: Field is its path ("markets.0.question") or "".
type Error struct {
	Field string
	Msg   string
}

func (e *Error) Error() string {
	if e.Field == "" {
		return e.Msg
	}
	return "field " + e.Field + ": " + e.Msg
}

// Check refuses s when it is not valid UTF-8, longer than max bytes, or
// holds a forbidden character.
func Check(s string, max int) error {
	if len(s) > max {
		return &Error{Msg: fmt.Sprintf("too long: %d bytes, at most %d", len(s), max)}
	}
	for i, r := range s {
		if r == utf8.RuneError {
			if _, n := utf8.DecodeRuneInString(s[i:]); n <= 1 {
				return &Error{Msg: "not valid UTF-8"}
			}
		}
		if Forbidden(r) {
			return &Error{Msg: fmt.Sprintf("contains the control character U+%04X", r)}
		}
	}
	return nil
}

// Forbidden reports the characters no stored text may hold: C0 controls but
// tab, newline and carriage return; DEL; C1 controls; the bidirectional
// embeddings, overrides and isolates; the line and paragraph separators.
func Forbidden(r rune) bool {
	switch {
	case r == '\t' || r == '\n' || r == '\r':
		return false
	case r < 0x20 || r == 0x7f || (r >= 0x80 && r <= 0x9f):
		return true
	case r >= 0x202a && r <= 0x202e, r >= 0x2066 && r <= 0x2069, r == 0x2028 || r == 0x2029:
		return true
	}
	return false
}

// Walk checks every string reachable from v (struct fields, slices, maps
// and their keys, pointers, interfaces) with Check and names the first
// refused one by its JSON path.
func Walk(v any, max int) error {
	return walk(reflect.ValueOf(v), "", max)
}

func walk(v reflect.Value, path string, max int) error {
	switch v.Kind() {
	case reflect.String:
		if err := Check(v.String(), max); err != nil {
			e := err.(*Error)
			e.Field = path
			return e
		}
	case reflect.Pointer, reflect.Interface:
		if !v.IsNil() {
			return walk(v.Elem(), path, max)
		}
	case reflect.Struct:
		t := v.Type()
		for i := range t.NumField() {
			f := t.Field(i)
			if !f.IsExported() {
				continue
			}
			name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
			if name == "-" {
				continue
			}
			if name == "" {
				name = f.Name
			}
			p := join(path, name)
			if f.Anonymous {
				p = path
			}
			if err := walk(v.Field(i), p, max); err != nil {
				return err
			}
		}
	case reflect.Slice, reflect.Array:
		if v.Type().Elem().Kind() == reflect.Uint8 {
			return nil // bytes, not text
		}
		for i := range v.Len() {
			if err := walk(v.Index(i), join(path, strconv.Itoa(i)), max); err != nil {
				return err
			}
		}
	case reflect.Map:
		it := v.MapRange()
		for it.Next() {
			k := it.Key()
			if k.Kind() == reflect.String {
				if err := Check(k.String(), max); err != nil {
					e := err.(*Error)
					e.Field, e.Msg = path, "key "+strconv.Quote(truncate(k.String()))+": "+e.Msg
					return e
				}
			}
			if err := walk(it.Value(), join(path, fmt.Sprint(k.Interface())), max); err != nil {
				return err
			}
		}
	}
	return nil
}

func join(path, name string) string {
	if path == "" {
		return name
	}
	return path + "." + name
}

func truncate(s string) string {
	if len(s) > 40 {
		return s[:40] + "…"
	}
	return s
}
