package clobengine

import (
	"math"

	"pmx/internal/clob/clob"
)

// Account is one maker (funder) address's money. Coll and CollResv are in
// collateral units (1e-10 USDC); tokens are micro-shares.
type Account struct {
	Addr     string               `json:"addr"`
	Coll     int64                `json:"coll"`
	CollResv int64                `json:"coll_resv"`
	Tokens   map[string]*TokenBal `json:"tokens,omitempty"` // by token id
	Volume   [volumeDays]int64    `json:"volume"`           // daily traded notional, units, ring by day
	VolDay   int64                `json:"vol_day"`          // the day (Unix days) of Volume[VolDay%volumeDays]
}

// TokenBal is one outcome token's balance.
type TokenBal struct {
	Free int64 `json:"free"`
	Resv int64 `json:"resv"`
}

const volumeDays = 30

// maxTotal bounds the collateral in the system (units), so that no balance
// or sum of balances can overflow int64.
const maxTotal = math.MaxInt64 / 4

func (m *Machine) acct(addr string) *Account {
	a := m.accts[addr]
	if a == nil {
		a = &Account{Addr: addr, Tokens: map[string]*TokenBal{}}
		m.accts[addr] = a
	}
	return a
}

func (a *Account) tok(id string) *TokenBal {
	t := a.Tokens[id]
	if t == nil {
		t = &TokenBal{}
		a.Tokens[id] = t
	}
	return t
}

// money applies a deposit, withdrawal, split or merge. Amounts are micro
// (collateral) or micro-shares (sets).
func (m *Machine) money(c *Command) *clob.Error {
	if c.Addr == "" || c.Amount <= 0 || c.Amount > maxTotal/Unit {
		return clob.E(clob.ErrInvalidPayload)
	}
	units := c.Amount * Unit
	switch c.Op {
	case OpDeposit:
		if m.deposits > maxTotal-units {
			return clob.E(clob.ErrInvalidPayload)
		}
		if c.Signer != "" && c.Signer != c.Addr {
			// The chain's record that a proxy, Safe or deposit wallet
			// belongs to an EOA: set once, never moved to another signer.
			if b := m.binding[c.Addr]; b != "" && b != c.Signer {
				return clob.E(clob.ErrSignerMismatch)
			}
			m.binding[c.Addr] = c.Signer
		}
		m.deposits += units
		m.acct(c.Addr).Coll += units
		return nil
	case OpWithdraw:
		a := m.accts[c.Addr]
		if a == nil || a.Coll < units {
			return clob.E(clob.ErrNotEnoughBalance)
		}
		a.Coll -= units
		m.deposits -= units
		return nil
	}
	mk, err := m.openMarket(c.Cond)
	if err != nil {
		return err
	}
	a := m.accts[c.Addr]
	if c.Op == OpSplit {
		if a == nil || a.Coll < units {
			return clob.E(clob.ErrNotEnoughBalance)
		}
		a.Coll -= units
		a.tok(mk.Tokens[0].ID).Free += c.Amount
		a.tok(mk.Tokens[1].ID).Free += c.Amount
		return nil
	}
	if a == nil || a.tok(mk.Tokens[0].ID).Free < c.Amount || a.tok(mk.Tokens[1].ID).Free < c.Amount {
		return clob.E(clob.ErrNotEnoughBalance)
	}
	a.tok(mk.Tokens[0].ID).Free -= c.Amount
	a.tok(mk.Tokens[1].ID).Free -= c.Amount
	a.Coll += units
	return nil
}

// addVolume records traded notional (units) for the tier computation.
func (a *Account) addVolume(ts, units int64) {
	day := ts / 86_400_000
	a.rollTo(day)
	a.Volume[day%volumeDays] += units
}

func (a *Account) rollTo(day int64) {
	if day <= a.VolDay {
		return
	}
	if day-a.VolDay >= volumeDays {
		a.Volume = [volumeDays]int64{}
	} else {
		for d := a.VolDay + 1; d <= day; d++ {
			a.Volume[d%volumeDays] = 0
		}
	}
	a.VolDay = day
}

// Volume30d is addr's traded notional (micro-USDC) over the 30 days ending
// at ts.
func (m *Machine) Volume30d(addr string, ts int64) int64 {
	a := m.accts[addr]
	if a == nil {
		return 0
	}
	day := ts / 86_400_000
	var sum int64
	for d := day - volumeDays + 1; d <= day; d++ {
		if d <= a.VolDay && d > a.VolDay-volumeDays && d >= 0 {
			sum += a.Volume[d%volumeDays]
		}
	}
	return sum / Unit
}

// Balance is addr's collateral (free, micro, floored) or a token's free
// micro-shares.
func (m *Machine) Balance(addr, token string) int64 {
	a := m.accts[addr]
	if a == nil {
		return 0
	}
	if token == "" {
		return a.Coll / Unit
	}
	if t := a.Tokens[token]; t != nil {
		return t.Free
	}
	return 0
}

// Totals is the conservation audit: collateral (free + reserved), the
// outstanding full sets of every market (equal YES and NO supply, checked),
// fees, and deposits net of withdrawals, all in units. ok is false when a
// balance is negative or a market's two supplies differ.
func (m *Machine) Totals() (coll, sets, fees, deposits int64, ok bool) {
	ok = true
	supply := map[string]int64{}
	for _, a := range m.accts {
		if a.Coll < 0 || a.CollResv < 0 {
			ok = false
		}
		coll += a.Coll + a.CollResv
		for id, t := range a.Tokens {
			if t.Free < 0 || t.Resv < 0 {
				ok = false
			}
			supply[id] += t.Free + t.Resv
		}
	}
	for _, mk := range m.markets {
		y, n := supply[mk.Tokens[0].ID], supply[mk.Tokens[1].ID]
		if r := mk.Res; r != nil {
			// A resolved market holds its pool, which must cover every
			// remaining claim at the payouts.
			if r.Pool < 0 || mulDivFloor(y, r.Payouts[0], payoutOne)+mulDivFloor(n, r.Payouts[1], payoutOne) > r.Pool/Unit {
				ok = false
			}
			sets += r.Pool
			continue
		}
		if y != n {
			ok = false
		}
		sets += y * Unit
	}
	// Reservations must equal what the live orders hold.
	resv := map[string]int64{}
	tres := map[string]int64{}
	for _, o := range m.orders {
		if o.Side == 0 {
			resv[o.Maker] += o.Resv
		} else {
			tres[o.Maker+"/"+o.Token] += o.Resv
		}
	}
	for addr, a := range m.accts {
		if a.CollResv != resv[addr] {
			ok = false
		}
		for id, t := range a.Tokens {
			if t.Resv != tres[addr+"/"+id] {
				ok = false
			}
		}
	}
	return coll, sets, m.fees, m.deposits, ok
}
