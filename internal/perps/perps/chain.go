package perps

import (
	"math"

	"pmx/internal/chain"
)

// Deposits and withdrawals on the simulated chain (internal/chain): an item
// is sent at its command's time and its confirmations follow the chain's
// height, read at each command's time (the service submits a KTick when the
// next block of a waiting item is due), so replay reaches the same states.
//
// Journals written before internal/chain confirm their items with `block`
// records instead; such items (BlockTime 0) still count those records, and a
// `block` record with a BlockTime, written once by a newer service finding
// some, puts them on the chain with the confirmations they have.

// Chain is a deposit's or withdrawal's place on the chain. All zero: a
// legacy item, confirmed by `block` records.
type Chain struct {
	BlockTime int64 `json:"bt,omitempty"`   // ms
	Sent      int64 `json:"sent,omitempty"` // ms: its first block is the next one
	Base      int64 `json:"base,omitempty"` // confirmations it had when adopted from legacy blocks
}

// sentAt is the place on the chain of an item c creates at ts; zero (a
// legacy item) for a record without a block time.
func sentAt(c *Command, ts int64) Chain {
	if c.BlockTime <= 0 {
		return Chain{}
	}
	return Chain{BlockTime: c.BlockTime, Sent: ts}
}

func (c *Chain) params(req int64) chain.Params {
	return chain.Params{BlockTime: c.BlockTime, Confirmations: req}
}

// conf is the item's confirmations at ts, at most req.
func (c *Chain) conf(req, ts int64) int64 {
	d := c.params(req).Depth(c.Sent, ts)
	if d >= req-c.Base {
		return max(req, c.Base)
	}
	return c.Base + d
}

// at is when the block giving the item its n-th confirmation (n > Base) is
// mined.
func (c *Chain) at(req, n int64) int64 {
	p := c.params(req)
	h, k := p.Height(c.Sent), n-c.Base
	if h > math.MaxInt64-k {
		return math.MaxInt64
	}
	return p.Time(h + k)
}

// chainWaits notes a pending chain item's next block.
func (m *Machine) chainWaits(c *Chain, conf, req int64) {
	if c.BlockTime == 0 || conf >= req {
		return
	}
	if due := c.at(req, conf+1); m.mo.chainDue == 0 || due < m.mo.chainDue {
		m.mo.chainDue = due
	}
}

// NextChainDue is when the next block of a waiting deposit or withdrawal is
// mined (Unix ms; 0 if none waits on the chain).
func (m *Machine) NextChainDue() int64 { return m.mo.chainDue }

// LegacyChainItems reports whether some deposit or withdrawal still waits
// for legacy `block` records (a data dir of a build before internal/chain).
func (m *Machine) LegacyChainItems() bool {
	for _, w := range m.mo.pending {
		if w.BlockTime == 0 {
			return true
		}
	}
	for _, r := range m.mo.deps {
		if m.findDeposit(r).BlockTime == 0 {
			return true
		}
	}
	return false
}

// chainStep advances the chain's waiting items to ts once a block is due.
func (m *Machine) chainStep(ts int64, ev *Event) {
	if m.mo.chainDue == 0 || ts < m.mo.chainDue {
		return
	}
	keep := m.mo.pending[:0]
	for _, w := range m.mo.pending {
		if w.BlockTime == 0 {
			keep = append(keep, w)
			continue
		}
		if n := w.conf(w.Required, ts); n > w.Conf {
			w.Conf = n
			if w.Hash == "" {
				w.Hash = withdrawalHash(w)
			}
			if n >= w.Required {
				w.Status, w.Confirmed = WConfirmed, w.at(w.Required, w.Required)
			}
			ev.Withdrawals = append(ev.Withdrawals, *w)
		}
		if w.Status == WPending {
			keep = append(keep, w)
		}
	}
	clear(m.mo.pending[len(keep):])
	m.mo.pending = keep
	deps := m.mo.deps[:0]
	for _, r := range m.mo.deps {
		d := m.findDeposit(r)
		if d.BlockTime != 0 {
			if n := d.conf(d.Req, ts); n > d.Conf {
				d.Conf = n
				if n >= d.Req {
					d.Confirmed = d.at(d.Req, d.Req)
				}
				ev.Deposits = append(ev.Deposits, DepositUpdate{Account: r.Addr, Deposit: d.Wire(r.Addr)})
			}
		}
		if d.Conf < d.Req {
			deps = append(deps, r)
		}
	}
	m.mo.deps = deps
	m.mo.chainDue = m.nextChainDue()
}

// nextChainDue recomputes chainDue from the waiting items.
func (m *Machine) nextChainDue() int64 {
	m.mo.chainDue = 0
	for _, w := range m.mo.pending {
		m.chainWaits(&w.Chain, w.Conf, w.Required)
	}
	for _, r := range m.mo.deps {
		d := m.findDeposit(r)
		m.chainWaits(&d.Chain, d.Conf, d.Req)
	}
	return m.mo.chainDue
}

// adoptLegacy puts the items waiting for legacy blocks on the chain, with the
// confirmations they have, as sent at ts.
func (m *Machine) adoptLegacy(blockTime, ts int64) {
	for _, w := range m.mo.pending {
		if w.BlockTime == 0 {
			w.Chain = Chain{BlockTime: blockTime, Sent: ts, Base: w.Conf}
		}
	}
	for _, r := range m.mo.deps {
		if d := m.findDeposit(r); d.BlockTime == 0 {
			d.Chain = Chain{BlockTime: blockTime, Sent: ts, Base: d.Conf}
		}
	}
	m.mo.chainDue = m.nextChainDue()
}
