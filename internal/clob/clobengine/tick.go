package clobengine

import (
	"pmx/internal/clob/clob"
	"pmx/internal/exchange/book"
)

// TickChange is a market's tick size change: the grids (ticks per 1.0)
// before and after.
type TickChange struct {
	Mkt      uint32
	Cond     string
	Old, New int64
}

// GridTicks is the public grid (ticks per 1.0) orders must be on.
func (mk *Market) GridTicks() int64 {
	if mk.Grid > 0 {
		return mk.Grid
	}
	return mk.Ticks
}

// setTickSize changes a market's tick size (the operator's stand-in for
// production's tick size changes, docs/clob.md "Tick size changes"). New
// orders must be on the new grid. The internal grid prices are kept in only
// ever gets finer: a finer tick rescales the market's book, orders, last
// trades and retained trades exactly (every old price is on the finer
// grid); a coarser one changes only the rule for new orders, so resting
// orders keep their prices and priority.
func (m *Machine) setTickSize(c *Command) Result {
	mk, err := m.openMarket(c.Cond)
	if err != nil {
		return Result{Err: err}
	}
	if _, err := clob.TicksOf(clobTick(c.Ticks)); err != nil {
		return Result{Err: clob.E(clob.ErrInvalidTickSize)}
	}
	old := mk.GridTicks()
	if c.Ticks == old {
		return Result{}
	}
	if c.Ticks > mk.Ticks {
		m.refine(mk, c.Ticks)
	}
	mk.Grid = c.Ticks
	if mk.Grid == mk.Ticks {
		mk.Grid = 0
	}
	return Result{TickChange: &TickChange{Mkt: mk.ID, Cond: mk.ConditionID, Old: old, New: c.Ticks}}
}

// refine moves mk's internal grid to ticks (a multiple of the current
// one): every stored price of the market is multiplied by the factor, and
// the book is rebuilt with its orders in the same priority.
func (m *Machine) refine(mk *Market, ticks int64) {
	f := ticks / mk.Ticks
	var rest []book.OrderInfo
	mk.book.Orders(func(o book.OrderInfo) bool { rest = append(rest, o); return true })
	mk.Ticks, mk.upt = ticks, Unit/ticks
	mk.book = book.New(book.Config{Ticks: ticks, Complement: true, STP: book.STPNone})
	for _, o := range m.orders {
		if o.Mkt == mk.ID {
			o.Price *= f
		}
	}
	for _, o := range m.done {
		if o.Mkt == mk.ID {
			o.Price *= f
		}
	}
	for _, bi := range rest {
		o := m.orders[bi.OID]
		m.cmd = book.Command{Seq: o.OID, Time: bi.Time, Op: book.OpAdd, Side: book.Side(o.Side), TIF: book.GTC,
			Outcome: book.Outcome(o.Outcome), OID: o.OID, Owner: o.OID, Price: o.Price, Qty: o.Orig - o.Filled}
		m.bev = mk.book.Apply(&m.cmd, m.bev[:0])
	}
	for i := range mk.Last {
		mk.Last[i].Price *= f
	}
	for _, t := range m.trades {
		if t.Mkt == mk.ID {
			t.Price, t.MakerPrice, t.Ticks = t.Price*f, t.MakerPrice*f, ticks
		}
	}
}
