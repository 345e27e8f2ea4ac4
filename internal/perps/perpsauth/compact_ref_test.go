package perpsauth

// The reference implementation of Compact: decode with encoding/json into a
// generic tree, convert it, encode with msgpack.Append. Slow but obviously
// right; FuzzCompactDifferential checks the streaming Compact against it.

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"errors"
	"slices"
	"strconv"
	"strings"
	"testing"

	"pmx/internal/crypto/keccak"
	"pmx/internal/crypto/msgpack"
)

func compactRef(raw json.RawMessage) (Op, []byte, error) {
	var top map[string]json.RawMessage
	if err := json.Unmarshal(raw, &top); err != nil || top == nil {
		return Op{}, nil, invalid("op must be an object")
	}
	var op Op
	for k := range top {
		if k != "type" && k != "args" && k != "grp" {
			return Op{}, nil, invalid("op: unknown field %q", k)
		}
	}
	if err := json.Unmarshal(top["type"], &op.Type); err != nil || op.Type == "" {
		return Op{}, nil, invalid("op.type must be a string")
	}
	spec, ok := ops[op.Type]
	if !ok {
		return Op{}, nil, invalid("unknown op type %q", op.Type)
	}
	if g, ok := top["grp"]; ok && !isNull(g) {
		if !spec.grp {
			return Op{}, nil, invalid("op.grp not allowed on %s", op.Type)
		}
		if err := json.Unmarshal(g, &op.Grp); err != nil {
			return Op{}, nil, invalid("op.grp must be a string")
		}
	}
	op.Args = top["args"]
	if op.Args == nil {
		return Op{}, nil, invalid("op.args missing")
	}
	d := json.NewDecoder(bytes.NewReader(op.Args))
	d.UseNumber()
	var args any
	if err := d.Decode(&args); err != nil {
		return Op{}, nil, invalid("op.args: %v", err)
	}
	cargs, err := compactValueRef(args, spec.args, "args")
	if err != nil {
		return Op{}, nil, err
	}
	if cargs == nil { // null args
		return Op{}, nil, invalid("op.args missing")
	}
	tree := []any{op.Type, cargs, nil}
	if g, ok := top["grp"]; ok && !isNull(g) {
		tree[2] = op.Grp // present even when "", as a client would sign it
	}
	b, err := msgpack.Append(make([]byte, 0, 64+len(op.Args)), tree)
	if err != nil {
		return Op{}, nil, invalid("%v", err)
	}
	return op, b, nil
}

// compactValue converts one decoded JSON value to the msgpack value tree.
// A JSON null yields nil (an absent slot).
func compactValueRef(v any, sh shape, path string) (any, error) {
	if v == nil {
		return nil, nil
	}
	switch sh.kind {
	case kStr:
		s, ok := v.(string)
		if !ok {
			return nil, invalid("%s: want string", path)
		}
		return s, nil
	case kBool:
		b, ok := v.(bool)
		if !ok {
			return nil, invalid("%s: want boolean", path)
		}
		return b, nil
	case kUint:
		n, ok := v.(json.Number)
		if !ok {
			return nil, invalid("%s: want integer", path)
		}
		u, err := parseUintRef(string(n))
		if err != nil {
			return nil, invalid("%s: want non-negative integer", path)
		}
		return u, nil
	case kArr:
		a, ok := v.([]any)
		if !ok {
			return nil, invalid("%s: want array", path)
		}
		out := make([]any, len(a))
		for i, e := range a {
			if e == nil {
				// null has no agreed compact meaning inside an array.
				return nil, invalid("%s[%d]: null", path, i)
			}
			c, err := compactValueRef(e, *sh.elem, path+"["+strconv.Itoa(i)+"]")
			if err != nil {
				return nil, err
			}
			out[i] = c
		}
		return out, nil
	case kObj:
		m, ok := v.(map[string]any)
		if !ok {
			return nil, invalid("%s: want object", path)
		}
		if err := knownKeysRef(m, sh.fields, path); err != nil {
			return nil, err
		}
		out := make([]any, len(sh.fields))
		for i, fd := range sh.fields {
			x, present := m[fd.name]
			if !present || x == nil {
				out[i] = fd.def
				continue
			}
			c, err := compactValueRef(x, fd.sh, path+"."+fd.name)
			if err != nil {
				return nil, err
			}
			if fd.trueOnly && c == false {
				c = nil
			}
			out[i] = c
		}
		return out, nil
	}
	return nil, invalid("%s: unsupported", path)
}

func knownKeysRef(m map[string]any, fields []field, path string) error {
	var unknown []string
	for k := range m {
		if !slices.ContainsFunc(fields, func(fd field) bool { return fd.name == k }) {
			unknown = append(unknown, k)
		}
	}
	if len(unknown) > 0 {
		slices.Sort(unknown) // deterministic message
		return invalid("%s: unknown field %q", path, unknown[0])
	}
	return nil
}

// parseUint accepts canonical decimal integers only (no sign, fraction,
// exponent or leading zero): JSON.stringify and Python's json write integers
// this way, and other spellings would make the signed value ambiguous.
func parseUintRef(s string) (uint64, error) {
	if s == "" || (len(s) > 1 && s[0] == '0') {
		return 0, strconv.ErrSyntax
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return 0, strconv.ErrSyntax
		}
	}
	return strconv.ParseUint(s, 10, 64)
}

var differentialSeeds = []string{
	`{"type":"createOrders","args":[{"iid":1,"buy":true,"p":"\u0030.5","qty":"2","tif":"gtc","po":null}],"grp":""}`,
	`{"type":"createOrders","args":[{"iid":1,"iid":"x","buy":true,"qty":"1","tr":{"market":false,"market":true,"trp":"1"}}]}`,
	`{"ty\u0070e":"cancel\u004frders","args":[1,2]} `,
	`{"type":"cancelOrders","args":[1],"type":"cancelOrdersCOID","args":["a"]}`,
	`{"type":"cancelOrders","args":[1]} x`,
	`{"type":"cancelAll","args":{},"grp":null}`,
	`{"type":"createOrders","args":[{"iid":1,"buy":true,"qty":"1","c":"\xff\xfe"}]}`,
	`{"type":"createOrders","args":[{"iid":1,"buy":true,"qty":"1","tr":{"market":1}}]}`,
	`{"type":"createOrders","args":[{"iid":1,"buy":true,"qty":"1","tr":{"market":null,"trp":"2"}}]}`,
}

// FuzzCompactDifferential holds the streaming Compact to the encoding/json
// reference: same acceptance, same bytes, same op fields.
func FuzzCompactDifferential(f *testing.F) {
	for _, g := range goldenOps {
		f.Add(g.op)
	}
	for _, s := range differentialSeeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		op1, b1, err1 := Compact([]byte(s))
		op2, b2, err2 := compactRef([]byte(s))
		if (err1 == nil) != (err2 == nil) {
			t.Fatalf("acceptance differs on %q:\nstreaming: %v\nreference: %v", s, err1, err2)
		}
		if err1 != nil {
			if !errors.Is(err1, ErrInvalidRequest) {
				t.Fatalf("untyped error %v", err1)
			}
			return
		}
		if !bytes.Equal(b1, b2) || op1.Type != op2.Type || op1.Grp != op2.Grp || !bytes.Equal(op1.Args, op2.Args) {
			t.Fatalf("results differ on %q:\n%x %+v\n%x %+v", s, b1, op1, b2, op2)
		}
	})
}

// The table-driven cases also run against the reference, so both agree
// with the literal expectations and not only with each other.
func TestCompactReferenceTables(t *testing.T) {
	// array32 (kept out of the fuzz seeds: minimising it is slow).
	big := `{"type":"cancelOrders","args":[` + strings.Repeat("7,", 70000) + `7]}`
	_, b1, err1 := Compact([]byte(big))
	_, b2, err2 := compactRef([]byte(big))
	if err1 != nil || err2 != nil || !bytes.Equal(b1, b2) || b1[14] != 0xdd {
		t.Fatalf("array32: %v %v", err1, err2)
	}
	for _, g := range goldenOps {
		_, b, err := compactRef([]byte(g.op))
		if err != nil {
			t.Fatal(err)
		}
		h := keccak.Sum256(b)
		if hex.EncodeToString(h[:]) != g.data {
			t.Fatalf("%s: reference data %x", g.name, h)
		}
	}
}
