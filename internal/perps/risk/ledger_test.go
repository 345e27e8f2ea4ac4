package risk

import (
	"fmt"
	"iter"
	"slices"
	"testing"
)

// ledger is the tests' small exchange around the risk engine: accounts, a
// liquidity provider that takes the other side of liquidation orders at the
// mark (standing in for the book), the insurance fund, and the venue's fee
// income. It executes what the engine decides exactly as the machine will:
// pre-trade and at-fill checks, fills, fees, funding charges, liquidation
// cycles (Sweep, Plan, market close / Backstop / ADL).
type ledger struct {
	t          testing.TB
	mk         Markets
	accts      []*Account // ID order; accts[0] is the liquidity provider
	lp, fund   *Account
	deposits   int64
	withdrawn  int64
	venueFees  int64
	makerPPM   int64
	takerPPM   int64
	fp         FundingParams
	charges    []fundingCharge
	fills      []simFill
	stats      map[string]int
	hits       []Hit
	ranked     []Ranked
	legs       []ADLFill
	nextAcctID uint64
}

type fundingCharge struct {
	acct   uint64
	iid    uint32
	size   int64
	rate   int64
	amount int64
}

type simFill struct {
	acct     uint64
	iid      uint32
	buy      bool
	ticks    int64
	lots     int64
	fee      int64
	liq, adl bool
}

func newLedger(t testing.TB, ms ...*Market) *ledger {
	l := &ledger{t: t, mk: markets(ms...), makerPPM: 125, takerPPM: 400, fp: DefaultFunding(),
		stats: map[string]int{}, fund: &Account{ID: 1 << 62}}
	for _, m := range ms {
		l.fund.Settings = append(l.fund.Settings, Setting{IID: m.ID, Lev: m.MaxLeverage, Cross: true})
	}
	l.lp = l.open(nil)
	for _, m := range ms {
		l.lp.Settings = append(l.lp.Settings, Setting{IID: m.ID, Lev: m.MaxLeverage, Cross: true})
	}
	l.deposit(l.lp, 1_000_000_000*usd)
	return l
}

func (l *ledger) all() iter.Seq[*Account] { return slices.Values(l.accts) }

func (l *ledger) open(settings []Setting) *Account {
	a := &Account{ID: l.nextAcctID, Settings: settings}
	l.nextAcctID++
	l.accts = append(l.accts, a)
	return a
}

func (l *ledger) deposit(a *Account, amt int64) {
	a.Collateral += amt
	l.deposits += amt
}

func (l *ledger) fundInsurance(amt int64) {
	l.fund.Collateral += amt
	l.deposits += amt
}

func (l *ledger) withdraw(a *Account, amt int64) error {
	w, err := Withdrawable(a, l.mk)
	if err != nil {
		return err
	}
	if amt > w {
		return ErrInsufficientMargin
	}
	a.Collateral -= amt
	l.withdrawn += amt
	return nil
}

// trade fills lots at ticks between a taker and a resting maker, both
// pre-trade checked, the taker also at fill.
func (l *ledger) trade(taker, maker *Account, iid uint32, takerBuy bool, ticks, lots int64) error {
	if err := CheckOrder(maker, l.mk, Order{IID: iid, Buy: !takerBuy, Ticks: ticks, Lots: lots}); err != nil {
		return err
	}
	if err := CheckOrder(taker, l.mk, Order{IID: iid, Buy: takerBuy, Ticks: ticks, Lots: lots}); err != nil {
		return err
	}
	if err := CheckFill(taker, l.mk, iid, takerBuy, ticks, lots); err != nil {
		return err
	}
	l.fill(taker, iid, takerBuy, ticks, lots, l.takerPPM, false, false)
	l.fill(maker, iid, !takerBuy, ticks, lots, l.makerPPM, false, false)
	return nil
}

func (l *ledger) fill(a *Account, iid uint32, buy bool, ticks, lots, ppm int64, liq, adl bool) FillResult {
	r, err := a.Fill(l.mk, iid, buy, ticks, lots)
	if err != nil {
		l.t.Fatalf("fill: %v", err)
	}
	n, _ := l.mk[iid].Notional(ticks, lots)
	var c calc
	fee := c.mulDiv(n, ppm, PPM, ceil)
	a.Collateral -= fee
	l.venueFees += fee
	l.fills = append(l.fills, simFill{acct: a.ID, iid: iid, buy: buy, ticks: ticks, lots: lots, fee: fee, liq: liq, adl: adl})
	return r
}

// settleFunding charges every position of iid (the fund's too) at the rate
// from the window's samples; the dust goes to the fund.
func (l *ledger) settleFunding(iid uint32, w PremiumWindow, ts int64) int64 {
	m := l.mk[iid]
	rate, err := l.fp.Rate(w.Average())
	if err != nil {
		l.t.Fatal(err)
	}
	var dust int64
	for _, a := range append(slices.Clone(l.accts), l.fund) {
		for i := range a.Positions {
			p := &a.Positions[i]
			if p.IID != iid || p.Size == 0 {
				continue
			}
			ch, err := Charge(m.Grid, p.Size, m.Mark, rate)
			if err != nil {
				l.t.Fatal(err)
			}
			if a.Setting(&m.Instrument).Cross {
				a.Collateral -= ch
			} else {
				p.Margin -= ch
			}
			dust += ch
			l.charges = append(l.charges, fundingCharge{acct: a.ID, iid: iid, size: p.Size, rate: rate, amount: ch})
		}
	}
	l.fund.Collateral += dust
	return rate
}

// liquidate runs liquidation cycles until nothing is left to do.
func (l *ledger) liquidate() {
	for cycle := 0; cycle < 50; cycle++ {
		var err error
		l.hits, err = Sweep(l.all(), l.mk, l.hits[:0])
		if err != nil {
			l.t.Fatal(err)
		}
		if len(l.hits) == 0 {
			return
		}
		for i := range l.hits { // flag first: a flagged scope is never an ADL counterparty
			if h := &l.hits[i]; !h.Flagged {
				h.SetFlag(true)
				l.cancelScope(h)
				l.stats["flagged"]++
			}
		}
		acted := false
		for i := range l.hits {
			h := &l.hits[i]
			if err := h.Rescan(l.mk); err != nil {
				l.t.Fatal(err)
			}
			acted = l.step(h) || acted
		}
		if !acted {
			return
		}
	}
}

func (l *ledger) cancelScope(h *Hit) {
	h.Acct.Orders = slices.DeleteFunc(h.Acct.Orders, func(o Order) bool {
		return h.Cross || o.IID == h.IID
	})
}

func (l *ledger) step(h *Hit) bool {
	st, err := Plan(h, l.mk, l.fund)
	if err != nil {
		l.t.Fatal(err)
	}
	a := h.Acct
	switch st.Kind {
	case StepClear:
		h.SetFlag(false)
		l.stats["cleared"]++
		return false
	case StepMarket:
		m := l.mk[st.IID]
		r := l.fill(a, st.IID, st.Buy, m.Mark, st.Lots, 0, true, false)
		after := *h
		if err := after.Rescan(l.mk); err != nil {
			l.t.Fatal(err)
		}
		room := after.Equity
		if !h.Cross {
			room = r.CollateralDelta // the closed position's released allocation
		}
		n, _ := m.Notional(m.Mark, st.Lots)
		venue, fund, err := LiquidationFees(n, l.takerPPM, m.LiqFeePPM, room)
		if err != nil {
			l.t.Fatal(err)
		}
		a.Collateral -= venue + fund
		l.venueFees += venue
		l.fund.Collateral += fund
		l.fills[len(l.fills)-1].fee = venue + fund
		l.fill(l.lp, st.IID, !st.Buy, m.Mark, st.Lots, l.makerPPM, false, false)
		l.stats["market"]++
	case StepBackstop:
		if _, err := Backstop(h, l.mk, l.fund); err != nil {
			l.t.Fatal(err)
		}
		l.stats["backstop"]++
	case StepADL:
		p := a.Position(st.IID)
		m := l.mk[st.IID]
		bk, err := BankruptcyPrice(p, m, h.Equity)
		if err != nil {
			l.t.Fatal(err)
		}
		long := p.Size > 0
		l.ranked, err = RankADL(l.all(), l.mk, st.IID, long, l.fund, l.ranked[:0])
		if err != nil {
			l.t.Fatal(err)
		}
		var left int64
		l.legs, left = ADLPlan(l.ranked, abs(p.Size), bk, long, l.legs[:0])
		for _, leg := range l.legs {
			l.fill(a, st.IID, !leg.Buy, leg.Ticks, leg.Lots, 0, true, true)
			l.fill(leg.Acct, st.IID, leg.Buy, leg.Ticks, leg.Lots, 0, false, true)
		}
		if left > 0 {
			l.stats["adl_short"]++
		}
		l.stats["adl"]++
		return len(l.legs) > 0
	default:
		return false
	}
	return true
}

// check asserts the ledger's invariants.
func (l *ledger) check(step int, what string) {
	l.t.Helper()
	// Cash: collateral + allocations + fund − open cost basis (cash that
	// went into entry prices; Σ sign·cost = Σ size·entry) = deposits −
	// withdrawals − venue fees, to the micro-unit.
	var sum int64
	for _, a := range append(slices.Clone(l.accts), l.fund) {
		sum += a.Collateral
		for _, p := range a.Positions {
			m := l.mk[p.IID]
			var c calc
			basis := m.toMicro(&c, sign(p.Size)*p.Cost, floor)
			if c.bad || m.PriceDecimals+m.QtyDecimals > MicroDecimals {
				l.t.Fatalf("grid too fine for an exact basis")
			}
			sum += p.Margin - basis
		}
	}
	if want := l.deposits - l.withdrawn - l.venueFees; sum != want {
		l.t.Fatalf("step %d (%s): cash %d, want %d (off by %d)", step, what, sum, want, sum-want)
	}
	// CrossEquity (the adl_index cache's) is Evaluate's equity.
	for _, a := range l.accts {
		s, err := Evaluate(a, l.mk)
		eq, err2 := CrossEquity(a, l.mk)
		if err != err2 || eq != s.Equity {
			l.t.Fatalf("step %d (%s): CrossEquity %d, %v; Evaluate %d, %v", step, what, eq, err2, s.Equity, err)
		}
	}
	// No scope below maintenance (exact, no rounding: values in micro-units
	// times lcm(2·maxLev), so every MM is an integer) without its flag.
	var c calc
	den := int64(1)
	for _, m := range l.mk {
		den = lcm(den, 2*m.MaxLeverage)
	}
	for _, a := range l.accts {
		crossE, crossMM := c.mul(a.Collateral, den), int64(0)
		for _, p := range a.Positions {
			m := l.mk[p.IID]
			scale := pow10(MicroDecimals - int(m.PriceDecimals) - int(m.QtyDecimals))
			u := c.mul(c.mul(c.sub(c.mul(p.Size, m.Mark), sign(p.Size)*p.Cost), scale), den)
			mm := c.mul(c.mul(abs(p.Size)*m.Mark, scale), den/(2*m.MaxLeverage))
			if a.Setting(&m.Instrument).Cross {
				crossE, crossMM = c.add(crossE, u), c.add(crossMM, mm)
				continue
			}
			if e := c.add(u, c.mul(p.Margin, den)); e < mm && !p.Liquidating {
				l.t.Fatalf("step %d (%s): account %d isolated %d below maintenance (%d < %d, /%d) unflagged",
					step, what, a.ID, p.IID, e, mm, den)
			}
		}
		if crossMM > 0 && crossE < crossMM && !a.Liquidating {
			l.t.Fatalf("step %d (%s): account %d cross below maintenance (%d < %d, /%d) unflagged",
				step, what, a.ID, crossE, crossMM, den)
		}
	}
	if c.bad {
		l.t.Fatalf("step %d: reference check overflowed", step)
	}
}

func lcm(a, b int64) int64 {
	x, y := a, b
	for y != 0 {
		x, y = y, x%y
	}
	return a / x * b
}

func (l *ledger) String() string {
	return fmt.Sprintf("fund %d venue %d deposits %d stats %v", l.fund.Collateral, l.venueFees, l.deposits, l.stats)
}
