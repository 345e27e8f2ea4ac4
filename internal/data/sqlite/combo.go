package sqlite

import (
	"fmt"
	"strings"

	"pmx/internal/amount"
	gamma "pmx/internal/catalog/catalog"
	"pmx/internal/data/ledger"
)

// comboMarket registers a combo condition: its outcomes (default Yes/No),
// position ids and legs. Its title is the legs' questions joined with " / ".
func (a *applier) comboMarket(e *ledger.Event) error {
	m := a.cat.byCond[e.ComboConditionID]
	if m == nil {
		m = &market{mid: a.cat.nextMid, conditionID: e.ComboConditionID, active: true, isCombo: true}
		a.cat.nextMid++
		a.cat.addMarket(m)
	}
	if !m.isCombo {
		return fmt.Errorf("condition %s is not a combo", e.ComboConditionID)
	}
	outcomes := e.Outcomes
	if len(outcomes) == 0 {
		outcomes = []string{"Yes", "No"}
	}
	if len(outcomes) != len(e.TokenIDs) {
		return fmt.Errorf("combo %s: %d outcomes for %d position ids", e.ComboConditionID, len(outcomes), len(e.TokenIDs))
	}
	titles := make([]string, 0, len(e.Legs))
	for _, l := range e.Legs {
		if lm := a.cat.byCond[l.ConditionID]; lm != nil {
			titles = append(titles, lm.question)
		}
	}
	title := strings.Join(titles, " / ")
	if len(titles) < len(e.Legs) && e.Question != "" {
		title = e.Question // legs not listed yet: the ledger's own title
	}
	m.outcomes, m.legs, m.question, m.dirty = outcomes, e.Legs, title, true
	m.marketID = gamma.DerivedMarketID(e.ComboConditionID)
	for i, id := range e.TokenIDs {
		t := a.token(id)
		t.mid, t.idx, t.outcome, t.dirty = m.mid, i, outcomes[i], true
	}
	a.cat.relink()
	return nil
}

func (a *applier) comboToken(e *ledger.Event) (*market, *token, error) {
	m := a.cat.byCond[e.ComboConditionID]
	if m == nil || !m.isCombo {
		return nil, nil, fmt.Errorf("unknown combo %s", e.ComboConditionID)
	}
	if e.OutcomeIndex < 0 || e.OutcomeIndex >= len(m.tokens) || m.tokens[e.OutcomeIndex] == nil {
		return nil, nil, fmt.Errorf("combo %s has no outcome %d", e.ComboConditionID, e.OutcomeIndex)
	}
	return m, m.tokens[e.OutcomeIndex], nil
}

// comboTrade: the user's buy or sell of a combo outcome, with the same
// weighted-average accounting as a market position. It shows in /v2/activity
// (is_combo) but not in /v2/trades and not in the market volume figures.
func (a *applier) comboTrade(e *ledger.Event) error {
	m, t, err := a.comboToken(e)
	if err != nil {
		return err
	}
	w, err := a.party(e.User, e)
	if err != nil {
		return err
	}
	p := w.combo(t.tid, m.mid)
	notional := amount.Mul(e.Price, e.Size)
	side := sideBuy
	if e.Side == "SELL" {
		side = sideSell
		if err := p.need(e.User, "combo token "+t.tokenID, e.Size); err != nil {
			return err
		}
		w.c.realizedCombo += p.dispose(e.Size, notional, e.FeeUSDC, e.Timestamp)
	} else {
		p.acquire(e.Size, notional, e.FeeUSDC, e.Timestamp)
	}
	w.c.fees += e.FeeUSDC
	return a.insert(e, actRow{w: w, typ: actTrade, m: m, t: t, side: side, size: e.Size, usdc: notional,
		price: e.Price, taker: rowCombo})
}

// comboActivity, per docs/ledger-events.md: SPLIT acquires size of both
// outcomes at 1/2; MERGE disposes of size of both at 1/2; REDEEM disposes of
// size of the named outcome for payout_usdc; CONVERT, COMPRESS, WRAP and
// UNWRAP only touch updated_at.
func (a *applier) comboActivity(e *ledger.Event) error {
	m, t, err := a.comboToken(e)
	if err != nil {
		return err
	}
	w, err := a.party(e.User, e)
	if err != nil {
		return err
	}
	half := amount.Div(e.Size, 2*amount.One)
	var payout any
	// Every type but SPLIT moves shares the user must hold (MERGE: of both
	// outcomes).
	switch e.Type {
	case "MERGE":
		for _, ot := range m.tokens {
			if err := w.combos[ot.tid].need(e.User, "combo token "+ot.tokenID, e.Size); err != nil {
				return err
			}
		}
	case "REDEEM", "CONVERT", "COMPRESS", "WRAP", "UNWRAP":
		if err := w.combos[t.tid].need(e.User, "combo token "+t.tokenID, e.Size); err != nil {
			return err
		}
	}
	switch e.Type {
	case "SPLIT":
		for _, ot := range m.tokens {
			w.combo(ot.tid, m.mid).acquire(e.Size, half, 0, e.Timestamp)
		}
	case "MERGE":
		for _, ot := range m.tokens {
			w.c.realizedCombo += w.combo(ot.tid, m.mid).dispose(e.Size, half, 0, e.Timestamp)
		}
	case "REDEEM":
		p := w.combo(t.tid, m.mid)
		payout = int64(e.PayoutUSDC)
		p.payout += e.PayoutUSDC
		w.c.realizedCombo += p.dispose(e.Size, e.PayoutUSDC, 0, e.Timestamp)
		if e.PayoutUSDC > 0 && p.realized > w.biggestWin && p.realized > amount.One {
			w.biggestWin = p.realized
		}
	case "CONVERT", "COMPRESS", "WRAP", "UNWRAP":
		w.combo(t.tid, m.mid).touch(e.Timestamp)
	default:
		return fmt.Errorf("unknown combo activity type %q", e.Type)
	}
	var cash any
	if e.AmountUSDC != 0 {
		cash = int64(e.AmountUSDC)
	}
	seq := seqOf(e)
	_, err = a.insCombo.ExecContext(a.ctx, seq, w.wid, e.Timestamp, e.BlockNumber, e.LogIndex, e.Type, m.mid, t.tid,
		cash, payout, e.TxHash)
	return dupErr(err, e)
}
