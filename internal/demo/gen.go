package demo

import (
	"container/heap"
	"encoding/hex"
	"math"
	"math/big"
	"math/rand/v2"
	"slices"
	"sort"
	"strconv"
	"strings"

	"pmx/internal/amount"
	"pmx/internal/catalog/catalog"
	"pmx/internal/data/ledger"
)

// gen is one run of the generator. Everything it iterates is a slice (never
// a map), so the output depends only on the Options.
type gen struct {
	opts  Options
	r     *rand.Rand // the simulation
	hr    *rand.Rand // tx hashes only
	emitF func(*ledger.Event) error
	err   error

	t0, now  int64
	clock    int64
	block0   int64
	curBlock int64
	logIdx   int64

	wallets    []*wallet
	mms        []int32
	early      []int32   // non-MM wallets that joined before the window
	zipfOrder  []int32   // non-MM wallets by activity rank
	zipfCum    []float64 // cumulative activity weights over zipfOrder
	builders   []string
	events     []*event
	live       []*market
	liveCum    []float64
	liveDirty  bool
	liveAt     int64 // when liveCum was last built
	tokens     []*token
	combos     []*combo
	dayMakers  []int32
	sched      schedule
	seq        int64
	usedSlugs  map[string]bool
	usedTitles map[string]bool
	usedNames  map[string]bool
	tradeGoal  int
	trades     int
}

func newGen(opts Options, emit func(*ledger.Event) error) *gen {
	now := opts.Now.Unix()
	return &gen{
		opts:       opts,
		r:          rand.New(rand.NewPCG(opts.Seed, 0x5eed_da7a)),
		hr:         rand.New(rand.NewPCG(opts.Seed^0x9e3779b97f4a7c15, 0x7a5)),
		emitF:      emit,
		now:        now,
		t0:         now - int64(Window.Seconds()),
		clock:      now - int64(Window.Seconds()),
		block0:     78_000_000,
		usedSlugs:  map[string]bool{},
		usedTitles: map[string]bool{},
		usedNames:  map[string]bool{},
		tradeGoal:  int(math.Round(fullTrades * opts.Scale)),
	}
}

func (g *gen) scaled(full float64, floor int) int {
	return max(floor, int(math.Round(full*g.opts.Scale)))
}

func (g *gen) run() error {
	g.setupBuilders()
	g.setupWallets()
	g.setupEvents()
	g.setupCombos()
	g.scheduleDays()
	if g.err != nil {
		return g.err
	}
	// Ticks arrive as a Poisson process thinned by a daily activity curve;
	// most ticks are trades, the rest other account actions.
	const tradeShare = 0.93
	rate := float64(g.tradeGoal) / tradeShare * 1.03 / float64(g.now-g.t0) * diurnalMax / diurnalMean
	t := float64(g.t0)
	for g.err == nil {
		t += g.r.ExpFloat64() / rate
		ti := int64(t)
		if ti >= g.now {
			break
		}
		g.runDue(ti)
		if g.r.Float64()*diurnalMax > diurnal[(ti/3600)%24] {
			continue
		}
		g.clock = ti
		if g.r.Float64() < tradeShare {
			for try := 0; try < 4 && !g.trade(ti); try++ {
			}
		} else {
			g.other(ti)
		}
	}
	g.runDue(g.now)
	return g.err
}

// diurnal is relative activity by UTC hour (US evening peak).
var diurnal = [24]float64{1.2, 1.1, 1.0, 0.8, 0.6, 0.5, 0.45, 0.45, 0.5, 0.6, 0.7, 0.8,
	0.9, 1.0, 1.1, 1.2, 1.3, 1.35, 1.4, 1.4, 1.35, 1.3, 1.3, 1.25}

const diurnalMax = 1.4

var diurnalMean = func() float64 {
	var s float64
	for _, v := range diurnal {
		s += v
	}
	return s / 24
}()

// --- scheduling ---

type job struct {
	t   int64
	seq int64
	fn  func(t int64)
}

type schedule []job

func (s schedule) Len() int { return len(s) }
func (s schedule) Less(i, j int) bool {
	return s[i].t < s[j].t || s[i].t == s[j].t && s[i].seq < s[j].seq
}
func (s schedule) Swap(i, j int) { s[i], s[j] = s[j], s[i] }
func (s *schedule) Push(x any)   { *s = append(*s, x.(job)) }
func (s *schedule) Pop() any {
	old := *s
	x := old[len(old)-1]
	*s = old[:len(old)-1]
	return x
}

// at runs fn at time t (not before the current clock, not after the window).
func (g *gen) at(t int64, fn func(t int64)) {
	t = max(t, g.clock)
	if t > g.now {
		return
	}
	g.seq++
	heap.Push(&g.sched, job{t: t, seq: g.seq, fn: fn})
}

func (g *gen) runDue(t int64) {
	for g.err == nil && len(g.sched) > 0 && g.sched[0].t <= t {
		j := heap.Pop(&g.sched).(job)
		g.clock = j.t
		j.fn(j.t)
	}
}

// --- emission ---

func (g *gen) put(e *ledger.Event) {
	if g.err == nil {
		g.err = g.emitF(e)
	}
}

// chain stamps the envelope: one tx per event, blocks every 2 s, the block's
// time as the timestamp, log indexes counting up within a block.
func (g *gen) chain(e *ledger.Event, t int64) {
	blk := g.block0 + (t-g.t0)/2
	if blk != g.curBlock {
		g.curBlock, g.logIdx = blk, 0
	}
	var h [32]byte
	for i := 0; i < 4; i++ {
		v := g.hr.Uint64()
		for j := 0; j < 8; j++ {
			h[i*8+j] = byte(v >> (8 * j))
		}
	}
	e.TxHash = "0x" + hex.EncodeToString(h[:])
	e.LogIndex = g.logIdx
	g.logIdx++
	e.BlockNumber = blk
	e.Timestamp = g.t0 + (blk-g.block0)*2
	g.put(e)
}

// --- ids ---

func (g *gen) hexID(nbytes int) string {
	b := make([]byte, nbytes)
	for i := range b {
		b[i] = byte(g.r.Uint32())
	}
	return "0x" + hex.EncodeToString(b)
}

// tokenID is a random uint256 in decimal, as ERC-1155 position ids look.
func (g *gen) tokenID() string {
	b := make([]byte, 32)
	for i := range b {
		b[i] = byte(g.r.Uint32())
	}
	b[0] |= 0x10 // 76-78 digits
	return new(big.Int).SetBytes(b).String()
}

func (g *gen) newToken(t *token) int32 {
	g.tokens = append(g.tokens, t)
	return int32(len(g.tokens) - 1)
}

func (g *gen) slug(s string) string {
	base := catalog.Slugify(s)
	out := base
	for i := 2; g.usedSlugs[out]; i++ {
		out = base + "-" + strconv.Itoa(i)
	}
	g.usedSlugs[out] = true
	return out
}

// --- setup ---

var builderNames = []string{"betmoar", "PolyTrader", "Oddsbook", "MarketPulse", "Predictr", "Sharpline"}

func (g *gen) setupBuilders() {
	for i, n := range builderNames {
		code := g.hexID(32)
		g.builders = append(g.builders, code)
		g.put(&ledger.Event{Kind: ledger.KindBuilder, Code: code, Name: n, Verified: i < 3,
			ProfileImage: "https://pmx.example/builders/" + catalog.Slugify(n) + ".png"})
	}
}

func (g *gen) setupWallets() {
	n := g.scaled(fullWallets, 60)
	nmm := min(12, max(3, n/50))
	threeYears := int64(3 * 365 * 86400)
	for i := 0; i < n; i++ {
		w := &wallet{addr: g.hexID(20), hold: map[int32]*pos{}, scale: lognormal(g.r, 0, 0.8)}
		switch {
		case i < nmm:
			w.mm = true
			w.joined = g.t0 - 400*86400
			g.mms = append(g.mms, int32(i))
		case g.r.Float64() < 0.7:
			w.joined = g.t0 - 86400 - g.r.Int64N(threeYears)
			g.early = append(g.early, int32(i))
		default:
			w.joined = g.t0 + g.r.Int64N(g.now-g.t0-86400)
		}
		g.wallets = append(g.wallets, w)
	}
	// Activity follows a power law over a random ranking; the top 2% are whales.
	for _, i := range g.r.Perm(n) {
		if !g.wallets[i].mm {
			g.zipfOrder = append(g.zipfOrder, int32(i))
		}
	}
	var cum float64
	for rank, i := range g.zipfOrder {
		cum += 1 / math.Pow(float64(rank)+5, 1.1)
		g.zipfCum = append(g.zipfCum, cum)
		if rank < len(g.zipfOrder)/50 {
			g.wallets[i].scale *= 8
		}
	}
	for i, w := range g.wallets {
		if w.joined <= g.t0 {
			g.profile(int32(i))
		} else {
			i := int32(i)
			g.at(w.joined, func(int64) { g.profile(i) })
		}
	}
}

func (g *gen) profile(i int32) {
	w := g.wallets[i]
	e := &ledger.Event{Kind: ledger.KindProfile, Address: w.addr, Pseudonym: pseudonym(g.r), JoinedAt: w.joined,
		Views: int64(lognormal(g.r, 3, 1.5))}
	if w.mm || g.r.Float64() < 0.6 {
		e.Name = userName(g.r)
		for n := 2; g.usedNames[e.Name]; n++ { // handles are unique
			e.Name = strings.TrimRight(e.Name, "0123456789") + strconv.Itoa(n)
		}
		g.usedNames[e.Name] = true
	}
	if g.r.Float64() < 0.15 {
		e.Bio = "Trading " + pick(g.r, categories).name + " since " + strconv.Itoa(2020+g.r.IntN(6)) + "."
	}
	if g.r.Float64() < 0.3 {
		e.ProfileImage = "https://pmx.example/avatars/" + w.addr[2:12] + ".png"
	}
	e.Verified = w.mm || g.r.Float64() < 0.015
	g.put(e)
}

// pickWallet draws an active (joined) non-MM wallet by activity weight.
func (g *gen) pickWallet(t int64) int32 {
	for try := 0; try < 4; try++ {
		x := g.r.Float64() * g.zipfCum[len(g.zipfCum)-1]
		i := g.zipfOrder[sort.SearchFloat64s(g.zipfCum, x)]
		if g.wallets[i].joined <= t {
			return i
		}
	}
	return g.early[g.r.IntN(len(g.early))]
}

func (g *gen) setupEvents() {
	n := g.scaled(fullEvents, 10)
	var total int
	for _, c := range categories {
		total += c.weight
	}
	for i := 0; i < n; i++ {
		// The first few cover every category, so small worlds have them all.
		cat := &categories[i%len(categories)]
		if i >= len(categories) {
			x := g.r.IntN(total)
			for j := range categories {
				if x < categories[j].weight {
					cat = &categories[j]
					break
				}
				x -= categories[j].weight
			}
		}
		created := g.t0 + g.r.Int64N(g.now-g.t0-12*3600)
		if i < len(categories) || g.r.Float64() < 0.35 {
			created = g.t0 + g.r.Int64N(36*3600)
		}
		lo, hi := math.Log(cat.minLife.Seconds()), math.Log(cat.maxLife.Seconds())
		end := created + int64(math.Exp(lo+g.r.Float64()*(hi-lo)))
		ev := &event{id: 20_000 + int64(i), cat: cat, created: created, end: end, lastMove: created}
		if end+8*3600 < g.now && g.r.Float64() < 0.93 {
			ev.resolve = end + 3600 + g.r.Int64N(7*3600)
		}
		g.events = append(g.events, ev)
		g.at(created, func(t int64) { g.openEvent(ev, t) })
	}
}

func (g *gen) scheduleDays() {
	first := (g.t0/86400 + 1) * 86400
	for d := first; d < g.now; d += 86400 {
		g.at(d+300, g.daily)
	}
}

// liveMarket draws a live market by popularity; markets near their end
// trade more. The weights are rebuilt when the live set changes or hourly.
func (g *gen) liveMarket(t int64) *market {
	if g.liveDirty || t-g.liveAt > 3600 {
		g.live = g.live[:0]
		g.liveCum = g.liveCum[:0]
		var cum float64
		for _, ev := range g.events {
			for _, m := range ev.markets {
				if m.state != live {
					continue
				}
				w := m.pop
				if ev.end-t < 86400 {
					w *= 3
				}
				cum += w
				g.live = append(g.live, m)
				g.liveCum = append(g.liveCum, cum)
			}
		}
		g.liveDirty, g.liveAt = false, t
	}
	if len(g.live) == 0 {
		return nil
	}
	x := g.r.Float64() * g.liveCum[len(g.liveCum)-1]
	return g.live[min(sort.SearchFloat64s(g.liveCum, x), len(g.live)-1)]
}

// price is the current tick price of a market's outcome.
func (g *gen) price(m *market, outcome int) amount.Micro {
	p := m.yes()
	if outcome == 1 {
		p = 1 - p
	}
	return tickPrice(p)
}

// move advances an event's latent prices to t: a random walk in logit space
// bridged towards the predetermined outcome as the end date nears.
func (g *gen) move(ev *event, t int64) {
	dt := float64(t-ev.lastMove) / 86400
	if dt <= 0 {
		return
	}
	ev.lastMove = t
	rem := math.Max(float64(ev.end-t)/86400, 0)
	pull := math.Min(1, dt/(rem+0.3))
	step := math.Sqrt(dt)
	if !ev.negRisk {
		m := ev.markets[0]
		target := 0.0
		switch m.winner {
		case 0:
			target = 6.5
		case 1:
			target = -6.5
		}
		m.x += (target-m.x)*pull + 0.45*step*g.r.NormFloat64()
		m.x = math.Max(-7, math.Min(7, m.x))
		return
	}
	for i := range ev.scores {
		target := 0.0
		if i == ev.winner {
			target = 7.5
		}
		ev.scores[i] += (target-ev.scores[i])*pull + 0.35*step*g.r.NormFloat64()
		ev.scores[i] = math.Max(-8, math.Min(9, ev.scores[i]))
	}
}

func (g *gen) pickBuilder() string {
	if g.r.Float64() > 0.3 {
		return ""
	}
	// Earlier builders carry more flow.
	return g.builders[min(int(g.r.ExpFloat64()*1.5), len(g.builders)-1)]
}

// holderOf records that wallet wi acquired a market or combo token.
func (g *gen) give(wi int32, tok int32, d amount.Micro) {
	w := g.wallets[wi]
	w.add(tok, d)
	if d <= 0 {
		return
	}
	t := g.tokens[tok]
	if t.m != nil {
		if t.m.holderSet == nil {
			t.m.holderSet = map[int32]bool{}
		}
		if !t.m.holderSet[wi] {
			t.m.holderSet[wi] = true
			t.m.holders = append(t.m.holders, wi)
		}
	} else if !t.c.hset[wi] {
		t.c.hset[wi] = true
		t.c.holders = append(t.c.holders, wi)
	}
}

func bools(v bool) *bool { return &v }

// sortedHolders is a deterministic copy (holders are already in first-
// acquired order; the copy keeps callers from aliasing).
func sortedHolders(h []int32) []int32 { return slices.Clone(h) }
