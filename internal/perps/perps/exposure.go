package perps

import "math"

// Refusals of the checked-money bounds.
const (
	// ErrValueRange: an order (or a modify's new quantity) whose worst-case
	// value, or the account's exposure with it, does not fit the account's
	// bound (see fits).
	ErrValueRange = "order_value_out_of_range"
	// ErrAmountRange: a deposit the balance cannot take.
	ErrAmountRange = "amount out of range"
)

// exposureFactor bounds how far one lot can move a balance over its life
// (open fee, realized pnl, close fee: each at most the lot's worst-case
// value), with room for truncation.
const exposureFactor = 4

// worst is the worst-case value (micro) of lots of in: at the top of its
// price grid, whatever price they trade at.
func worst(in *Instrument, lots int64) (int64, bool) { return valueMicro(in, in.Ticks-1, lots) }

// exposure is the worst-case value (micro) of a's positions and of the
// unfilled part of its open orders (in flight included). ok is false if it
// does not fit. The sum is over non-negative terms, so map order does not
// matter.
func (m *Machine) exposure(a *Account) (int64, bool) {
	var sum int64
	if len(a.Positions) == 0 && len(a.Open) == 0 {
		return 0, true // a batch's usual account: no map iteration to start
	}
	for iid, p := range a.Positions {
		v, ok := worst(m.inst[iid], p.Size)
		if !ok {
			return 0, false
		}
		if sum, ok = add(sum, v); !ok {
			return 0, false
		}
	}
	for oid := range a.Open {
		o := m.orders[oid]
		v, ok := worst(m.inst[o.IID], o.Lots-o.Filled)
		if !ok {
			return 0, false
		}
		if sum, ok = add(sum, v); !ok {
			return 0, false
		}
	}
	return sum, true
}

// fits reports whether a may take extra more worst-case value (micro) and
// a balance change of delta: |balance+delta| + exposureFactor×(exposure +
// extra) must fit an int64. Holding this at every deposit, placement and
// modify keeps every later fill, fee and pnl of the account's orders
// inside int64 (each moves the balance by at most exposureFactor times the
// value it consumes), so those steps, which cannot refuse, never overflow.
func (m *Machine) fits(a *Account, extra, delta int64) bool {
	bal, ok := add(a.Balance, delta)
	if !ok || bal == math.MinInt64 {
		return false
	}
	exp, ok := m.exposure(a)
	if !ok {
		return false
	}
	if exp, ok = add(exp, extra); !ok {
		return false
	}
	need, ok := mul(exp, exposureFactor)
	if !ok {
		return false
	}
	_, ok = add(abs(bal), need)
	return ok
}

// satAdd is a+b for non-negative statistics (volumes, open interest),
// which stop at the int64 maximum instead of failing: they are shown and
// ranked, never paid out.
func satAdd(a, b int64) int64 {
	if s, ok := add(a, b); ok {
		return s
	}
	if b > 0 {
		return math.MaxInt64
	}
	return math.MinInt64
}
