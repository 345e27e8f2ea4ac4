package demo

import (
	"math"

	"pmx/internal/amount"
	"pmx/internal/data/ledger"
)

// other is a non-trade tick: one account action, drawn by weight. An
// action that finds nothing to do (e.g. no complete set to merge) is
// simply skipped.
func (g *gen) other(t int64) {
	x := g.r.IntN(1000)
	switch {
	case x < 300:
		g.comboTrade(t)
	case x < 400:
		g.comboActivity(t)
	case x < 520:
		g.userSplit(t)
	case x < 580:
		g.userMerge(t)
	case x < 640:
		g.conversion(t)
	case x < 760:
		g.deposit(g.pickWallet(t), usd(math.Ceil(lognormal(g.r, math.Log(150), 1.2))), t)
	case x < 880:
		g.withdraw(t)
	case x < 998:
		g.tip(t)
	default:
		g.migrate(t)
	}
}

func (g *gen) userSplit(t int64) {
	m := g.liveMarket(t)
	if m == nil {
		return
	}
	g.split(g.pickWallet(t), m, usd(math.Ceil(lognormal(g.r, math.Log(50), 1))), t)
}

// userMerge merges part of a complete set the wallet holds in a live market.
func (g *gen) userMerge(t int64) {
	for try := 0; try < 6; try++ {
		wi := g.pickWallet(t)
		w := g.wallets[wi]
		tok, ok := w.randomHeld(g.r)
		if !ok {
			continue
		}
		m := g.tokens[tok].m
		if m == nil || m.state != live {
			continue
		}
		both := min(w.amt(m.tokens[0]), w.amt(m.tokens[1]))
		if amt := floorCents(amount.Micro(float64(both) * (0.3 + 0.7*g.r.Float64()))); amt > 0 {
			g.merge(wi, m, amt, t)
			return
		}
	}
}

// conversion turns a wallet's NO tokens in k markets of a live neg-risk
// group into YES tokens of the group's other markets plus (k-1) USDC per
// share.
func (g *gen) conversion(t int64) {
	for try := 0; try < 8; try++ {
		wi := g.pickWallet(t)
		w := g.wallets[wi]
		tok, ok := w.randomHeld(g.r)
		if !ok {
			continue
		}
		tk := g.tokens[tok]
		if tk.m == nil || tk.outcome != 1 || !tk.m.ev.negRisk || tk.m.state != live {
			continue
		}
		ev := tk.m.ev
		var in []*market
		least := w.amt(tok)
		for _, m := range ev.markets {
			if a := w.amt(m.tokens[1]); a > 0 && (m == tk.m || g.r.Float64() < 0.7) {
				in = append(in, m)
				least = min(least, a)
			}
		}
		amt := floorCents(amount.Micro(float64(least) * (0.3 + 0.7*g.r.Float64())))
		if amt <= 0 {
			continue
		}
		e := &ledger.Event{Kind: ledger.KindConversion, User: w.addr, Amount: amt,
			AmountUSDC: amt * amount.Micro(len(in)-1)}
		for _, m := range ev.markets {
			converted := false
			for _, c := range in {
				converted = converted || c == m
			}
			if converted {
				e.ConditionIDs = append(e.ConditionIDs, m.cond)
				w.add(m.tokens[1], -amt)
			} else {
				g.give(wi, m.tokens[0], amt)
			}
		}
		w.cash += e.AmountUSDC
		g.chain(e, t)
		return
	}
}

func (g *gen) withdraw(t int64) {
	w := g.wallets[g.pickWallet(t)]
	if w.cash < 10*amount.One {
		return
	}
	amt := floorCents(amount.Micro(float64(w.cash) * (0.2 + 0.75*g.r.Float64())))
	w.cash -= amt
	g.chain(&ledger.Event{Kind: ledger.KindWithdrawal, User: w.addr, AmountUSDC: amt}, t)
}

func (g *gen) tip(t int64) {
	fi, ti := g.pickWallet(t), g.pickWallet(t)
	from, to := g.wallets[fi], g.wallets[ti]
	if fi == ti || from.cash < 5*amount.One {
		return
	}
	amt := usd(1 + g.r.Float64()*math.Min(49, float64(from.cash)/amount.Scale/2))
	from.cash -= amt
	to.cash += amt
	g.chain(&ledger.Event{Kind: ledger.KindTip, From: from.addr, To: to.addr, AmountUSDC: amt}, t)
}

// migrate moves a wallet's collateral to the new collateral token: an
// activity row only, the balance is unchanged.
func (g *gen) migrate(t int64) {
	w := g.wallets[g.pickWallet(t)]
	if w.cash < amount.One {
		return
	}
	g.chain(&ledger.Event{Kind: ledger.KindMigration, User: w.addr, AmountUSDC: floorCents(w.cash)}, t)
}

// comboActivity is a combo lifecycle action: SPLIT cash into both outcomes,
// MERGE a complete set back, or a position-neutral WRAP/UNWRAP/CONVERT/
// COMPRESS of a holding.
func (g *gen) comboActivity(t int64) {
	c := g.liveCombo()
	if c == nil {
		return
	}
	x := g.r.IntN(10)
	if x < 4 {
		wi := g.pickWallet(t)
		amt := usd(math.Ceil(lognormal(g.r, math.Log(40), 1)))
		g.ensureCash(wi, amt, t)
		w := g.wallets[wi]
		w.cash -= amt
		g.give(wi, c.tokens[0], amt)
		g.give(wi, c.tokens[1], amt)
		g.chain(&ledger.Event{Kind: ledger.KindComboActivity, User: w.addr, ComboConditionID: c.cond,
			Type: "SPLIT", Size: amt, AmountUSDC: amt}, t)
		return
	}
	if len(c.holders) == 0 {
		return
	}
	wi := c.holders[g.r.IntN(len(c.holders))]
	w := g.wallets[wi]
	if x < 6 {
		both := min(w.amt(c.tokens[0]), w.amt(c.tokens[1]))
		if both <= 0 {
			return
		}
		w.add(c.tokens[0], -both)
		w.add(c.tokens[1], -both)
		w.cash += both
		g.chain(&ledger.Event{Kind: ledger.KindComboActivity, User: w.addr, ComboConditionID: c.cond,
			Type: "MERGE", Size: both, AmountUSDC: both}, t)
		return
	}
	o := g.r.IntN(2)
	a := w.amt(c.tokens[o])
	if a <= 0 {
		return
	}
	g.chain(&ledger.Event{Kind: ledger.KindComboActivity, User: w.addr, ComboConditionID: c.cond,
		OutcomeIndex: o, Type: pick(g.r, []string{"WRAP", "UNWRAP", "CONVERT", "COMPRESS"}), Size: a}, t)
}

// daily pays the previous day's rewards and rebates, yield, and on
// Mondays referral rewards.
func (g *gen) daily(t int64) {
	pay := func(k ledger.Kind, i int32, amt amount.Micro) {
		if amt <= 0 {
			return
		}
		w := g.wallets[i]
		w.cash += amt
		g.chain(&ledger.Event{Kind: k, User: w.addr, AmountUSDC: amt}, t)
	}
	for _, i := range g.mms {
		pay(ledger.KindReward, i, usd(lognormal(g.r, math.Log(150), 0.6)))
	}
	for n := g.scaled(25, 2); n > 0; n-- {
		if i := g.pickWallet(t); g.wallets[i].lastSeen > t-2*86400 {
			pay(ledger.KindReward, i, usd(lognormal(g.r, math.Log(3), 1)))
		}
	}
	for _, i := range g.dayMakers {
		w := g.wallets[i]
		if w.madeToday >= 20*amount.One {
			pay(ledger.KindMakerRebate, i, floorCents(amount.Mul(w.madeToday, amount.MustParse("0.0003"))))
		}
		if w.feesToday >= amount.One/5 {
			pay(ledger.KindTakerRebate, i, floorCents(w.feesToday/4))
		}
		w.madeToday, w.feesToday, w.dayListed = 0, 0, false
	}
	g.dayMakers = g.dayMakers[:0]
	for n := g.scaled(40, 2); n > 0; n-- {
		if i := g.pickWallet(t); len(g.wallets[i].held) > 0 {
			pay(ledger.KindYield, i, usd(lognormal(g.r, math.Log(0.8), 1)))
		}
	}
	if (t/86400)%7 == 4 { // 1970-01-01 was a Thursday
		for n := g.scaled(25, 2); n > 0; n-- {
			pay(ledger.KindReferralReward, g.pickWallet(t), usd(lognormal(g.r, math.Log(12), 1)))
		}
	}
}
