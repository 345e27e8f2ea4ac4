package ledger

import (
	"fmt"
	"slices"
)

// Batch holds what a stream has declared so far, for the checks that span
// lines. Everything here is checkable without a store; the store re-checks
// what needs its own state (e.g. that a trade's token exists at all).
//
// Invariants enforced, for markets and combos declared earlier in the stream
// (or known through Lookup):
//   - a market re-declared (to update flags) keeps its outcomes and token ids;
//   - a token id belongs to one market only;
//   - a resolution has one payout per outcome of its market;
//   - a combo leg's outcome index is an outcome of the leg's market;
//   - a combo trade's or activity's outcome index is an outcome of the combo;
//   - a conversion's markets, when all are declared here, are neg-risk
//     markets of one event (group).
type Batch struct {
	// Lookup, if set, reports the outcome count of a market or combo (by
	// condition or combo condition id) that the stream has not declared.
	Lookup func(conditionID string) (outcomes int, ok bool)

	markets map[string][]string // condition id -> token ids in outcome order
	labels  map[string][]string // condition id -> outcome labels
	tokens  map[string]string   // token id -> condition id
	group   map[string]int64    // neg-risk condition id -> event id
}

// Check applies the cross-line rules to e (already validated on its own)
// and records what e declares.
func (b *Batch) Check(e *Event) error {
	switch e.Kind {
	case KindMarket, KindComboMarket:
		id := e.ConditionID
		if e.Kind == KindComboMarket {
			id = e.ComboConditionID
		}
		if err := b.declare(id, e.Outcomes, e.TokenIDs); err != nil {
			return fmt.Errorf("%s: %w", e.Kind, err)
		}
		if e.Kind == KindMarket {
			if e.NegRisk {
				b.group[id] = e.EventID
			} else {
				delete(b.group, id)
			}
		}
		if e.Kind == KindComboMarket {
			for _, l := range e.Legs {
				if n, ok := b.outcomes(l.ConditionID); ok && l.OutcomeIndex >= n {
					return fmt.Errorf("%s: leg %s has no outcome %d", e.Kind, l.ConditionID, l.OutcomeIndex)
				}
			}
		}
	case KindResolution:
		if n, ok := b.outcomes(e.ConditionID); ok && len(e.Payouts) != n {
			return fmt.Errorf("%s: %d payouts for a market with %d outcomes", e.Kind, len(e.Payouts), n)
		}
	case KindConversion:
		return b.checkConversion(e)
	case KindComboTrade, KindComboActivity:
		if n, ok := b.outcomes(e.ComboConditionID); ok && e.OutcomeIndex >= n {
			return fmt.Errorf("%s: combo has no outcome %d", e.Kind, e.OutcomeIndex)
		}
	}
	return nil
}

func (b *Batch) declare(id string, labels, tokens []string) error {
	if b.markets == nil {
		b.markets = make(map[string][]string)
		b.labels = make(map[string][]string)
		b.tokens = make(map[string]string)
		b.group = make(map[string]int64)
	}
	if old, ok := b.markets[id]; ok {
		if !slices.Equal(old, tokens) || !slices.Equal(b.labels[id], labels) {
			return fmt.Errorf("%s re-declared with different outcomes or token_ids", id)
		}
		return nil
	}
	for _, t := range tokens {
		if other, ok := b.tokens[t]; ok {
			return fmt.Errorf("token id %s already belongs to %s", t, other)
		}
	}
	for _, t := range tokens {
		b.tokens[t] = id
	}
	b.markets[id] = slices.Clone(tokens)
	b.labels[id] = slices.Clone(labels)
	return nil
}

func (b *Batch) outcomes(id string) (int, bool) {
	if t, ok := b.markets[id]; ok {
		return len(t), true
	}
	if b.Lookup != nil {
		return b.Lookup(id)
	}
	return 0, false
}

func (b *Batch) checkConversion(e *Event) error {
	var ev int64
	for i, c := range e.ConditionIDs {
		if _, known := b.markets[c]; !known {
			return nil // declared elsewhere: the store checks
		}
		g, ok := b.group[c]
		if !ok {
			return fmt.Errorf("%s: %s is not a neg-risk market", e.Kind, c)
		}
		if i > 0 && g != ev {
			return fmt.Errorf("%s: markets of different neg-risk groups", e.Kind)
		}
		ev = g
	}
	return nil
}
