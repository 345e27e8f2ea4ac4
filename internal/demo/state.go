package demo

import (
	"math"
	"math/rand/v2"

	"pmx/internal/amount"
)

// The generator's model uses float64 only to shape randomness (price paths,
// size distributions); every quantity it emits or accounts with (holdings,
// cash, prices, sizes) is an exact amount.Micro.

// Market lifecycle states.
const (
	pending  = iota // not yet declared
	live            // declared and trading
	closed          // past its end date, awaiting resolution
	resolved        // resolution emitted
)

type event struct {
	id       int64
	slug     string
	title    string
	cat      *category
	negRisk  bool
	icon     string
	created  int64
	end      int64 // trading stops
	resolve  int64 // resolution time, 0 if not within the window
	markets  []*market
	winner   int       // neg-risk: index of the market whose YES wins
	scores   []float64 // neg-risk: latent strengths (softmax -> YES prices)
	lastMove int64
}

type market struct {
	ev        *event
	idx       int // within the event
	id        int64
	cond      string
	question  string
	slug      string
	outcomes  []string
	tokens    [2]int32 // token indexes, outcome order
	state     int
	x         float64 // binary: logit of outcome 0's price
	winner    int     // binary: winning outcome, -1 for a 50/50 split
	payouts   [2]amount.Micro
	pop       float64
	holders   []int32 // wallets that ever held one of its tokens, first-acquired order
	holderSet map[int32]bool
	archived  bool
}

// price of outcome 0 (YES) in (0,1), as a model float.
func (m *market) yes() float64 {
	if !m.ev.negRisk {
		return sigmoid(m.x)
	}
	s := m.ev.scores
	mx := s[0]
	for _, v := range s {
		mx = math.Max(mx, v)
	}
	var sum float64
	for _, v := range s {
		sum += math.Exp(v - mx)
	}
	return math.Exp(s[m.idx]-mx) / sum
}

// combo is a combinatorial market over legs (each an outcome of a market).
type combo struct {
	cond    string
	tokens  [2]int32 // Yes, No position tokens
	legs    []*market
	legOut  []int
	state   int
	payouts [2]amount.Micro
	holders []int32
	hset    map[int32]bool
}

// token is one outcome token: of a market or of a combo.
type token struct {
	id      string
	m       *market
	c       *combo
	outcome int
	buyers  [8]int32 // recent buyers, a cheap pool of retail makers
	nbuy    int
}

// pos is one holding; listed says it is in the wallet's held list.
type pos struct {
	amt    amount.Micro
	listed bool
}

type wallet struct {
	addr      string
	joined    int64
	mm        bool
	scale     float64 // typical trade size multiplier
	cash      amount.Micro
	hold      map[int32]*pos
	held      []int32 // tokens with (possibly) non-zero holdings; pruned lazily
	lastSeen  int64
	madeToday amount.Micro // maker notional since the last daily job
	feesToday amount.Micro
	dayListed bool
}

func (w *wallet) amt(t int32) amount.Micro {
	if p := w.hold[t]; p != nil {
		return p.amt
	}
	return 0
}

// add changes a holding; it panics if the holding would go negative, since
// that is a bug in the generator, never a data condition.
func (w *wallet) add(t int32, d amount.Micro) {
	p := w.hold[t]
	if p == nil {
		p = &pos{}
		w.hold[t] = p
	}
	p.amt += d
	if p.amt < 0 {
		panic("demo: negative holding")
	}
	if p.amt > 0 && !p.listed {
		p.listed = true
		w.held = append(w.held, t)
	}
}

// randomHeld returns a random token the wallet holds, pruning empty entries.
func (w *wallet) randomHeld(r *rand.Rand) (int32, bool) {
	for len(w.held) > 0 {
		i := r.IntN(len(w.held))
		t := w.held[i]
		if p := w.hold[t]; p.amt > 0 {
			return t, true
		}
		w.hold[t].listed = false
		w.held[i] = w.held[len(w.held)-1]
		w.held = w.held[:len(w.held)-1]
	}
	return 0, false
}

func sigmoid(x float64) float64 { return 1 / (1 + math.Exp(-x)) }

// usd rounds a model dollar figure to whole cents.
func usd(f float64) amount.Micro { return amount.Micro(math.Round(f*100)) * 10_000 }

// shares rounds a share count down to 0.01.
func shares(f float64) amount.Micro { return amount.Micro(math.Floor(f*100)) * 10_000 }

// floorCents rounds an amount down to 0.01.
func floorCents(m amount.Micro) amount.Micro { return m / 10_000 * 10_000 }

// tickPrice rounds a model price to the venue tick (0.01, or 0.001 near the
// bounds) and keeps it strictly inside (0,1).
func tickPrice(p float64) amount.Micro {
	tick := 10_000.0
	if p < 0.04 || p > 0.96 {
		tick = 1_000
	}
	v := amount.Micro(math.Round(p*amount.Scale/tick) * tick)
	return min(max(v, 1_000), amount.One-1_000)
}

// lognormal draws exp(N(mu, sigma)).
func lognormal(r *rand.Rand, mu, sigma float64) float64 { return math.Exp(mu + sigma*r.NormFloat64()) }
