package perpsauth

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"

	"pmx/internal/httpjson"
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
	pad      bool // an absent uint slot is sent as 0 when a later slot is present (tr.slip_bps)
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
// present only when true; our extension (docs/perps-margin.md "TP/SL")
// appends slip_bps and parent_oid, each absent when not sent, slip_bps sent
// as 0 when only parent_oid is, so no two requests share a compact form.
var orderRow = obj(
	f("iid", uint_), f("buy", bool_), f("p", str), f("qty", str), f("tif", str),
	field{name: "po", sh: bool_, def: false},
	f("ro", bool_), f("c", str),
	f("tr", obj(field{name: "market", sh: bool_, trueOnly: true}, f("trp", str), f("tpsl", str),
		field{name: "slip_bps", sh: uint_, pad: true}, f("parent_oid", uint_))),
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

	checked bool      // Compact checked Args' syntax: OrderArgs steps over it unchecked
	rows    []span    // createOrders: the orders' value spans in Args, orderRow's fields per order (Compact; nil: scan)
	rowBuf  *rowSpans // rows' pooled buffer (VerifyOp), for ReleaseRows
}

// DecodeArgs decodes the args into dst, refusing unknown fields. Compact
// already refused keys outside the table (exact case), so a struct decode
// here sees exactly the signed values.
func (o Op) DecodeArgs(dst any) error {
	d := json.NewDecoder(bytes.NewReader(o.Args))
	d.DisallowUnknownFields()
	d.UseNumber()
	if err := d.Decode(dst); err != nil {
		return invalid("args: %s", httpjson.Describe(err).Error())
	}
	return nil
}

func isNull(b json.RawMessage) bool { return string(bytes.TrimSpace(b)) == "null" }
