// Package jsonerr words encoding/json decode errors for clients: the field
// and what was expected, never a Go type name ("json: cannot unmarshal
// array into Go value of type perpsauth.Request" becomes "expected an
// object").
package jsonerr

import (
	"encoding/json"
	"errors"
	"io"
	"strings"
)

// Describe is a client-facing description of a json.Unmarshal or
// json.Decoder error.
func Describe(err error) string {
	var te *json.UnmarshalTypeError
	var se *json.SyntaxError
	switch {
	case errors.As(err, &te):
		want := kind(te.Type.Kind().String())
		if te.Field != "" {
			return te.Field + ": expected " + want + ", got " + te.Value
		}
		return "expected " + want + ", got " + te.Value
	case errors.As(err, &se), errors.Is(err, io.ErrUnexpectedEOF):
		return "malformed JSON"
	case errors.Is(err, io.EOF):
		return "empty body"
	}
	msg := err.Error()
	if f, ok := strings.CutPrefix(msg, "json: unknown field "); ok {
		return "unknown field " + f
	}
	if strings.HasPrefix(msg, "http: request body too large") {
		return "body too large"
	}
	var ue *json.InvalidUnmarshalError
	if errors.As(err, &ue) || strings.Contains(msg, "Go ") {
		return "malformed JSON"
	}
	return strings.TrimPrefix(msg, "json: ")
}

// kind names a reflect.Kind the way a JSON user thinks of it.
func kind(k string) string {
	switch k {
	case "struct", "map":
		return "an object"
	case "slice", "array":
		return "an array"
	case "string":
		return "a string"
	case "bool":
		return "a boolean"
	case "int", "int8", "int16", "int32", "int64":
		return "an integer"
	case "uint", "uint8", "uint16", "uint32", "uint64":
		return "a non-negative integer"
	case "float32", "float64":
		return "a number"
	}
	return "another type"
}
