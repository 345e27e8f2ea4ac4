package perps

import (
	"strconv"
)

// Equity and PnL history (GET /v1/account/equity, /v1/account/pnl;
// docs/perps.md "equity and pnl history"). Samples are machine state taken in
// engine time, so a replay records the same ones:
//
//   - an account's equity (balance + unrealized pnl at the portfolio's mark)
//     is sampled at the end of every command that booked pnl, a fee, funding
//     or a balance change for it, and, once per engine hour (the first command
//     whose ts enters a new hour), for every account holding a position;
//   - realized pnl (fill pnl − fees, funding) is summed per hour and per day.
//
// Each series keeps the last sample of each of its buckets (a later sample
// in the same bucket replaces it; pnl buckets add up) and a bounded number
// of buckets, so an account's history is at most histBound points whatever
// its activity.
const (
	minuteMs = int64(60_000)
	hourMs   = 60 * minuteMs

	eqMinKeep   = 1440 // 1-minute equity samples: one day
	eqHourKeep  = 720  // hourly: 30 days
	eqDayKeep   = 730  // daily: two years
	pnlHourKeep = 720  // hourly pnl sums: 30 days
	pnlDayKeep  = 730  // daily pnl sums: two years

	// HistoryPage is the most points one history answer holds.
	HistoryPage = 1000
)

// histBound is the most points an account's History holds (each series may
// run a quarter over its keep before it is trimmed).
const histBound = (eqMinKeep + eqHourKeep + eqDayKeep + pnlHourKeep + pnlDayKeep) * 5 / 4

// Point is one sample: its time (ms) and value (micro).
type Point struct {
	TS int64 `json:"t"`
	V  int64 `json:"v"`
}

// History is an account's sampled equity and realized pnl.
type History struct {
	EqMin   []Point `json:"em,omitempty"`
	EqHour  []Point `json:"eh,omitempty"`
	EqDay   []Point `json:"ed,omitempty"`
	PnLHour []Point `json:"ph,omitempty"`
	PnLDay  []Point `json:"pd,omitempty"`

	seen uint64 // histGen of the last Apply that queued the account (not state)
}

// put records v at ts in s (buckets of res ms, at most keep of them): it
// replaces the bucket's sample, or adds to it when sum; a new bucket's point
// is stamped ts, or its bucket start when sum.
func put(s []Point, res int64, keep int, ts, v int64, sum bool) []Point {
	b := ts / res
	if n := len(s); n > 0 && s[n-1].TS/res == b {
		if sum {
			s[n-1].V = satAdd(s[n-1].V, v)
		} else {
			s[n-1] = Point{ts, v}
		}
		return s
	}
	if len(s) >= keep+keep/4 {
		s = append(s[:0], s[len(s)-keep+1:]...)
	}
	if sum {
		ts = b * res
	}
	return append(s, Point{ts, v})
}

func (a *Account) hist() *History {
	if a.Hist == nil {
		a.Hist = &History{}
	}
	return a.Hist
}

// booked records v (micro, signed) of realized pnl, fees or funding for a
// at ts and queues its equity sample.
func (m *Machine) booked(a *Account, ts, v int64) {
	h := a.hist()
	h.PnLHour = put(h.PnLHour, hourMs, pnlHourKeep, ts, v, true)
	h.PnLDay = put(h.PnLDay, dayMs, pnlDayKeep, ts, v, true)
	m.queueSample(a)
}

func (m *Machine) queueSample(a *Account) {
	if a == nil {
		return
	}
	h := a.hist()
	if h.seen != m.histGen {
		h.seen = m.histGen
		m.histQ = append(m.histQ, a)
	}
}

// recordHistory ends an Apply: the equity of every queued account and of the
// accounts whose balance a money command changed, and the hourly pass when
// ts entered a new hour (prev is the ts of the previous command).
func (m *Machine) recordHistory(prev, ts int64, ev *Event) {
	for _, b := range ev.Balances {
		m.queueSample(m.accts[b.Account])
	}
	for _, d := range ev.Deposits {
		m.queueSample(m.accts[d.Account])
	}
	if ts/hourMs > prev/hourMs {
		for id := uint64(1); id < m.nextAcct; id++ {
			if a := m.byID[id]; a != nil && len(a.Positions) > 0 {
				m.queueSample(a)
			}
		}
	}
	for _, a := range m.histQ {
		if eq, ok := m.equityOf(a); ok {
			h := a.Hist
			h.EqMin = put(h.EqMin, minuteMs, eqMinKeep, ts, eq, false)
			h.EqHour = put(h.EqHour, hourMs, eqHourKeep, ts, eq, false)
			h.EqDay = put(h.EqDay, dayMs, eqDayKeep, ts, eq, false)
		}
	}
	clear(m.histQ)
	m.histQ = m.histQ[:0]
	m.histGen++
}

// equityOf is a's balance plus the unrealized pnl of its positions at the
// portfolio's mark (PortfolioOf's total_account_value); ok false if it does
// not fit an int64.
func (m *Machine) equityOf(a *Account) (int64, bool) {
	eq := a.Balance
	for id, p := range a.Positions { // a sum: order does not matter
		if p.Size == 0 {
			continue
		}
		in := m.inst[id]
		val, ok1 := valueMicro(in, m.markTicks(in, p), p.Size)
		cost, ok2 := tickLotsToMicro(p.Cost, in.PriceDecimals, in.QtyDecimals)
		if !ok1 || !ok2 {
			return 0, false
		}
		u, ok := sub(val, cost)
		if p.Size < 0 {
			u, ok = sub(cost, val)
		}
		if eq, ok = add(eq, u); !ok {
			return 0, false
		}
	}
	return eq, true
}

// HistPoint is one answered point, written [ts, "decimal"].
type HistPoint struct {
	TS int64
	V  int64
}

// MarshalJSON writes [ts,"value"].
func (p HistPoint) MarshalJSON() ([]byte, error) {
	b := append([]byte{'['}, strconv.FormatInt(p.TS, 10)...)
	b = append(b, ',', '"')
	b = append(b, FormatMicro(p.V)...)
	return append(b, '"', ']'), nil
}

// EquityHistory answers GET /v1/account/equity: in buckets of iv ms
// (epoch-aligned), the last equity sample of each, stamped with its own
// time, for samples in [start, end]; oldest first, at most limit, more when
// later buckets matched. The series read is the finest whose buckets fit in
// iv (1-minute below an hour, hourly below a day, else daily).
func (m *Machine) EquityHistory(addr string, iv, start, end int64, limit int) ([]HistPoint, bool) {
	out := []HistPoint{}
	a := m.accts[addr]
	if a == nil || a.Hist == nil || iv <= 0 {
		return out, false
	}
	s := a.Hist.EqDay
	switch {
	case iv < hourMs:
		s = a.Hist.EqMin
	case iv < dayMs:
		s = a.Hist.EqHour
	}
	for i, p := range s {
		if p.TS < start || p.TS > end {
			continue
		}
		if i+1 < len(s) && s[i+1].TS <= end && s[i+1].TS/iv == p.TS/iv {
			continue // not the last of its bucket
		}
		if len(out) == limit {
			return out, true
		}
		out = append(out, HistPoint{p.TS, p.V})
	}
	return out, false
}

// PnLHistory answers GET /v1/account/pnl: realized pnl summed in buckets of
// iv ms (epoch-aligned, iv a multiple of an hour), stamped with the bucket's
// start, for buckets overlapping [start, end]; buckets with no booking are
// omitted; oldest first, at most limit, more when later buckets matched.
func (m *Machine) PnLHistory(addr string, iv, start, end int64, limit int) ([]HistPoint, bool) {
	out := []HistPoint{}
	a := m.accts[addr]
	if a == nil || a.Hist == nil || iv <= 0 {
		return out, false
	}
	s := a.Hist.PnLHour
	if iv >= dayMs {
		s = a.Hist.PnLDay
	}
	for _, p := range s {
		b := p.TS / iv * iv
		if b > end || b+iv <= start {
			continue
		}
		if n := len(out); n > 0 && out[n-1].TS == b {
			out[n-1].V = satAdd(out[n-1].V, p.V)
			continue
		}
		if len(out) == limit {
			return out, true
		}
		out = append(out, HistPoint{b, p.V})
	}
	return out, false
}
