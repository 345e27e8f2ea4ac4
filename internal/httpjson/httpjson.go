// Package httpjson decodes JSON request bodies and turns every decoding
// failure into a message a client can act on: the field (as a JSON path) and
// what was expected, never a Go type name. Every pmx service uses it for
// request bodies, so no `json: cannot unmarshal array into Go value of type
// perpsauth.Request` reaches a client.
package httpjson

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"reflect"
	"strings"
)

// Error is a request body that does not decode. Field is the JSON path of
// the offending value ("markets.0.outcomes"), or "" for the body as a whole.
type Error struct {
	Field string
	Msg   string
}

func (e *Error) Error() string {
	if e.Field == "" {
		return e.Msg
	}
	return e.Field + ": " + e.Msg
}

// Options select the strictness of a decode.
type Options struct {
	Strict bool // refuse fields dst does not have
	Number bool // decode numbers into interface values as json.Number
}

// Decode decodes data, which must hold exactly one JSON value, into dst.
// A failure is an *Error (see Describe).
func Decode(data []byte, dst any, o Options) error {
	d := json.NewDecoder(bytes.NewReader(data))
	if o.Strict {
		d.DisallowUnknownFields()
	}
	if o.Number {
		d.UseNumber()
	}
	if err := d.Decode(dst); err != nil {
		return Describe(err)
	}
	if _, err := d.Token(); err != io.EOF {
		return &Error{Msg: "unexpected data after the JSON value"}
	}
	return nil
}

// DecodeReader reads one JSON value from r (a request body, already bounded
// by the listener) into dst. Data after the value is refused.
func DecodeReader(r io.Reader, dst any, o Options) error {
	b, err := io.ReadAll(r)
	if err != nil {
		return Describe(err)
	}
	return Decode(b, dst, o)
}

// Describe turns an encoding/json (or body read) error into an *Error. An
// error that is not encoding/json's is kept when its text is the caller's
// own; text that names Go internals is replaced.
func Describe(err error) *Error {
	var (
		e       *Error
		syntax  *json.SyntaxError
		typ     *json.UnmarshalTypeError
		invalid *json.InvalidUnmarshalError
		tooBig  *http.MaxBytesError
		b64     base64.CorruptInputError
	)
	switch {
	case err == nil:
		return nil
	case errors.As(err, &e):
		return e
	case errors.Is(err, io.EOF):
		return &Error{Msg: "body is empty: expected a JSON value"}
	case errors.Is(err, io.ErrUnexpectedEOF):
		return &Error{Msg: "body is not valid JSON: it ends early"}
	case errors.As(err, &syntax):
		return &Error{Msg: fmt.Sprintf("body is not valid JSON (at byte %d)", syntax.Offset)}
	case errors.As(err, &typ):
		return &Error{Field: typ.Field, Msg: "expected " + Expected(typ.Type) + ", got " + got(typ.Value)}
	case errors.As(err, &b64):
		return &Error{Msg: "expected base64 data"}
	case errors.As(err, &tooBig):
		return &Error{Msg: fmt.Sprintf("body too large: at most %d bytes", tooBig.Limit)}
	case errors.As(err, &invalid):
		return &Error{Msg: "invalid request"}
	}
	msg := err.Error()
	if f, ok := strings.CutPrefix(msg, `json: unknown field "`); ok {
		return &Error{Field: strings.TrimSuffix(f, `"`), Msg: "unknown field"}
	}
	if LeaksGo(msg) {
		return &Error{Msg: "invalid value"}
	}
	return &Error{Msg: msg}
}

// Expected names what a Go type accepts, in JSON words.
func Expected(t reflect.Type) string {
	for t != nil && t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t == nil {
		return "a JSON value"
	}
	switch t.Kind() {
	case reflect.String:
		return "a string"
	case reflect.Bool:
		return "true or false"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return fmt.Sprintf("an integer (%d-bit)", t.Bits())
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return fmt.Sprintf("a non-negative integer (%d-bit)", t.Bits())
	case reflect.Float32, reflect.Float64:
		return "a number"
	case reflect.Slice, reflect.Array:
		if t.Kind() == reflect.Slice && t.Elem().Kind() == reflect.Uint8 {
			return "a base64 string"
		}
		return "an array"
	case reflect.Map, reflect.Struct:
		return "an object"
	}
	return "a JSON value"
}

// got words encoding/json's description of the value it met ("number 300",
// "array") for a client.
func got(v string) string {
	switch v {
	case "array", "object":
		return "an " + v
	case "":
		return "something else"
	}
	return v
}

// goMarkers are texts only Go internals produce.
var goMarkers = []string{"Go value", "Go struct", "json: ", "strconv.", "reflect.", "runtime error", "main."}

// LeaksGo says whether a client-bound text names Go internals (a Go type, a
// package-qualified function, encoding/json's phrasing).
func LeaksGo(s string) bool {
	for _, m := range goMarkers {
		if strings.Contains(s, m) {
			return true
		}
	}
	return false
}
