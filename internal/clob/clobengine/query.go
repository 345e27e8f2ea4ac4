package clobengine

import (
	"slices"

	"pmx/internal/clob/clob"
	"pmx/internal/exchange/book"
)

// Reads for the service layer. Call them only inside engine.View (or on a
// machine no engine is running).

// Markets returns the registered markets in id order.
func (m *Machine) Markets() []*Market { return m.markets }

// openMarket is the unresolved market of a condition, or the refusal
// (not found, already resolved) of a command that needs one.
func (m *Machine) openMarket(cond string) (*Market, *clob.Error) {
	mk := m.MarketByCond(cond)
	switch {
	case mk == nil:
		return nil, clob.E(clob.ErrMarketNotFound)
	case mk.Res != nil:
		return nil, clob.E(clob.ErrMarketResolved)
	}
	return mk, nil
}

// MarketByCond returns a market by condition id.
func (m *Machine) MarketByCond(cond string) *Market {
	if id, ok := m.byCond[cond]; ok {
		return m.markets[id]
	}
	return nil
}

// TokenMarket returns the market of a token and the token's outcome index.
func (m *Machine) TokenMarket(token string) (*Market, uint8) {
	if r, ok := m.byToken[token]; ok {
		return m.markets[r.mkt], r.outcome
	}
	return nil, 0
}

// Level is one price level in a token's own terms.
type Level struct {
	Price int64 // ticks
	Size  int64 // micro-shares
}

// Depth returns a token's bids and asks, best first, in its own terms: a NO
// token's bids are the YES book's asks at 1-p.
func (mk *Market) Depth(outcome uint8, max int) (bids, asks []Level) {
	conv := func(side book.Side) []Level {
		ls := mk.book.Depth(side, max, nil)
		out := make([]Level, len(ls))
		for i, l := range ls {
			out[i] = Level{Price: ownPrice(l.Price, mk.Ticks, outcome), Size: l.Qty}
		}
		return out
	}
	if outcome == 0 {
		return conv(book.Buy), conv(book.Sell)
	}
	return conv(book.Sell), conv(book.Buy)
}

// Order returns an order (live, delayed or recent terminal) by hash.
func (m *Machine) Order(hash string) *Order { return m.byHash[hash] }

// OpenOrders returns the signer's live and delayed orders, oldest first,
// filtered by hash, market and token when given.
func (m *Machine) OpenOrders(signer, id, cond, token string) []*Order {
	var out []*Order
	for _, o := range m.orders {
		if o.Signer != signer || (id != "" && o.Hash != id) || (token != "" && o.Token != token) ||
			(cond != "" && m.markets[o.Mkt].ConditionID != cond) {
			continue
		}
		out = append(out, o)
	}
	slices.SortFunc(out, func(a, b *Order) int { return cmpInt(int64(a.OID), int64(b.OID)) })
	return out
}

// Trades returns the kept trades for which keep is true, oldest first.
func (m *Machine) Trades(keep func(*Trade) bool) []*Trade {
	var out []*Trade
	for _, t := range m.trades {
		if keep(t) {
			out = append(out, t)
		}
	}
	return out
}

// Market returns a market by id.
func (m *Machine) Market(id uint32) *Market { return m.markets[id] }

// Mode is the exchange mode and its retry hint (seconds).
func (m *Machine) Mode() (string, int64) { return m.mode, m.retry }

// AddressStatus is an address's operator status.
func (m *Machine) AddressStatus(addr string) string {
	if s := m.status[addr]; s != "" {
		return s
	}
	return StatusNormal
}

// PinnedTier is the tier the operator pinned for addr, if any.
func (m *Machine) PinnedTier(addr string) (int, bool) {
	t, ok := m.tiers[addr]
	return t, ok
}

// BoundMaker is the wallet tied to signer that a signature type reads: the
// one whose orders carry sigType, else the lowest-addressed tied wallet that
// has not traded yet, else signer. Deterministic: a signer may own a proxy
// and a deposit wallet at once, and map order must never pick between them.
func (m *Machine) BoundMaker(signer string, sigType uint8) string {
	best, fresh := "", ""
	for maker, s := range m.binding {
		if s != signer {
			continue
		}
		k, used := m.kinds[maker]
		switch {
		case used && k == sigType && (best == "" || maker < best):
			best = maker
		case !used && (fresh == "" || maker < fresh):
			fresh = maker
		}
	}
	if best != "" {
		return best
	}
	if fresh != "" {
		return fresh
	}
	return signer
}

// Addresses lists every account address, sorted.
func (m *Machine) Addresses() []string {
	out := make([]string, 0, len(m.accts))
	for a := range m.accts {
		out = append(out, a)
	}
	slices.Sort(out)
	return out
}

// LiveCount is the number of live and delayed orders.
func (m *Machine) LiveCount() int { return len(m.orders) }

// SignerOf is the EOA a wallet was tied to, or addr itself.
func (m *Machine) SignerOf(addr string) string {
	if s := m.binding[addr]; s != "" {
		return s
	}
	return addr
}

// Pinned lists the addresses with an operator-pinned tier, sorted.
func (m *Machine) Pinned() []string {
	out := make([]string, 0, len(m.tiers))
	for a := range m.tiers {
		out = append(out, a)
	}
	slices.Sort(out)
	return out
}

// Sets copies the retained operator splits and merges, oldest first.
func (m *Machine) Sets() []SetOp {
	out := make([]SetOp, len(m.sets))
	for i, s := range m.sets {
		out[i] = *s
	}
	return out
}
