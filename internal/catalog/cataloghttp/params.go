package cataloghttp

import (
	"fmt"
	"math/big"
	"net/url"
	"strconv"
	"strings"

	"pmx/internal/catalog/catalog"
)

// paramError is a 400 (or status) with a message naming the parameter.
type paramError struct {
	status int
	msg    string
}

func (e *paramError) Error() string { return e.msg }

func badParam(format string, a ...any) error {
	return &paramError{status: 400, msg: fmt.Sprintf(format, a...)}
}

type params struct {
	q   url.Values
	err error
}

// list returns every value of a repeatable parameter, also splitting
// comma-separated values ("id=1&id=2" and "id=1,2" are the same).
func (p *params) list(name string) []string {
	var out []string
	for _, v := range p.q[name] {
		for _, s := range strings.Split(v, ",") {
			if s = strings.TrimSpace(s); s != "" {
				out = append(out, s)
			}
		}
	}
	return out
}

func (p *params) str(name string) string { return strings.TrimSpace(p.q.Get(name)) }

func (p *params) ids(name string) []int64 {
	var out []int64
	for _, s := range p.list(name) {
		v, err := catalog.ParseID(s)
		if err != nil {
			p.fail(badParam("%s: %v", name, err))
			return nil
		}
		out = append(out, v)
	}
	return out
}

func (p *params) id(name string) *int64 {
	s := p.str(name)
	if s == "" {
		return nil
	}
	v, err := catalog.ParseID(s)
	if err != nil {
		p.fail(badParam("%s: %v", name, err))
		return nil
	}
	return &v
}

func (p *params) boolean(name string) *bool {
	s := p.str(name)
	switch s {
	case "":
		return nil
	case "true", "1":
		return ptr(true)
	case "false", "0":
		return ptr(false)
	}
	p.fail(badParam("%s must be true or false, got %q", name, s))
	return nil
}

func (p *params) integer(name string, def, min int) int {
	s := p.str(name)
	if s == "" {
		return def
	}
	v, err := strconv.Atoi(s)
	if err != nil || v < min {
		p.fail(badParam("%s must be an integer >= %d, got %q", name, min, s))
		return def
	}
	return v
}

// decimal reads an exact decimal bound (no float64).
func (p *params) decimal(name string) *big.Rat {
	s := p.str(name)
	if s == "" {
		return nil
	}
	if _, err := catalog.ParseNum(s); err != nil {
		p.fail(badParam("%s must be a number, got %q", name, s))
		return nil
	}
	r, ok := new(big.Rat).SetString(s)
	if !ok {
		p.fail(badParam("%s must be a number, got %q", name, s))
		return nil
	}
	return r
}

// date reads a date-time bound as a sort key.
func (p *params) date(name string) string {
	s := p.str(name)
	if s == "" {
		return ""
	}
	k := catalog.DateKey(s)
	if k == "" {
		p.fail(badParam("%s must be an RFC 3339 date-time or a date, got %q", name, s))
	}
	return k
}

func (p *params) fail(err error) {
	if p.err == nil {
		p.err = err
	}
}

// Order keys accepted on listings, by their spellings; live keys are sorted
// by the handler after live fields are applied.
var staticOrders = map[string]string{
	"id": catalog.OrderID, "slug": catalog.OrderSlug,
	"startDate": catalog.OrderStartDate, "start_date": catalog.OrderStartDate,
	"endDate": catalog.OrderEndDate, "end_date": catalog.OrderEndDate,
	"createdAt": catalog.OrderCreatedAt, "created_at": catalog.OrderCreatedAt,
}

const (
	liveVolume       = "volume"
	liveVolume24hr   = "volume24hr"
	liveLiquidity    = "liquidity"
	liveOpenInterest = "openInterest"
)

var liveOrders = map[string]string{
	"volume": liveVolume, "volumeNum": liveVolume, "volume_num": liveVolume,
	"volume24hr": liveVolume24hr, "volume_24hr": liveVolume24hr,
	"liquidity": liveLiquidity, "liquidityNum": liveLiquidity, "liquidity_num": liveLiquidity,
	"openInterest": liveOpenInterest, "open_interest": liveOpenInterest,
}

// liveQuery is the part of a listing the handler applies after live fields:
// range filters and ordering on live figures.
type liveQuery struct {
	order          string // a live* key, or "" when the store orders
	ascending      bool
	volMin, volMax *big.Rat
	liqMin, liqMax *big.Rat
	limit, offset  int
}

func (l *liveQuery) active() bool {
	return l.order != "" || l.volMin != nil || l.volMax != nil || l.liqMin != nil || l.liqMax != nil
}

// numRat reads a rendered number (nil when unknown).
func numRat(n *catalog.Num) *big.Rat {
	if n == nil || *n == "" {
		return nil
	}
	r, ok := new(big.Rat).SetString(string(*n))
	if !ok {
		return nil
	}
	return r
}

func inRange(v, min, max *big.Rat) bool {
	if min == nil && max == nil {
		return true
	}
	if v == nil {
		return false // unknown never matches a bound
	}
	if min != nil && v.Cmp(min) < 0 {
		return false
	}
	if max != nil && v.Cmp(max) > 0 {
		return false
	}
	return true
}

func ptr[T any](v T) *T { return &v }
