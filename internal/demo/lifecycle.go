package demo

import (
	"math"
	"strings"
	"time"

	"pmx/internal/amount"
	"pmx/internal/data/ledger"
)

// openEvent declares an event's markets and starts trading them.
func (g *gen) openEvent(ev *event, t int64) {
	end := time.Unix(ev.end, 0).UTC()
	// Titles are unique, as a venue lists one event per question: draw again
	// on a clash, and as a last resort name the end date.
	txt := describe(g.r, ev.cat.name, end)
	for try := 0; try < 50 && g.usedTitles[txt.title]; try++ {
		txt = describe(g.r, ev.cat.name, end)
	}
	if g.usedTitles[txt.title] {
		txt.title += " (" + end.Format("Jan 2, 2006") + ")"
	}
	g.usedTitles[txt.title] = true
	ev.title = txt.title
	ev.negRisk = txt.negRisk
	ev.slug = g.slug(txt.title)
	ev.icon = "https://pmx.example/icons/" + ev.slug + ".png"
	ev.lastMove = t
	for i, mt := range txt.markets {
		m := &market{ev: ev, idx: i, id: 600_000 + ev.id*10 + int64(i), cond: g.hexID(32),
			question: mt.question, outcomes: mt.outcomes, state: live,
			pop: ev.cat.popularity * lognormal(g.r, 0, 1)}
		m.slug = g.slug(mt.question)
		for o := range 2 {
			m.tokens[o] = g.newToken(&token{id: g.tokenID(), m: m, outcome: o})
		}
		ev.markets = append(ev.markets, m)
	}
	if ev.negRisk {
		ev.scores = make([]float64, len(ev.markets))
		for i := range ev.scores {
			ev.scores[i] = g.r.NormFloat64()
		}
		// Favourites win more often: draw the winner from the opening odds.
		x := g.r.Float64()
		ev.winner = len(ev.markets) - 1
		for i, m := range ev.markets {
			if x -= m.yes(); x < 0 {
				ev.winner = i
				break
			}
		}
		for i, m := range ev.markets {
			m.winner = 1
			if i == ev.winner {
				m.winner = 0
			}
		}
	} else {
		m := ev.markets[0]
		m.x = 1.2 * g.r.NormFloat64()
		m.winner = 1
		switch {
		case g.r.Float64() < 0.025:
			m.winner = -1 // settles 50/50
		case g.r.Float64() < sigmoid(m.x):
			m.winner = 0
		}
	}
	for _, m := range ev.markets {
		g.put(g.marketEvent(m))
	}
	g.liveDirty = true
	if ev.end < g.now {
		g.at(ev.end, func(t int64) { g.closeEvent(ev) })
	}
	if ev.resolve > 0 {
		g.at(ev.resolve, func(t int64) { g.resolveEvent(ev, t) })
	}
}

// marketEvent is the full market line for m in its current state; a market
// is re-declared (same outcomes and tokens) whenever its flags change.
func (g *gen) marketEvent(m *market) *ledger.Event {
	ev := m.ev
	return &ledger.Event{
		Kind: ledger.KindMarket, ConditionID: m.cond, Question: m.question, Slug: m.slug,
		EventID: ev.id, EventSlug: ev.slug, EventTitle: ev.title, Category: ev.cat.name,
		Outcomes: m.outcomes, TokenIDs: []string{g.tokens[m.tokens[0]].id, g.tokens[m.tokens[1]].id},
		NegRisk: ev.negRisk, EndDate: time.Unix(ev.end, 0).UTC().Format(time.RFC3339), Icon: ev.icon,
		Active: bools(true), Closed: bools(m.state >= closed), Archived: bools(m.archived), MarketID: m.id,
	}
}

func (g *gen) closeEvent(ev *event) {
	for _, m := range ev.markets {
		m.state = closed
		g.put(g.marketEvent(m))
	}
	g.liveDirty = true
}

// resolveEvent settles every market of the event, schedules redemptions by
// holders of paying tokens, archives some markets later, and settles combos
// whose last leg this was.
func (g *gen) resolveEvent(ev *event, t int64) {
	g.move(ev, t)
	for _, m := range ev.markets {
		switch m.winner {
		case 0:
			m.payouts = [2]amount.Micro{amount.One, 0}
		case 1:
			m.payouts = [2]amount.Micro{0, amount.One}
		default:
			m.payouts = [2]amount.Micro{amount.One / 2, amount.One / 2}
		}
		m.state = resolved
		g.put(&ledger.Event{Kind: ledger.KindResolution, ConditionID: m.cond,
			Payouts: []amount.Micro{m.payouts[0], m.payouts[1]}, ResolvedAt: t})
		for _, wi := range sortedHolders(m.holders) {
			w := g.wallets[wi]
			if !g.paysOut(w, m) || g.r.Float64() < 0.1 {
				continue // some winners never redeem inside the window
			}
			wi := wi
			delay := int64(600 + lognormal(g.r, math.Log(20*3600), 1.2))
			g.at(t+delay, func(t int64) { g.redeem(wi, m, t) })
		}
		if g.r.Float64() < 0.3 {
			g.at(t+2*86400+g.r.Int64N(18*86400), func(int64) {
				m.archived = true
				g.put(g.marketEvent(m))
			})
		}
	}
	for _, c := range g.combos {
		if c.state != resolved && c.legsResolved() {
			g.settleCombo(c, t)
		}
	}
}

func (g *gen) paysOut(w *wallet, m *market) bool {
	for o := range 2 {
		if m.payouts[o] > 0 && w.amt(m.tokens[o]) > 0 {
			return true
		}
	}
	return false
}

// redeem burns the wallet's whole holding of the market's outcomes and pays
// Σ holding × payout (the rule documented in docs/ledger-events.md).
func (g *gen) redeem(wi int32, m *market, t int64) {
	w := g.wallets[wi]
	if !g.paysOut(w, m) {
		return
	}
	var pay amount.Micro
	for o := range 2 {
		a := w.amt(m.tokens[o])
		pay += amount.Mul(a, m.payouts[o])
		w.add(m.tokens[o], -a)
	}
	w.cash += pay
	g.chain(&ledger.Event{Kind: ledger.KindRedeem, User: w.addr, ConditionID: m.cond}, t)
}

// --- combos ---

func (g *gen) setupCombos() {
	n := g.scaled(fullCombos, 3)
	for i := 0; i < n; i++ {
		t := g.t0 + 86400 + g.r.Int64N(g.now-g.t0-3*86400)
		g.at(t, g.openCombo)
	}
}

func (c *combo) live() bool {
	if c.state != live {
		return false
	}
	for _, l := range c.legs {
		if l.state != live {
			return false
		}
	}
	return true
}

func (c *combo) legsResolved() bool {
	for _, l := range c.legs {
		if l.state != resolved {
			return false
		}
	}
	return true
}

// openCombo builds a 2-3 leg parlay over live markets of distinct events
// that do not end within 12 hours.
func (g *gen) openCombo(t int64) {
	var cands []*market
	for _, ev := range g.events {
		if len(ev.markets) == 0 || ev.markets[0].state != live || ev.end-t < 12*3600 {
			continue
		}
		cands = append(cands, ev.markets[g.r.IntN(len(ev.markets))])
	}
	k := 2 + g.r.IntN(2)
	if len(cands) < k {
		g.at(t+6*3600, g.openCombo) // try again when more markets are live
		return
	}
	c := &combo{cond: "0x03" + g.hexID(17)[2:] + strings.Repeat("0", 26), state: live, hset: map[int32]bool{}}
	var titles []string
	for _, m := range pickN(g.r, cands, k) {
		o := g.r.IntN(2)
		c.legs = append(c.legs, m)
		c.legOut = append(c.legOut, o)
		titles = append(titles, m.question+" ("+m.outcomes[o]+")")
	}
	for o := range 2 {
		c.tokens[o] = g.newToken(&token{id: g.tokenID(), c: c, outcome: o})
	}
	e := &ledger.Event{Kind: ledger.KindComboMarket, ComboConditionID: c.cond, Question: strings.Join(titles, " / "),
		Outcomes: []string{"Yes", "No"}, TokenIDs: []string{g.tokens[c.tokens[0]].id, g.tokens[c.tokens[1]].id}}
	for i, m := range c.legs {
		e.Legs = append(e.Legs, ledger.ComboLeg{ConditionID: m.cond, OutcomeIndex: c.legOut[i]})
	}
	g.combos = append(g.combos, c)
	g.put(e)
}

// comboPrice is the Yes price: the product of the legs' prices.
func (g *gen) comboYes(c *combo) float64 {
	p := 1.0
	for i, m := range c.legs {
		y := m.yes()
		if c.legOut[i] == 1 {
			y = 1 - y
		}
		p *= y
	}
	return p
}

// settleCombo fixes the combo's payouts once every leg has resolved: Yes
// pays Π legs' payouts at their outcome, No pays the rest.
func (g *gen) settleCombo(c *combo, t int64) {
	yes := amount.One
	for i, m := range c.legs {
		yes = amount.Mul(yes, m.payouts[c.legOut[i]])
	}
	c.payouts = [2]amount.Micro{yes, amount.One - yes}
	c.state = resolved
	for _, wi := range sortedHolders(c.holders) {
		wi := wi
		if g.r.Float64() < 0.1 {
			continue
		}
		g.at(t+int64(600+lognormal(g.r, math.Log(10*3600), 1)), func(t int64) { g.comboRedeem(wi, c, t) })
	}
}

func (g *gen) comboRedeem(wi int32, c *combo, t int64) {
	w := g.wallets[wi]
	for o := range 2 {
		a := w.amt(c.tokens[o])
		if a == 0 || c.payouts[o] == 0 {
			continue
		}
		pay := amount.Mul(a, c.payouts[o])
		w.add(c.tokens[o], -a)
		w.cash += pay
		g.chain(&ledger.Event{Kind: ledger.KindComboActivity, User: w.addr, ComboConditionID: c.cond,
			OutcomeIndex: o, Type: "REDEEM", Size: a, PayoutUSDC: pay}, t)
	}
}
