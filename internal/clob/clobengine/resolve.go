package clobengine

import (
	"maps"
	"math/bits"
	"slices"

	"pmx/internal/clob/clob"
)

// Resolution is a resolved market's settlement. Pool is the collateral
// (units) still owed to its holders: the outstanding full sets at
// resolution, less what redemptions paid. Each redemption pays floor(shares ×
// payout) per outcome, as the chain's redeemPositions does, so the pool
// never goes below zero and keeps the rounding dust.
type Resolution struct {
	Payouts [2]int64 `json:"payouts"` // micro-USDC per share of each outcome, summing to 1,000,000
	At      int64    `json:"at"`      // ms
	Pool    int64    `json:"pool"`
	Auto    bool     `json:"auto,omitempty"` // the automatic redemption ran
}

const payoutOne = 1_000_000

// resolve settles a market with its payouts: its live and delayed orders
// are canceled (reservations released), trading stops for good, and its
// tokens become claims on the pool.
func (m *Machine) resolve(seq uint64, ts int64, c *Command) Result {
	mk, err := m.openMarket(c.Cond)
	if err != nil {
		return Result{Err: err}
	}
	if len(c.Payouts) != 2 {
		return Result{Err: clob.E(clob.ErrInvalidPayouts)}
	}
	var sum int64
	for _, p := range c.Payouts {
		if p < 0 || p > payoutOne {
			return Result{Err: clob.E(clob.ErrInvalidPayouts)}
		}
		sum += p
	}
	if sum != payoutOne {
		return Result{Err: clob.E(clob.ErrInvalidPayouts)}
	}
	var hit []*Order
	for _, o := range m.orders {
		if o.Mkt == mk.ID {
			hit = append(hit, o)
		}
	}
	slices.SortFunc(hit, func(a, b *Order) int { return cmpInt(int64(a.OID), int64(b.OID)) })
	r := Result{Canceled: make([]string, 0, len(hit)), NotCanceled: map[string]string{}}
	for _, o := range hit {
		m.cancelOrder(o, StatusCanceled)
		r.Canceled = append(r.Canceled, o.Hash)
	}
	var supply int64 // of outcome 0, equal to outcome 1's: the outstanding sets
	for _, a := range m.accts {
		if t := a.Tokens[mk.Tokens[0].ID]; t != nil {
			supply += t.Free + t.Resv
		}
	}
	mk.Res = &Resolution{Payouts: [2]int64{c.Payouts[0], c.Payouts[1]}, At: ts, Pool: supply * Unit}
	mk.Closed, mk.Accepting = true, false
	m.keepSet(SetOp{Cmd: seq, Time: ts, Op: OpResolve, Cond: c.Cond, Payouts: slices.Clone(c.Payouts)}, &r)
	return r
}

// redeem is redeemPositions: the holder's whole holding of both outcomes
// is burned for floor(shares × payout) of each. OpRedeemAll redeems every
// holder (address order) once: the automatic redemption.
func (m *Machine) redeem(seq uint64, ts int64, c *Command) Result {
	mk := m.MarketByCond(c.Cond)
	if mk == nil {
		return Result{Err: clob.E(clob.ErrMarketNotFound)}
	}
	if mk.Res == nil {
		return Result{Err: clob.E(clob.ErrMarketNotResolved)}
	}
	var r Result
	if c.Op == OpRedeem {
		a := m.accts[c.Addr]
		if a == nil || c.Addr == "" {
			return Result{Err: clob.E(clob.ErrNothingToRedeem)}
		}
		st, err := m.redeemOne(a, mk)
		if err != nil {
			return Result{Err: err}
		}
		st.Cmd, st.Time = seq, ts
		m.keepSet(st, &r)
		return r
	}
	if mk.Res.Auto {
		return r
	}
	mk.Res.Auto = true
	for _, addr := range slices.Sorted(maps.Keys(m.accts)) {
		st, err := m.redeemOne(m.accts[addr], mk)
		if err != nil {
			continue // holds nothing here
		}
		st.Cmd, st.Time = seq, ts
		m.keepSet(st, &r)
	}
	return r
}

func (m *Machine) redeemOne(a *Account, mk *Market) (SetOp, *clob.Error) {
	var shares, paid int64
	held := false
	for i, tk := range mk.Tokens {
		t := a.Tokens[tk.ID]
		if t == nil || t.Free+t.Resv == 0 {
			continue
		}
		held = true
		q := t.Free + t.Resv // Resv is 0: resolution canceled the market's orders
		shares += q
		paid += mulDivFloor(q, mk.Res.Payouts[i], payoutOne)
	}
	if !held {
		return SetOp{}, clob.E(clob.ErrNothingToRedeem)
	}
	units := paid * Unit // paid ≤ shares of one set ≤ maxTotal/Unit
	if units > mk.Res.Pool {
		return SetOp{}, clob.E(clob.ErrInternal) // unreachable: the pool backs every claim
	}
	for _, tk := range mk.Tokens {
		delete(a.Tokens, tk.ID)
	}
	mk.Res.Pool -= units
	a.Coll += units
	return SetOp{Op: OpRedeem, Addr: a.Addr, Cond: mk.ConditionID, Amount: shares, Paid: paid}, nil
}

// mulDivFloor is ⌊a·b/c⌋ for non-negative a, b and c > 0 whose result fits
// int64, without intermediate overflow.
func mulDivFloor(a, b, c int64) int64 {
	hi, lo := bits.Mul64(uint64(a), uint64(b))
	q, _ := bits.Div64(hi, lo, uint64(c))
	return int64(q)
}

// RedeemDue lists the resolved markets whose automatic redemption has not
// run and whose resolution is at least delay ms old at now (ms).
func (m *Machine) RedeemDue(now, delay int64) []string {
	var out []string
	for _, mk := range m.markets {
		if mk.Res != nil && !mk.Res.Auto && mk.Res.At+delay <= now {
			out = append(out, mk.ConditionID)
		}
	}
	return out
}
