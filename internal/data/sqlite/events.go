package sqlite

import (
	"fmt"
	"slices"

	"pmx/internal/amount"
	gamma "pmx/internal/catalog/catalog"
	"pmx/internal/data/ledger"
	"pmx/internal/data/store"
)

// market creates or updates a market and its tokens.
func (a *applier) market(e *ledger.Event) error {
	m := a.cat.byCond[e.ConditionID]
	if m == nil {
		m = &market{mid: a.cat.nextMid, conditionID: e.ConditionID, active: true, endDate: ""}
		a.cat.nextMid++
		a.cat.addMarket(m)
	}
	if m.isCombo {
		return fmt.Errorf("condition %s is a combo", e.ConditionID)
	}
	if len(m.outcomes) != 0 && len(m.outcomes) != len(e.Outcomes) {
		return fmt.Errorf("market %s: outcome count changed", e.ConditionID)
	}
	m.marketID = e.MarketID
	if m.marketID == 0 {
		m.marketID = gamma.DerivedMarketID(e.ConditionID)
	}
	m.question, m.slug, m.eventID, m.eventSlug, m.eventTitle = e.Question, e.Slug, e.EventID, e.EventSlug, e.EventTitle
	m.category, m.negRisk, m.endDate, m.icon = e.Category, e.NegRisk, e.EndDate, e.Icon
	m.outcomes = e.Outcomes
	if e.Active != nil {
		m.active = *e.Active
	}
	if e.Closed != nil {
		m.closed = *e.Closed
	}
	if e.Archived != nil {
		m.archived = *e.Archived
	}
	m.dirty = true
	for i, id := range e.TokenIDs {
		t := a.token(id)
		if t.mid != 0 && t.mid != m.mid {
			return fmt.Errorf("token %s already belongs to another market", id)
		}
		t.mid, t.idx, t.outcome, t.dirty = m.mid, i, e.Outcomes[i], true
	}
	a.cat.relink()
	return nil
}

// token returns the token with this id, creating it (unlisted) if needed.
func (a *applier) token(id string) *token {
	t := a.cat.byToken[id]
	if t == nil {
		t = &token{tid: a.cat.nextTid, tokenID: id, idx: store.NoOutcome, dirty: true}
		a.cat.nextTid++
		a.cat.addToken(t)
	}
	return t
}

// trade books one fill: the taker's side is e.Side, the maker's the opposite;
// the fee is the taker's. Both wallets' positions, counters and activity
// rows are updated, and the fill becomes the market's mark.
func (a *applier) trade(e *ledger.Event) error {
	t := a.cat.byToken[e.TokenID]
	if t == nil {
		return fmt.Errorf("unknown token %s", e.TokenID)
	}
	m := a.cat.byMid[t.mid]
	taker, err := a.party(e.Taker, e)
	if err != nil {
		return err
	}
	maker, err := a.party(e.Maker, e)
	if err != nil {
		return err
	}
	notional := amount.Mul(e.Price, e.Size)
	takerSide, makerSide := sideBuy, sideSell
	seller, sellerAddr := maker, e.Maker
	if e.Side == "SELL" {
		takerSide, makerSide = sideSell, sideBuy
		seller, sellerAddr = taker, e.Taker
	}
	if err := seller.pos[t.tid].need("seller "+sellerAddr, "token "+t.tokenID, e.Size); err != nil {
		return err
	}
	m, t = a.cat.own(m, t) // the published catalog's objects are the readers'
	a.fill(taker, t, takerSide, e, notional, e.FeeUSDC)
	a.fill(maker, t, makerSide, e, notional, 0)
	// Mark: the latest fill sets this token's price and, in a two-outcome
	// market, the complement's (1 − p), so both sides mark consistently.
	t.price, t.priced, t.dirty = e.Price, true, true
	{
		m.volume += e.Size
		m.volumeUSDC += notional
		m.lastTradeAt = max(m.lastTradeAt, e.Timestamp)
		m.dirty = true
		if len(m.tokens) == 2 {
			if o := m.tokens[1-t.idx]; o != nil {
				o.price, o.priced, o.dirty = amount.One-e.Price, true, true
			}
		}
	}
	if err := a.insert(e, actRow{participant: 0, w: taker, typ: actTrade, m: m, t: t, side: takerSide,
		size: e.Size, usdc: notional, price: e.Price, taker: rowTaker, builder: e.BuilderCode}); err != nil {
		return err
	}
	return a.insert(e, actRow{participant: 1, w: maker, typ: actTrade, m: m, t: t, side: makerSide,
		size: e.Size, usdc: notional, price: e.Price, taker: rowMaker, builder: e.BuilderCode})
}

// fill applies one side of a trade to w.
func (a *applier) fill(w *wallet, t *token, side int, e *ledger.Event, notional, fee amount.Micro) {
	p := w.position(t.tid, t.mid)
	if !p.traded {
		p.traded = true
		if !w.traded[p.mid] {
			w.traded[p.mid] = true
			w.marketsTraded++
		}
	}
	if side == sideBuy {
		p.acquire(e.Size, notional, fee, e.Timestamp)
	} else {
		w.c.realizedMarket += p.dispose(e.Size, notional, fee, e.Timestamp)
	}
	w.c.fees += fee
	w.c.volume += e.Size
	w.c.volumeUSDC += notional
	w.c.tradeCount++
}

// split: amount USDC → amount of every outcome, each at cost amount/n.
func (a *applier) split(e *ledger.Event) error {
	m, err := a.marketOf(e.ConditionID)
	if err != nil {
		return err
	}
	w, err := a.party(e.User, e)
	if err != nil {
		return err
	}
	n := len(m.tokens)
	each := amount.Div(e.Amount, amount.Micro(n)*amount.One)
	for _, t := range m.tokens {
		w.position(t.tid, m.mid).acquire(e.Amount, each, 0, e.Timestamp)
	}
	return a.insert(e, actRow{w: w, typ: actSplit, m: m, size: e.Amount, usdc: e.Amount})
}

// merge: amount of every outcome → amount USDC; each outcome is disposed of
// for amount/n and realizes against its average cost.
func (a *applier) merge(e *ledger.Event) error {
	m, err := a.marketOf(e.ConditionID)
	if err != nil {
		return err
	}
	w, err := a.party(e.User, e)
	if err != nil {
		return err
	}
	each := amount.Div(e.Amount, amount.Micro(len(m.tokens))*amount.One)
	for _, t := range m.tokens {
		if err := w.pos[t.tid].need(e.User, "token "+t.tokenID, e.Amount); err != nil {
			return err
		}
	}
	for _, t := range m.tokens {
		w.c.realizedMarket += w.position(t.tid, m.mid).dispose(e.Amount, each, 0, e.Timestamp)
	}
	return a.insert(e, actRow{w: w, typ: actMerge, m: m, size: e.Amount, usdc: e.Amount})
}

// redeem pays payouts[i] per held share of every outcome and realizes it;
// it is only valid once the market is resolved.
func (a *applier) redeem(e *ledger.Event) error {
	m, err := a.marketOf(e.ConditionID)
	if err != nil {
		return err
	}
	w, err := a.party(e.User, e)
	if err != nil {
		return err
	}
	if !m.resolved {
		return fmt.Errorf("redeem of unresolved market %s", e.ConditionID)
	}
	var shares, paid amount.Micro
	var only *token
	held := 0
	for i, t := range m.tokens {
		p := w.pos[t.tid]
		if p == nil || p.size == 0 {
			continue
		}
		held++
		only = t
		out := amount.MulFloor(p.size, m.payouts[i]) // floored, as on chain (and the CLOB pays)
		shares += p.size
		paid += out
		w.c.realizedMarket += p.dispose(p.size, out, 0, e.Timestamp)
		if m.payouts[i] > 0 && p.realized > w.biggestWin && p.realized > amount.One {
			w.biggestWin = p.realized
		}
	}
	if held != 1 {
		only = nil
	}
	return a.insert(e, actRow{w: w, typ: actRedeem, m: m, t: only, size: shares, usdc: paid})
}

// resolution settles a market: its marks become the payouts.
func (a *applier) resolution(e *ledger.Event) error {
	m, err := a.marketOf(e.ConditionID)
	if err != nil {
		return err
	}
	if len(e.Payouts) != len(m.tokens) {
		return fmt.Errorf("market %s: %d payouts for %d outcomes", e.ConditionID, len(e.Payouts), len(m.tokens))
	}
	if m.resolved { // a market resolves once; restating it is harmless
		if !slices.Equal(m.payouts, e.Payouts) {
			return fmt.Errorf("market %s is already resolved differently", e.ConditionID)
		}
		return nil
	}
	m.resolved, m.payouts, m.resolvedAt, m.dirty = true, e.Payouts, e.ResolvedAt, true
	return nil
}

// conversion (neg-risk), per docs/ledger-events.md: in a group of n
// markets, amount NO of each listed market is disposed of at (n−1)/n and
// amount YES of each other market is acquired at 1/n; amount_usdc is the
// cash leg. The prices balance exactly, so PnL is realized only against the
// NO positions' own cost.
func (a *applier) conversion(e *ledger.Event) error {
	w, err := a.party(e.User, e)
	if err != nil {
		return err
	}
	listed := map[int64]bool{}
	var first *market
	for _, c := range e.ConditionIDs {
		m, err := a.marketOf(c)
		if err != nil {
			return err
		}
		if !m.negRisk || len(m.tokens) != 2 {
			return fmt.Errorf("conversion of non neg-risk market %s", c)
		}
		if first == nil {
			first = m
		} else if m.eventID != first.eventID {
			return fmt.Errorf("conversion spans events %d and %d", first.eventID, m.eventID)
		}
		listed[m.mid] = true
	}
	if first == nil {
		return fmt.Errorf("conversion without condition_ids")
	}
	var group []*market
	for _, m := range a.cat.byEvent[first.eventID] {
		if m.negRisk && len(m.tokens) == 2 {
			group = append(group, m)
		}
	}
	for _, m := range group {
		if listed[m.mid] {
			if err := w.pos[m.tokens[1].tid].need(e.User, "NO token "+m.tokens[1].tokenID, e.Amount); err != nil {
				return err
			}
		}
	}
	n := amount.Micro(len(group))
	noPrice := amount.Div((n-1)*amount.One, n*amount.One)
	yesPrice := amount.Div(amount.One, n*amount.One)
	for _, m := range group {
		if listed[m.mid] {
			p := w.position(m.tokens[1].tid, m.mid)
			w.c.realizedMarket += p.dispose(e.Amount, amount.Mul(e.Amount, noPrice), 0, e.Timestamp)
		} else {
			w.position(m.tokens[0].tid, m.mid).acquire(e.Amount, amount.Mul(e.Amount, yesPrice), 0, e.Timestamp)
		}
	}
	return a.insert(e, actRow{w: w, typ: actConversion, m: first, size: e.Amount, usdc: e.AmountUSDC})
}

var cashTypes = map[ledger.Kind]int{
	ledger.KindMigration: actMigration, ledger.KindReward: actReward, ledger.KindYield: actYield,
	ledger.KindMakerRebate: actMakerRebate, ledger.KindTakerRebate: actTakerRebate,
	ledger.KindReferralReward: actReferralReward, ledger.KindDeposit: actDeposit, ledger.KindWithdrawal: actWithdrawal,
}

// cash books an amount-only event (size = usdc_size = amount_usdc).
func (a *applier) cash(e *ledger.Event) error {
	w, err := a.party(e.User, e)
	if err != nil {
		return err
	}
	v := e.AmountUSDC
	switch e.Kind {
	case ledger.KindReward:
		w.c.reward += v
	case ledger.KindYield:
		w.c.yield += v
	case ledger.KindMakerRebate:
		w.c.makerRebate += v
	case ledger.KindTakerRebate:
		w.c.takerRebate += v
	case ledger.KindReferralReward:
		w.c.referral += v
	case ledger.KindDeposit:
		w.c.deposits += v
	case ledger.KindWithdrawal:
		w.c.withdrawals += v
	}
	return a.insert(e, actRow{w: w, typ: cashTypes[e.Kind], size: v, usdc: v})
}

// tip writes an OUT row for the sender and an IN row for the receiver.
func (a *applier) tip(e *ledger.Event) error {
	from, err := a.party(e.From, e)
	if err != nil {
		return err
	}
	to, err := a.party(e.To, e)
	if err != nil {
		return err
	}
	if err := a.insert(e, actRow{participant: 0, w: from, typ: actTip, side: sideOut, size: e.AmountUSDC, usdc: e.AmountUSDC}); err != nil {
		return err
	}
	return a.insert(e, actRow{participant: 1, w: to, typ: actTip, side: sideIn, size: e.AmountUSDC, usdc: e.AmountUSDC})
}

func (a *applier) profile(e *ledger.Event) error {
	w, err := a.wallet(e.Address)
	if err != nil {
		return err
	}
	w.name, w.pseudonym, w.bio, w.image, w.verified = e.Name, e.Pseudonym, e.Bio, e.ProfileImage, e.Verified
	w.joinedAt, w.views, w.dirty = e.JoinedAt, e.Views, true
	return nil
}
