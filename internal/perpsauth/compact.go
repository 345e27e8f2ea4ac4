package perpsauth

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"

	"pmx/internal/msgpack"
)

// ErrInvalidRequest reports a body or op that cannot be turned into a compact
// form. Wrapped errors say which field.
var ErrInvalidRequest = errors.New("invalid request")

func invalid(format string, a ...any) error {
	return fmt.Errorf("%w: %s", ErrInvalidRequest, fmt.Sprintf(format, a...))
}

type kind uint8

const (
	kStr kind = iota + 1
	kUint
	kBool
	kObj // keyed object → positional array in field order
	kArr // array → array
)

// field is one slot of a positional compact array.
type field struct {
	name     string
	sh       shape
	def      any  // value used when the key is absent (nil: slot absent)
	trueOnly bool // slot present only when the value is true (tr.market)
}

type shape struct {
	kind   kind
	fields []field // kObj
	elem   *shape  // kArr
}

var (
	str   = shape{kind: kStr}
	uint_ = shape{kind: kUint}
	bool_ = shape{kind: kBool}
)

func obj(fs ...field) shape { return shape{kind: kObj, fields: fs} }
func arr(e shape) shape     { return shape{kind: kArr, elem: &e} }
func f(name string, sh shape) field {
	return field{name: name, sh: sh}
}

// Role says who signs an op type.
type Role uint8

const (
	RoleProxy        Role = iota + 1 // a registered proxy (trading key)
	RoleOwner                        // the account's own EOA
	RoleOwnerOrProxy                 // either (internalTransfer)
)

type opSpec struct {
	args shape
	role Role
	grp  bool // accepts the optional op.grp string (createOrders)
}

// orderRow is the createOrders row: [iid, buy, p, qty, tif, po, ro, c, tr].
// po is always present (false when the JSON omits it): the official example
// body omits po yet signs false. ro, c, p, tif and tr are present exactly when
// their key is (perps.md §3.3, §13.3). tr is [market, trp, tpsl] with market
// present only when true.
var orderRow = obj(
	f("iid", uint_), f("buy", bool_), f("p", str), f("qty", str), f("tif", str),
	field{name: "po", sh: bool_, def: false},
	f("ro", bool_), f("c", str),
	f("tr", obj(field{name: "market", sh: bool_, trueOnly: true}, f("trp", str), f("tpsl", str))),
)

var leverageRow = obj(f("iid", uint_), f("lev", uint_), f("cross", bool_))

// ops is the compact-form table of perps.md §3.3 and §11.
var ops = map[string]opSpec{
	"createOrders":     {args: arr(orderRow), role: RoleProxy, grp: true},
	"modifyOrders":     {args: arr(obj(f("oid", uint_), f("p", str), f("qty", str))), role: RoleProxy},
	"modifyOrdersCOID": {args: arr(obj(f("coid", str), f("p", str), f("qty", str))), role: RoleProxy},
	"cancelOrders":     {args: arr(uint_), role: RoleProxy},
	"cancelOrdersCOID": {args: arr(str), role: RoleProxy},
	"cancelAll":        {args: obj(f("iid", uint_)), role: RoleProxy},
	"autoCancel":       {args: obj(f("time", uint_)), role: RoleProxy},
	"updateLeverage":   {args: leverageRow, role: RoleProxy},
	"updateLeverages":  {args: arr(leverageRow), role: RoleProxy},
	"updateMargin":     {args: obj(f("iid", uint_), f("amt", str)), role: RoleProxy},
	"internalTransfer": {args: obj(f("account", str), f("token", str), f("amount", str), f("to", str)), role: RoleOwnerOrProxy},
	"deleteProxy":      {args: obj(f("proxy", str)), role: RoleOwner},
	"approveBuilder":   {args: obj(f("builder", str), f("max_fee_rate", str), f("approval_version", uint_)), role: RoleOwner},
	"createChase": {args: obj(f("iid", uint_), f("buy", bool_), f("qty", str), f("lim", str), f("max_dist", str),
		f("max_dist_bps", uint_), field{name: "po", sh: bool_, def: true}, field{name: "ro", sh: bool_, def: false}, f("c", str)), role: RoleProxy},
	"cancelChase": {args: obj(f("chid", uint_)), role: RoleProxy},
	"createTwap": {args: obj(f("iid", uint_), f("buy", bool_), f("qty", str), f("dur", uint_), f("ivl", uint_), f("rnd", bool_),
		f("slip_bps", uint_), f("min_px", str), f("max_px", str), f("ro", bool_), f("c", str)), role: RoleProxy},
	"controlTwap": {args: obj(f("twid", uint_), f("act", str)), role: RoleProxy},
	"cancelTwap":  {args: obj(f("twid", uint_)), role: RoleProxy},
}

// OpRole returns who signs an op type; ok is false for unknown types.
func OpRole(opType string) (Role, bool) {
	s, ok := ops[opType]
	return s.role, ok
}

// Op is the keyed JSON op of a signed request.
type Op struct {
	Type string
	Args json.RawMessage
	Grp  string // createOrders only; "" when absent
}

// DecodeArgs decodes the args into dst, refusing unknown fields. Compact
// already refused keys outside the table (exact case), so a struct decode
// here sees exactly the signed values.
func (o Op) DecodeArgs(dst any) error {
	d := json.NewDecoder(bytes.NewReader(o.Args))
	d.DisallowUnknownFields()
	d.UseNumber()
	if err := d.Decode(dst); err != nil {
		return invalid("args: %v", err)
	}
	return nil
}

// Compact parses a keyed op object and returns it with the MessagePack bytes
// of its compact form ([type, args(, grp)]), whose keccak256 is the Op data.
// Strings are taken exactly as sent (after JSON unescaping), never
// re-formatted: "100.50" keeps its zero, addresses keep their case.
func Compact(raw json.RawMessage) (Op, []byte, error) {
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
	cargs, err := compactValue(args, spec.args, "args")
	if err != nil {
		return Op{}, nil, err
	}
	if cargs == nil { // null args
		return Op{}, nil, invalid("op.args missing")
	}
	tree := []any{op.Type, cargs, nil}
	if op.Grp != "" {
		tree[2] = op.Grp
	}
	b, err := msgpack.Append(make([]byte, 0, 64+len(op.Args)), tree)
	if err != nil {
		return Op{}, nil, invalid("%v", err)
	}
	return op, b, nil
}

func isNull(b json.RawMessage) bool { return string(bytes.TrimSpace(b)) == "null" }

// compactValue converts one decoded JSON value to the msgpack value tree.
// A JSON null yields nil (an absent slot).
func compactValue(v any, sh shape, path string) (any, error) {
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
		u, err := parseUint(string(n))
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
			c, err := compactValue(e, *sh.elem, path+"["+strconv.Itoa(i)+"]")
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
		if err := knownKeys(m, sh.fields, path); err != nil {
			return nil, err
		}
		out := make([]any, len(sh.fields))
		for i, fd := range sh.fields {
			x, present := m[fd.name]
			if !present || x == nil {
				out[i] = fd.def
				continue
			}
			c, err := compactValue(x, fd.sh, path+"."+fd.name)
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

func knownKeys(m map[string]any, fields []field, path string) error {
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
func parseUint(s string) (uint64, error) {
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
