package demo

import (
	"math"

	"pmx/internal/amount"
	"pmx/internal/data/ledger"
)

var (
	feeRate   = amount.MustParse("0.02") // × min(p, 1-p) × size, on fee categories
	comboFee  = amount.MustParse("0.01")
	mmTopUp   = amount.MustParse("250000")
	maxShares = amount.MustParse("50000") // per fill, so longshot buys (and their mint matches) stay plausible
)

// trade makes one fill at t: a retail taker buys from, or sells to, a
// market maker or another retail wallet. It reports false when nothing
// could trade (no live market, nothing to sell).
//
// Invariant: a seller always holds what it sells. A market maker that lacks
// the outcome a taker buys mints it as the venue does: it splits the shortfall
// into complete sets, sells the outcome, and sells the complement to a buyer
// of the other side (a mint match), so every new set is paid for by traded
// volume and market makers carry no pile of unsold sets. Sets a market maker
// holds whole are merged back after each fill.
func (g *gen) trade(t int64) bool {
	ti := g.pickWallet(t)
	taker := g.wallets[ti]
	side := "BUY"
	var m *market
	var outcome int
	if g.r.Float64() < 0.4 {
		if tok, ok := taker.randomHeld(g.r); ok {
			if tk := g.tokens[tok]; tk.m != nil && tk.m.state == live {
				m, outcome, side = tk.m, tk.outcome, "SELL"
			}
		}
	}
	if m == nil {
		if m = g.liveMarket(t); m == nil {
			return false
		}
		outcome = g.r.IntN(2)
		if m.ev.negRisk && g.r.Float64() < 0.2 {
			outcome = 0 // neg-risk flow leans to YES
		}
	}
	g.move(m.ev, t)
	tok := m.tokens[outcome]
	price := g.price(m, outcome)
	var size amount.Micro
	if side == "SELL" {
		held := taker.amt(tok)
		size = held
		if g.r.Float64() > 0.35 {
			size = floorCents(amount.Micro(float64(held) * (0.2 + 0.7*g.r.Float64())))
		}
		if size <= 0 {
			size = held
		}
	} else {
		// A longshot is sized as if priced at least 0.25: a $20 punt at 0.02
		// buys 80 shares, not 1,000, so the mint match on the favourite side
		// costs its buyer about what a normal bet does.
		notional := math.Min(50_000, math.Max(1, taker.scale*lognormal(g.r, math.Log(20), 1.3)))
		size = max(min(shares(notional/math.Max(float64(price)/amount.Scale, 0.25)), maxShares), amount.One)
	}
	notional := amount.Mul(price, size)
	var fee amount.Micro
	if m.ev.cat.fees {
		fee = amount.Mul(amount.Mul(feeRate, min(price, amount.One-price)), size)
	}

	// Choose the maker; it takes the opposite side of the same token.
	mi := int32(-1)
	if g.r.Float64() < 0.25 {
		if side == "BUY" {
			mi = g.retailSeller(ti, tok, size)
		} else if c := g.pickWallet(t); c != ti && g.wallets[c].cash >= notional {
			mi = c
		}
	}
	if mi < 0 {
		mi = g.mms[g.r.IntN(len(g.mms))]
	}
	maker := g.wallets[mi]

	// Fund both sides before the fill.
	var minted amount.Micro
	if side == "BUY" {
		g.ensureCash(ti, notional+fee, t)
		if maker.amt(tok) < size {
			minted = size - maker.amt(tok)
			g.split(mi, m, minted, t)
		}
	} else {
		g.ensureCash(mi, notional, t)
	}

	g.chain(&ledger.Event{Kind: ledger.KindTrade, TokenID: g.tokens[tok].id, Maker: maker.addr, Taker: taker.addr,
		Side: side, Price: price, Size: size, FeeUSDC: fee, BuilderCode: g.pickBuilder()}, t)
	g.trades++
	if side == "BUY" {
		g.give(ti, tok, size)
		maker.add(tok, -size)
		taker.cash -= notional + fee
		maker.cash += notional
		tk := g.tokens[tok]
		tk.buyers[tk.nbuy%len(tk.buyers)] = ti
		tk.nbuy++
	} else {
		taker.add(tok, -size)
		g.give(mi, tok, size)
		taker.cash += notional - fee
		maker.cash -= notional
	}
	taker.lastSeen = t
	g.day(mi).madeToday += notional
	g.day(ti).feesToday += fee
	if minted > 0 {
		g.mintMatch(mi, ti, m, 1-outcome, minted, t)
	}
	if maker.mm {
		g.mmMerge(mi, m, t)
	}
	return true
}

// mintMatch sells amt of outcome of m, which market maker mi just minted, to
// a retail buyer other than the first taker.
func (g *gen) mintMatch(mi, not int32, m *market, outcome int, amt amount.Micro, t int64) {
	bi := g.pickWallet(t)
	if bi == not {
		bi = g.pickWallet(t)
	}
	if bi == not {
		return // the maker keeps the complement; the next buyer of it takes it
	}
	tok := m.tokens[outcome]
	price := g.price(m, outcome)
	notional := amount.Mul(price, amt)
	var fee amount.Micro
	if m.ev.cat.fees {
		fee = amount.Mul(amount.Mul(feeRate, min(price, amount.One-price)), amt)
	}
	g.ensureCash(bi, notional+fee, t)
	maker, buyer := g.wallets[mi], g.wallets[bi]
	g.chain(&ledger.Event{Kind: ledger.KindTrade, TokenID: g.tokens[tok].id, Maker: maker.addr, Taker: buyer.addr,
		Side: "BUY", Price: price, Size: amt, FeeUSDC: fee, BuilderCode: g.pickBuilder()}, t)
	g.trades++
	g.give(bi, tok, amt)
	maker.add(tok, -amt)
	buyer.cash -= notional + fee
	maker.cash += notional
	tk := g.tokens[tok]
	tk.buyers[tk.nbuy%len(tk.buyers)] = bi
	tk.nbuy++
	buyer.lastSeen = t
	g.day(mi).madeToday += notional
	g.day(bi).feesToday += fee
}

// retailSeller is a recent buyer of tok (not the taker) that still holds
// size, or -1.
func (g *gen) retailSeller(taker int32, tok int32, size amount.Micro) int32 {
	tk := g.tokens[tok]
	if tk.nbuy == 0 {
		return -1
	}
	c := tk.buyers[g.r.IntN(min(tk.nbuy, len(tk.buyers)))]
	if c != taker && g.wallets[c].amt(tok) >= size {
		return c
	}
	return -1
}

// day marks the wallet for the next daily rebate job.
func (g *gen) day(i int32) *wallet {
	w := g.wallets[i]
	if !w.dayListed {
		w.dayListed = true
		g.dayMakers = append(g.dayMakers, i)
	}
	return w
}

// ensureCash deposits before a payment the wallet cannot cover: market
// makers top up in bulk, retail in round amounts.
func (g *gen) ensureCash(i int32, need amount.Micro, t int64) {
	w := g.wallets[i]
	if w.cash >= need {
		return
	}
	var amt amount.Micro
	if w.mm {
		amt = mmTopUp + need
	} else {
		short := float64(need-w.cash) / amount.Scale
		amt = usd(math.Ceil(math.Max(short*1.5, lognormal(g.r, math.Log(200), 1))))
	}
	g.deposit(i, amt, t)
}

func (g *gen) deposit(i int32, amt amount.Micro, t int64) {
	w := g.wallets[i]
	w.cash += amt
	g.chain(&ledger.Event{Kind: ledger.KindDeposit, User: w.addr, AmountUSDC: amt}, t)
}

func (g *gen) split(i int32, m *market, amt amount.Micro, t int64) {
	g.ensureCash(i, amt, t)
	w := g.wallets[i]
	w.cash -= amt
	g.give(i, m.tokens[0], amt)
	g.give(i, m.tokens[1], amt)
	g.chain(&ledger.Event{Kind: ledger.KindSplit, User: w.addr, ConditionID: m.cond, Amount: amt}, t)
}

func (g *gen) merge(i int32, m *market, amt amount.Micro, t int64) {
	w := g.wallets[i]
	w.add(m.tokens[0], -amt)
	w.add(m.tokens[1], -amt)
	w.cash += amt
	g.chain(&ledger.Event{Kind: ledger.KindMerge, User: w.addr, ConditionID: m.cond, Amount: amt}, t)
}

// mmMerge returns the whole complete sets a market maker holds to USDC.
func (g *gen) mmMerge(i int32, m *market, t int64) {
	w := g.wallets[i]
	if both := min(w.amt(m.tokens[0]), w.amt(m.tokens[1])) / amount.One * amount.One; both > 0 {
		g.merge(i, m, both, t)
	}
}

// comboTrade buys or sells a combo outcome against the venue.
func (g *gen) comboTrade(t int64) bool {
	c := g.liveCombo()
	if c == nil {
		return false
	}
	ti := g.pickWallet(t)
	w := g.wallets[ti]
	for _, l := range c.legs {
		g.move(l.ev, t)
	}
	outcome, side := 0, "BUY"
	if g.r.Float64() < 0.3 {
		outcome = 1
	}
	for o := range 2 {
		if w.amt(c.tokens[o]) > 0 && g.r.Float64() < 0.5 {
			outcome, side = o, "SELL"
		}
	}
	p := g.comboYes(c)
	if outcome == 1 {
		p = 1 - p
	}
	price := tickPrice(p)
	tok := c.tokens[outcome]
	var size amount.Micro
	if side == "SELL" {
		size = w.amt(tok)
	} else {
		notional := math.Min(20_000, math.Max(1, w.scale*lognormal(g.r, math.Log(15), 1.2)))
		size = max(min(shares(notional/(float64(price)/amount.Scale)), maxShares), amount.One)
	}
	notional := amount.Mul(price, size)
	fee := amount.Mul(amount.Mul(comboFee, min(price, amount.One-price)), size)
	if side == "BUY" {
		g.ensureCash(ti, notional+fee, t)
		g.give(ti, tok, size)
		w.cash -= notional + fee
	} else {
		w.add(tok, -size)
		w.cash += notional - fee
	}
	g.chain(&ledger.Event{Kind: ledger.KindComboTrade, User: w.addr, ComboConditionID: c.cond, OutcomeIndex: outcome,
		Side: side, Price: price, Size: size, FeeUSDC: fee, BuilderCode: g.pickBuilder()}, t)
	return true
}

func (g *gen) liveCombo() *combo {
	for try := 0; try < 4 && len(g.combos) > 0; try++ {
		// Newer combos are likelier to be live.
		n := len(g.combos)
		c := g.combos[n-1-min(int(g.r.ExpFloat64()*4), n-1)]
		if c.live() {
			return c
		}
	}
	return nil
}
