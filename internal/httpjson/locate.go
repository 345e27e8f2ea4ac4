package httpjson

import (
	"encoding/json"
	"reflect"
	"slices"
	"strconv"
	"strings"
)

// Explain describes err, the failure of unmarshalling raw (the same value
// decoded as a generic tree of maps and slices) into dst's type, naming the
// field even when the failure came from a custom UnmarshalJSON, which
// encoding/json reports without one: each member is tried on its own, down
// to the first that fails.
func Explain(raw any, dst any, err error) *Error {
	e := Describe(err)
	if e == nil || e.Field != "" {
		return e
	}
	if path := locate(raw, reflect.TypeOf(dst)); path != "" {
		e.Field = path
		if strings.HasPrefix(e.Msg, "body is not valid JSON") {
			e.Msg = "invalid value"
		}
	}
	return e
}

// locate returns the path of the first member of raw that does not
// unmarshal into its field of t, or "".
func locate(raw any, t reflect.Type) string {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch v := raw.(type) {
	case map[string]any:
		if t.Kind() != reflect.Struct {
			return ""
		}
		keys := make([]string, 0, len(v))
		for k := range v {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		for _, k := range keys {
			ft, ok := fieldType(t, k)
			if !ok || fits(v[k], ft) {
				continue
			}
			if sub := locate(v[k], ft); sub != "" {
				return k + "." + sub
			}
			return k
		}
	case []any:
		if t.Kind() != reflect.Slice && t.Kind() != reflect.Array {
			return ""
		}
		for i, x := range v {
			if !fits(x, t.Elem()) {
				if sub := locate(x, t.Elem()); sub != "" {
					return strconv.Itoa(i) + "." + sub
				}
				return strconv.Itoa(i)
			}
		}
	}
	return ""
}

func fits(raw any, t reflect.Type) bool {
	b, err := json.Marshal(raw)
	if err != nil {
		return false
	}
	return json.Unmarshal(b, reflect.New(t).Interface()) == nil
}

// fieldType finds the struct field encoding/json would fill from key
// (tag name, else field name, case-insensitively; embedded structs
// included).
func fieldType(t reflect.Type, key string) (reflect.Type, bool) {
	for i := range t.NumField() {
		f := t.Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name == "-" {
			continue
		}
		if f.Anonymous && name == "" {
			et := f.Type
			for et.Kind() == reflect.Pointer {
				et = et.Elem()
			}
			if et.Kind() == reflect.Struct {
				if ft, ok := fieldType(et, key); ok {
					return ft, true
				}
			}
			continue
		}
		if !f.IsExported() {
			continue
		}
		if name == "" {
			name = f.Name
		}
		if strings.EqualFold(name, key) {
			return f.Type, true
		}
	}
	return nil, false
}
