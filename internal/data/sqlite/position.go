package sqlite

import (
	"fmt"

	"pmx/internal/amount"
)

// position is one wallet's holding of one token (or combo position) with its
// weighted-average cost accounting. Invariants: size ≥ 0; cost ≥ 0; cost is
// the fee-exclusive basis of exactly the shares in size (0 when size is 0).
type position struct {
	tid, mid int64
	size     amount.Micro
	cost     amount.Micro
	fees     amount.Micro // lifetime BUY fees: disclosed, never deducted again
	avg      amount.Micro // average entry price; kept after the holding closes
	bought   amount.Micro // lifetime acquired shares
	realized amount.Micro
	payout   amount.Micro // combos: redemption payouts received
	firstAt  int64
	lastAt   int64
	traded   bool
	dirty    bool
}

// acquire adds size shares bought for cost (fee-exclusive) plus fee.
func (p *position) acquire(size, cost, fee amount.Micro, ts int64) {
	p.size += size
	p.cost += cost
	p.fees += fee
	p.bought += size
	if p.size > 0 {
		p.avg = amount.Div(p.cost, p.size)
	}
	if p.firstAt == 0 || ts < p.firstAt {
		p.firstAt = ts
	}
	p.touch(ts)
}

// dispose removes size shares for proceeds, charging fee against the
// realized PnL, and returns the realized delta. The removed basis is the
// proportional share of cost. Callers check the holding first (need):
// disposing of more than is held is an invalid event.
func (p *position) dispose(size, proceeds, fee amount.Micro, ts int64) amount.Micro {
	d := proceeds - p.removeAtCost(size, ts) - fee
	p.realized += d
	return d
}

// need refuses a disposal of more than the holding (docs/ledger-events.md,
// "Position accounting"): shares are never created by selling, merging or
// redeeming, so every outcome's supply stays what splits and buys made it.
func (p *position) need(who, what string, size amount.Micro) error {
	if p != nil && size <= p.size {
		return nil
	}
	var held amount.Micro
	if p != nil {
		held = p.size
	}
	return fmt.Errorf("%s holds %s of %s and cannot dispose of %s", who, held, what, size)
}

// removeAtCost takes size shares out at their average cost without realizing
// anything and returns the basis removed (neg-risk conversion).
func (p *position) removeAtCost(size amount.Micro, ts int64) amount.Micro {
	held := min(size, p.size)
	var basis amount.Micro
	switch {
	case held <= 0:
	case held == p.size:
		basis = p.cost
	default:
		basis = amount.MulDiv(p.cost, held, p.size)
	}
	p.size -= held
	p.cost -= basis
	p.touch(ts)
	return basis
}

func (p *position) touch(ts int64) {
	if ts > p.lastAt {
		p.lastAt = ts
	}
	p.dirty = true
}
