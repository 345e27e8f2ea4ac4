// Package workload generates seeded order-book command streams. The stream
// is a pure function of the Config (no clock, no global randomness), so the
// same workload can drive this repo's book, its reference book, a benchmark,
// or another order-book implementation through a small adapter.
package workload

import (
	"math/rand/v2"

	"pmx/internal/exchange/book"
)

// Mix weights the kinds of command. Weights are relative (they need not sum
// to 100); zero disables a kind.
type Mix struct {
	Add        int // passive GTC limit on its own side of Mid
	Cancel     int // cancel of a placed order from the outer band (see Config.Resting)
	Cross      int // IOC limit Spread/2 through Mid: sweeps the inner band
	CrossGTC   int // GTC limit up to Spread/2 through Mid: the remainder rests
	Modify     int // new price near the old one and/or new total size
	Market     int // market IOC
	FOK        int // FOK limit through Mid
	PostOnly   int // post-only GTC near Mid (sometimes crosses, then rejected)
	ReduceOnly int // reduce-only IOC (the book's limiter decides)
	Invalid    int // zero qty, off-grid price, duplicate or unknown OIDs, bad flag mixes
}

// Bench is the benchmark mix: 60% add, 30% cancel, 10% crossing.
var Bench = Mix{Add: 60, Cancel: 30, Cross: 10}

// Everything exercises every command kind; differential tests use it.
var Everything = Mix{Add: 40, Cancel: 15, Cross: 8, CrossGTC: 4, Modify: 12, Market: 3, FOK: 4, PostOnly: 6, ReduceOnly: 3, Invalid: 5}

// Config fixes a stream.
type Config struct {
	Seed       uint64
	Book       uint32
	Ticks      int64 // book grid (book.Config.Ticks)
	Mid        int64 // centre price in ticks; default Ticks/2
	Spread     int64 // passive orders rest within Spread ticks of Mid; default 64
	Drift      bool  // let Mid random-walk by one tick now and then
	Owners     uint64
	MaxQty     int64 // passive sizes are 1..MaxQty lots; default 10
	Complement bool  // emit OutcomeNo orders half the time
	// Resting is the target number of orders in the outer band (more than
	// Spread/2 ticks from Mid, out of reach of crossing orders while Mid
	// stands still). Passive adds go there while fewer than Resting have
	// been placed, otherwise to the inner band, which crossing orders eat.
	// Cancels and modifies pick from the outer band, so with a fixed Mid
	// every cancel hits a live order and the book holds about Resting
	// orders in steady state. Default 10000.
	Resting   int
	Mix       Mix
	StartTime int64 // Command.Time of the first command
	Step      int64 // time between commands; default 1000 (1 µs)
}

// Generator produces the stream one command at a time without allocating
// (beyond growth of its list of placed OIDs).
type Generator struct {
	cfg   Config
	rng   *rand.Rand
	seq   uint64
	oid   uint64
	mid   int64
	time  int64
	live  []uint64 // outer-band OIDs placed and not yet chosen for cancel
	cum   [10]int
	total int
}

// New returns a generator for cfg.
func New(cfg Config) *Generator {
	if cfg.Ticks < 8 {
		cfg.Ticks = 1 << 14
	}
	if cfg.Mid <= 0 || cfg.Mid >= cfg.Ticks {
		cfg.Mid = cfg.Ticks / 2
	}
	if cfg.Spread <= 0 {
		cfg.Spread = 64
	}
	cfg.Spread = min(cfg.Spread, cfg.Mid-1, cfg.Ticks-1-cfg.Mid)
	if cfg.Owners == 0 {
		cfg.Owners = 1000
	}
	if cfg.MaxQty <= 0 {
		cfg.MaxQty = 10
	}
	if cfg.Resting <= 0 {
		cfg.Resting = 10_000
	}
	if cfg.Step == 0 {
		cfg.Step = 1000
	}
	if cfg.Mix == (Mix{}) {
		cfg.Mix = Bench
	}
	g := &Generator{cfg: cfg, rng: rand.New(rand.NewPCG(cfg.Seed, cfg.Seed^0x5eed)), mid: cfg.Mid, time: cfg.StartTime}
	m := cfg.Mix
	for i, w := range [10]int{m.Add, m.Cancel, m.Cross, m.CrossGTC, m.Modify, m.Market, m.FOK, m.PostOnly, m.ReduceOnly, m.Invalid} {
		g.total += max(w, 0)
		g.cum[i] = g.total
	}
	return g
}

// Generate returns the first n commands of cfg's stream.
func Generate(cfg Config, n int) []book.Command {
	g := New(cfg)
	out := make([]book.Command, n)
	for i := range out {
		g.Next(&out[i])
	}
	return out
}

func (g *Generator) intn(n int64) int64 { return g.rng.Int64N(n) }

// price clamps p to the grid.
func (g *Generator) price(p int64) int64 { return min(max(p, 1), g.cfg.Ticks-1) }

// pickLive removes and returns a random placed OID (0 if none).
func (g *Generator) pickLive() uint64 {
	n := len(g.live)
	if n == 0 {
		return 0
	}
	i := g.rng.IntN(n)
	oid := g.live[i]
	g.live[i] = g.live[n-1]
	g.live = g.live[:n-1]
	return oid
}

// peekLive returns a random placed OID without removing it (0 if none).
func (g *Generator) peekLive() uint64 {
	if len(g.live) == 0 {
		return 0
	}
	return g.live[g.rng.IntN(len(g.live))]
}

// Next overwrites c with the next command.
func (g *Generator) Next(c *book.Command) {
	g.seq++
	g.time += g.cfg.Step
	*c = book.Command{Seq: g.seq, Time: g.time, Book: g.cfg.Book, Owner: 1 + g.rng.Uint64N(g.cfg.Owners)}
	if g.cfg.Drift && g.intn(64) == 0 {
		g.mid = g.price(g.mid + 2*g.intn(2) - 1)
		g.mid = min(max(g.mid, g.cfg.Spread+1), g.cfg.Ticks-1-g.cfg.Spread)
	}
	k := g.rng.IntN(max(g.total, 1))
	kind := 0
	for kind < len(g.cum)-1 && k >= g.cum[kind] {
		kind++
	}
	sp := g.cfg.Spread
	switch kind {
	case 0: // passive add
		half := sp / 2
		if len(g.live) < g.cfg.Resting || half == 0 {
			g.limit(c, book.GTC, half+1+g.intn(sp-half))
			g.live = append(g.live, c.OID)
		} else {
			g.limit(c, book.GTC, 1+g.intn(half))
		}
	case 1: // cancel
		c.Op, c.OID = book.OpCancel, g.pickLive()
		if c.OID == 0 {
			c.OID = g.oid + 1 // unknown: nothing placed yet
		}
	case 2, 3, 6: // crossing limit: IOC, GTC, FOK
		tif := [...]book.TIF{2: book.IOC, 3: book.GTC, 6: book.FOK}[kind]
		reach := sp / 2 // IOC sweeps the whole inner band so it cannot silt up
		if tif != book.IOC {
			reach = g.intn(sp/2 + 1)
		}
		g.limit(c, tif, -reach)
		c.Qty = 1 + g.intn(4*g.cfg.MaxQty)
		if tif == book.GTC {
			g.live = append(g.live, c.OID)
		}
	case 4: // modify
		c.Op, c.OID = book.OpModify, g.peekLive()
		side := book.Side(g.intn(2))
		c.Price = g.price(g.mid + (2*int64(side)-1)*(1+g.intn(sp))) // new price on a side of Mid; may cross
		c.Qty = 1 + g.intn(2*g.cfg.MaxQty)
	case 5: // market
		g.add(c, book.IOC)
		c.Flags |= book.Market
		c.Qty = 1 + g.intn(4*g.cfg.MaxQty)
	case 7: // post-only near the touch
		g.limit(c, book.GTC, g.intn(3)-1)
		c.Flags |= book.PostOnly
		g.live = append(g.live, c.OID)
	case 8: // reduce-only
		g.limit(c, book.IOC, -g.intn(sp/2+1))
		c.Flags |= book.ReduceOnly
	default:
		g.invalid(c)
	}
}

// add fills in a fresh add with random side and outcome.
func (g *Generator) add(c *book.Command, tif book.TIF) {
	g.oid++
	c.Op, c.OID, c.TIF = book.OpAdd, g.oid, tif
	c.Side = book.Side(g.intn(2))
	c.Qty = 1 + g.intn(g.cfg.MaxQty)
	if g.cfg.Complement && g.intn(2) == 0 {
		c.Outcome = book.OutcomeNo
	}
}

// limit makes a limit add `away` ticks from Mid on the passive side
// (negative away crosses Mid), written in the order's own terms.
func (g *Generator) limit(c *book.Command, tif book.TIF, away int64) {
	g.add(c, tif)
	bookSide := c.Side
	if c.Outcome == book.OutcomeNo {
		bookSide = c.Side.Opposite()
	}
	p := g.mid - away
	if bookSide == book.Sell {
		p = g.mid + away
	}
	p = g.price(p)
	if c.Outcome == book.OutcomeNo {
		p = g.cfg.Ticks - p
	}
	c.Price = p
}

func (g *Generator) invalid(c *book.Command) {
	g.limit(c, book.GTC, 1+g.intn(g.cfg.Spread))
	switch g.intn(10) {
	case 0:
		c.Qty = []int64{0, -1, book.MaxQty + 1}[g.intn(3)]
	case 1:
		c.Price = []int64{0, -1, g.cfg.Ticks, g.cfg.Ticks + 5}[g.intn(4)]
	case 2: // duplicate of something placed earlier (maybe still live)
		if o := g.peekLive(); o != 0 {
			c.OID = o
		}
	case 3:
		c.TIF = book.IOC
		c.Flags |= book.PostOnly
	case 4:
		c.Flags |= book.Market // market GTC
	case 5:
		c.Op, c.OID = book.OpCancel, g.oid+1_000_000 // never placed
	case 6:
		c.OID = 0
	case 7:
		c.Side = 2
	case 8:
		c.Outcome = book.OutcomeNo + 1
		if !g.cfg.Complement {
			c.Outcome = book.OutcomeNo
		}
	default:
		c.Op = book.Op(9)
	}
}
