package demo

import (
	"fmt"

	"pmx/internal/amount"
	"pmx/internal/data/ledger"
)

// replay re-derives holdings from a parsed ledger by the rules of
// docs/ledger-events.md, independently of the generator, and reports the
// first event that breaks one: a seller without the tokens, a merge of an
// incomplete set, a redeem before resolution or without a paying holding,
// trading a closed market, or out-of-order chain events.
type replay struct {
	markets map[string]*rMarket
	tokens  map[string]rToken
	groups  map[int64][]string // neg-risk event id -> condition ids
	combos  map[string]*rCombo
	hold    map[[2]string]amount.Micro // (address, token id) -> shares
	txs     map[string]bool

	lastTS, lastBlock, lastLog int64
	counts                     map[ledger.Kind]int
}

type rMarket struct {
	tokens  []string
	eventID int64
	negRisk bool
	closed  bool
	payouts []amount.Micro
}

type rToken struct {
	cond    string // market or combo condition
	combo   bool
	outcome int
}

type rCombo struct {
	tokens []string
	legs   []ledger.ComboLeg
}

func newReplay() *replay {
	return &replay{markets: map[string]*rMarket{}, tokens: map[string]rToken{}, groups: map[int64][]string{},
		combos: map[string]*rCombo{}, hold: map[[2]string]amount.Micro{}, txs: map[string]bool{},
		counts: map[ledger.Kind]int{}}
}

func (r *replay) add(user, tok string, d amount.Micro) error {
	k := [2]string{user, tok}
	if r.hold[k]+d < 0 {
		return fmt.Errorf("%s would hold %s of %s", user, r.hold[k]+d, tok)
	}
	r.hold[k] += d
	return nil
}

func (r *replay) liveMarket(cond string) (*rMarket, error) {
	m := r.markets[cond]
	switch {
	case m == nil:
		return nil, fmt.Errorf("unknown market %s", cond)
	case m.payouts != nil || m.closed:
		return nil, fmt.Errorf("market %s is closed", cond)
	}
	return m, nil
}

func (r *replay) apply(e *ledger.Event) error {
	r.counts[e.Kind]++
	if e.Kind.Onchain() {
		if e.Timestamp < r.lastTS || e.BlockNumber < r.lastBlock ||
			e.BlockNumber == r.lastBlock && e.LogIndex <= r.lastLog {
			return fmt.Errorf("out of order: ts %d block %d log %d after ts %d block %d log %d",
				e.Timestamp, e.BlockNumber, e.LogIndex, r.lastTS, r.lastBlock, r.lastLog)
		}
		if r.txs[e.TxHash] {
			return fmt.Errorf("tx hash reused")
		}
		r.txs[e.TxHash] = true
		r.lastTS, r.lastBlock, r.lastLog = e.Timestamp, e.BlockNumber, e.LogIndex
	}
	switch e.Kind {
	case ledger.KindMarket:
		if m := r.markets[e.ConditionID]; m != nil {
			m.closed = *e.Closed
			return nil
		}
		r.markets[e.ConditionID] = &rMarket{tokens: e.TokenIDs, eventID: e.EventID, negRisk: e.NegRisk, closed: *e.Closed}
		for i, t := range e.TokenIDs {
			r.tokens[t] = rToken{cond: e.ConditionID, outcome: i}
		}
		if e.NegRisk {
			r.groups[e.EventID] = append(r.groups[e.EventID], e.ConditionID)
		}
	case ledger.KindTrade:
		tk, ok := r.tokens[e.TokenID]
		if !ok || tk.combo {
			return fmt.Errorf("trade of unknown token")
		}
		if _, err := r.liveMarket(tk.cond); err != nil {
			return err
		}
		buyer, seller := e.Taker, e.Maker
		if e.Side == "SELL" {
			buyer, seller = seller, buyer
		}
		if err := r.add(seller, e.TokenID, -e.Size); err != nil {
			return err
		}
		return r.add(buyer, e.TokenID, e.Size)
	case ledger.KindSplit, ledger.KindMerge:
		m, err := r.liveMarket(e.ConditionID)
		if err != nil {
			return err
		}
		d := e.Amount
		if e.Kind == ledger.KindMerge {
			d = -d
		}
		for _, t := range m.tokens {
			if err := r.add(e.User, t, d); err != nil {
				return err
			}
		}
	case ledger.KindResolution:
		m := r.markets[e.ConditionID]
		if m == nil || m.payouts != nil {
			return fmt.Errorf("resolution of unknown or resolved market")
		}
		m.payouts = e.Payouts
	case ledger.KindRedeem:
		m := r.markets[e.ConditionID]
		if m == nil || m.payouts == nil {
			return fmt.Errorf("redeem before resolution")
		}
		paying := false
		for i, t := range m.tokens {
			k := [2]string{e.User, t}
			paying = paying || r.hold[k] > 0 && m.payouts[i] > 0
			delete(r.hold, k)
		}
		if !paying {
			return fmt.Errorf("redeem without a paying holding")
		}
	case ledger.KindConversion:
		first := r.markets[e.ConditionIDs[0]]
		if first == nil || !first.negRisk {
			return fmt.Errorf("conversion outside a neg-risk group")
		}
		in := map[string]bool{}
		for _, c := range e.ConditionIDs {
			m, err := r.liveMarket(c)
			if err != nil {
				return err
			}
			if m.eventID != first.eventID {
				return fmt.Errorf("conversion across groups")
			}
			in[c] = true
			if err := r.add(e.User, m.tokens[1], -e.Amount); err != nil {
				return err
			}
		}
		for _, c := range r.groups[first.eventID] {
			if !in[c] {
				r.add(e.User, r.markets[c].tokens[0], e.Amount)
			}
		}
	case ledger.KindComboMarket:
		for _, l := range e.Legs {
			if _, err := r.liveMarket(l.ConditionID); err != nil {
				return fmt.Errorf("combo leg: %w", err)
			}
		}
		r.combos[e.ComboConditionID] = &rCombo{tokens: e.TokenIDs, legs: e.Legs}
		for i, t := range e.TokenIDs {
			r.tokens[t] = rToken{cond: e.ComboConditionID, combo: true, outcome: i}
		}
	case ledger.KindComboTrade:
		c, err := r.liveCombo(e.ComboConditionID)
		if err != nil {
			return err
		}
		d := e.Size
		if e.Side == "SELL" {
			d = -d
		}
		return r.add(e.User, c.tokens[e.OutcomeIndex], d)
	case ledger.KindComboActivity:
		c := r.combos[e.ComboConditionID]
		if c == nil {
			return fmt.Errorf("unknown combo")
		}
		switch e.Type {
		case "SPLIT", "MERGE":
			if _, err := r.liveCombo(e.ComboConditionID); err != nil {
				return err
			}
			if e.AmountUSDC != e.Size {
				return fmt.Errorf("combo %s cash %s != size %s", e.Type, e.AmountUSDC, e.Size)
			}
			d := e.Size
			if e.Type == "MERGE" {
				d = -d
			}
			for _, t := range c.tokens {
				if err := r.add(e.User, t, d); err != nil {
					return err
				}
			}
		case "REDEEM":
			yes := amount.One
			for _, l := range c.legs {
				m := r.markets[l.ConditionID]
				if m.payouts == nil {
					return fmt.Errorf("combo redeem before every leg resolved")
				}
				yes = amount.Mul(yes, m.payouts[l.OutcomeIndex])
			}
			pay := []amount.Micro{yes, amount.One - yes}[e.OutcomeIndex]
			if pay == 0 || e.PayoutUSDC != amount.Mul(e.Size, pay) {
				return fmt.Errorf("combo redeem pays %s for %s at %s", e.PayoutUSDC, e.Size, pay)
			}
			return r.add(e.User, c.tokens[e.OutcomeIndex], -e.Size)
		default: // position-neutral, but only of a holding
			if r.hold[[2]string{e.User, c.tokens[e.OutcomeIndex]}] < e.Size {
				return fmt.Errorf("combo %s beyond holding", e.Type)
			}
		}
	}
	return nil
}

func (r *replay) liveCombo(id string) (*rCombo, error) {
	c := r.combos[id]
	if c == nil {
		return nil, fmt.Errorf("unknown combo")
	}
	for _, l := range c.legs {
		if _, err := r.liveMarket(l.ConditionID); err != nil {
			return nil, fmt.Errorf("combo leg: %w", err)
		}
	}
	return c, nil
}
