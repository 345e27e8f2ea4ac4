package perps

// An unfilled IOC that cannot cross (docs/perf/placement.md, sixth pass).
//
// A limit IOC whose price does not reach the best opposite level has a
// known outcome: the book accepts it and expires it at once (book.add:
// EvAccepted, then EvExpired with ReasonIOC for its whole quantity; no
// level, no trade, no self-trade check, no book state touched), and enter's
// checks before the book all pass (the at-fill check finds no level to
// take, settlement and close-only were refused at placement). Such an order
// skips the book command and goes straight to the terminal state the full
// path gives it; it is never put into the account's open orders, which the
// full path would empty again before anything reads them. Under
// -tags perpsaudit the book is asked as well (auditUncrossed), and
// TestQuickIOCMatchesTheBook compares both paths on random books.

// uncrossedIOC reports whether an order about to be placed takes the quick
// path: an IOC limit (not reduce-only, which the book may cap or refuse)
// below the best ask (a buy) or above the best bid (a sell). Placement has
// already checked its price (0 < ticks < in.Ticks) and quantity.
func (m *Machine) uncrossedIOC(in *Instrument, tif string, buy bool, ticks int64, reduce bool) bool {
	if tif != "ioc" || reduce || ticks <= 0 || m.noQuick {
		return false
	}
	if buy {
		a, _, ok := in.book.BestAsk()
		return !ok || a > ticks
	}
	b, _, ok := in.book.BestBid()
	return !ok || b < ticks
}

// expireUncrossed is what enter and runBook do with such an order: it ends
// ioc_no_fill (nothing filled, as on every quick path) and its row is
// flushed to ev.
func (m *Machine) expireUncrossed(in *Instrument, o *Order, ts int64, ev *Event) {
	m.auditUncrossed(in, o, ts)
	m.quickIOCs++
	m.cur = in.ID
	m.touch(o)
	m.finish(o, StIOCNoFill, ts)
	m.flush(ev)
}
