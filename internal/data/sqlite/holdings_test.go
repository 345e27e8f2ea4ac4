package sqlite

import (
	"pmx/internal/amount"
	"pmx/internal/data/ledger"
)

// Holdings tracks what each wallet holds of each token while a test
// generates a ledger, so generators keep the ledger's rule that nobody
// disposes of shares they do not hold (docs/ledger-events.md): Need gives
// the split a seller must make first. Exported for the external test
// package's generators.
type Holdings struct {
	held   map[[2]string]amount.Micro // (address, token) → shares
	tokens map[string][]string        // condition → token ids
	cond   map[string]string          // token → condition
}

func NewHoldings() *Holdings {
	return &Holdings{held: map[[2]string]amount.Micro{}, tokens: map[string][]string{}, cond: map[string]string{}}
}

// Clone copies h (to roll back with a batch that is meant to fail).
func (h *Holdings) Clone() *Holdings {
	c := NewHoldings()
	for k, v := range h.held {
		c.held[k] = v
	}
	for k, v := range h.tokens {
		c.tokens[k] = v
	}
	for k, v := range h.cond {
		c.cond[k] = v
	}
	return c
}

// Need returns the split (no envelope) that gives e's disposer enough
// shares, or nil when e disposes of nothing it lacks.
func (h *Holdings) Need(e ledger.Event) *ledger.Event {
	split := func(user, cond string, amt amount.Micro) *ledger.Event {
		return &ledger.Event{Kind: ledger.KindSplit, User: user, ConditionID: cond, Amount: amt}
	}
	switch e.Kind {
	case ledger.KindTrade:
		seller := e.Maker
		if e.Side == "SELL" {
			seller = e.Taker
		}
		if h.held[[2]string{seller, e.TokenID}] < e.Size {
			return split(seller, h.cond[e.TokenID], e.Size)
		}
	case ledger.KindMerge:
		for _, t := range h.tokens[e.ConditionID] {
			if h.held[[2]string{e.User, t}] < e.Amount {
				return split(e.User, e.ConditionID, e.Amount)
			}
		}
	}
	return nil
}

// Apply records e's effect on holdings.
func (h *Holdings) Apply(e ledger.Event) {
	switch e.Kind {
	case ledger.KindMarket:
		h.tokens[e.ConditionID] = e.TokenIDs
		for _, t := range e.TokenIDs {
			h.cond[t] = e.ConditionID
		}
	case ledger.KindTrade:
		buyer, seller := e.Taker, e.Maker
		if e.Side == "SELL" {
			buyer, seller = seller, buyer
		}
		h.held[[2]string{buyer, e.TokenID}] += e.Size
		h.held[[2]string{seller, e.TokenID}] -= e.Size
	case ledger.KindSplit, ledger.KindMerge:
		d := e.Amount
		if e.Kind == ledger.KindMerge {
			d = -d
		}
		for _, t := range h.tokens[e.ConditionID] {
			h.held[[2]string{e.User, t}] += d
		}
	case ledger.KindRedeem:
		for _, t := range h.tokens[e.ConditionID] {
			delete(h.held, [2]string{e.User, t})
		}
	}
}
