package perps

import (
	"sort"

	"pmx/internal/exchange/book"
)

// Read-only queries. Call them only inside engine.View (the apply goroutine).

// InstrumentWire is perps.md §5 Instrument.
type InstrumentWire struct {
	ID                uint32     `json:"instrument_id"`
	Type              string     `json:"instrument_type"`
	Category          string     `json:"category"`
	IsolatedOnly      bool       `json:"isolated_only"`
	Symbol            string     `json:"symbol"`
	CloseOnly         bool       `json:"close_only"`
	Base              string     `json:"base_asset"`
	Quote             string     `json:"quote_asset"`
	FundingInterval   string     `json:"funding_interval"`
	QtyDecimals       uint8      `json:"quantity_decimals"`
	PriceDecimals     uint8      `json:"price_decimals"`
	PriceBounds       string     `json:"price_bounds"`
	LiquidationFee    string     `json:"liquidation_fee"`
	MaxOrderCount     int        `json:"max_order_count"`
	MinNotional       string     `json:"min_notional"`
	MaxMarketNotional string     `json:"max_market_notional"`
	MaxLimitNotional  string     `json:"max_limit_notional"`
	MaxLeverage       int64      `json:"max_leverage"`
	RiskTiers         []RiskTier `json:"risk_tiers"`
}

// RiskTier is one leverage tier.
type RiskTier struct {
	LowerBound  string `json:"lower_bound"`
	MaxLeverage int64  `json:"max_leverage"`
}

// Instruments lists every instrument in id order.
func (m *Machine) Instruments() []InstrumentWire {
	out := []InstrumentWire{}
	for _, id := range m.instIDs {
		in := m.inst[id]
		out = append(out, InstrumentWire{ID: in.ID, Type: "perpetual", Category: in.Category, Symbol: in.Symbol,
			CloseOnly: in.CloseOnly, Base: in.Base, Quote: Asset, FundingInterval: "1h",
			QtyDecimals: in.QtyDecimals, PriceDecimals: in.PriceDecimals, PriceBounds: "0.05",
			LiquidationFee: "0.025", MaxOrderCount: 200, MinNotional: FormatMicro(in.MinNotional),
			MaxMarketNotional: "1000000", MaxLimitNotional: "5000000", MaxLeverage: in.MaxLeverage,
			RiskTiers: []RiskTier{{LowerBound: "0", MaxLeverage: in.MaxLeverage}}})
	}
	return out
}

// HasInstrument reports whether id is listed.
func (m *Machine) HasInstrument(id uint32) bool { return m.inst[id] != nil }

// Ticker is perps.md §5 Ticker.
type Ticker struct {
	ID           uint32 `json:"instrument_id"`
	Symbol       string `json:"symbol"`
	IndexPrice   string `json:"index_price"`
	MarkPrice    string `json:"mark_price"`
	LastPrice    string `json:"last_price"`
	MidPrice     string `json:"mid_price"`
	OpenInterest string `json:"open_interest"`
	FundingRate  string `json:"funding_rate"`
	NextFunding  int64  `json:"next_funding"`
	Timestamp    int64  `json:"timestamp"`
}

// Mid returns the mid price in ticks as a decimal string ("" without both sides).
func (m *Machine) mid(in *Instrument) (string, bool) {
	b, _, okb := in.book.BestBid()
	a, _, oka := in.book.BestAsk()
	if !okb || !oka {
		return "", false
	}
	return ratio(b+a, 2, in.PriceDecimals), true
}

// Tickers lists tickers (all, or one instrument when iid != 0).
func (m *Machine) Tickers(iid uint32, nowMs int64) []Ticker {
	out := []Ticker{}
	for _, id := range m.instIDs {
		if iid != 0 && id != iid {
			continue
		}
		in := m.inst[id]
		g := in.grid()
		last := "0"
		if in.LastTicks > 0 {
			last = g.FormatPrice(fixedPrice(in.LastTicks))
		}
		idx := last
		if in.IndexTicks > 0 {
			idx = g.FormatPrice(fixedPrice(in.IndexTicks))
		}
		mid, ok := m.mid(in)
		if !ok {
			mid = last
		}
		// Mark: mid when the book is two-sided, else the index (the full mark
		// formula arrives with funding in the next issue).
		mark := idx
		if ok {
			mark = mid
		}
		out = append(out, Ticker{ID: id, Symbol: in.Symbol, IndexPrice: idx, MarkPrice: mark, LastPrice: last,
			MidPrice: mid, OpenInterest: g.FormatQty(fixedQty(in.OpenInterest)), FundingRate: "0",
			NextFunding: nowMs - nowMs%3600000 + 3600000, Timestamp: nowMs})
	}
	return out
}

// BBO is perps.md §5 BBO.
type BBO struct {
	ID        uint32 `json:"instrument_id"`
	BidPrice  string `json:"bid_price,omitempty"`
	BidQty    string `json:"bid_quantity,omitempty"`
	AskPrice  string `json:"ask_price,omitempty"`
	AskQty    string `json:"ask_quantity,omitempty"`
	Timestamp int64  `json:"timestamp"`
}

// BBOs lists best bid and offer (all, or one instrument).
func (m *Machine) BBOs(iid uint32, nowMs int64) []BBO {
	out := []BBO{}
	for _, id := range m.instIDs {
		if iid != 0 && id != iid {
			continue
		}
		in := m.inst[id]
		g := in.grid()
		b := BBO{ID: id, Timestamp: nowMs}
		if p, q, ok := in.book.BestBid(); ok {
			b.BidPrice, b.BidQty = g.FormatPrice(fixedPrice(p)), g.FormatQty(fixedQty(q))
		}
		if p, q, ok := in.book.BestAsk(); ok {
			b.AskPrice, b.AskQty = g.FormatPrice(fixedPrice(p)), g.FormatQty(fixedQty(q))
		}
		out = append(out, b)
	}
	return out
}

// BookWire is perps.md §5 Book.
type BookWire struct {
	ID        uint32      `json:"instrument_id"`
	Bids      [][2]string `json:"bids"`
	Asks      [][2]string `json:"asks"`
	Timestamp int64       `json:"timestamp"`
	Sequence  uint64      `json:"sequence"`
}

// Book returns up to depth levels per side; an unknown instrument has empty sides.
func (m *Machine) Book(iid uint32, depth int, nowMs int64) BookWire {
	w := BookWire{ID: iid, Bids: [][2]string{}, Asks: [][2]string{}, Timestamp: nowMs}
	in := m.inst[iid]
	if in == nil {
		return w
	}
	g := in.grid()
	w.Sequence = in.Sequence
	for _, l := range in.book.Depth(book.Buy, depth, nil) {
		w.Bids = append(w.Bids, [2]string{g.FormatPrice(fixedPrice(l.Price)), g.FormatQty(fixedQty(l.Qty))})
	}
	for _, l := range in.book.Depth(book.Sell, depth, nil) {
		w.Asks = append(w.Asks, [2]string{g.FormatPrice(fixedPrice(l.Price)), g.FormatQty(fixedQty(l.Qty))})
	}
	return w
}

// PublicTrade is perps.md §5 TradeData.
type PublicTrade struct {
	TradeID    uint64 `json:"trade_id"`
	ID         uint32 `json:"instrument_id"`
	Side       string `json:"side"`
	Price      string `json:"price"`
	Quantity   string `json:"quantity"`
	Settlement bool   `json:"settlement"`
	Timestamp  int64  `json:"timestamp"`
	Hash       string `json:"hash"`
}

// Trades returns up to limit trades in [start, end), newest first, and
// whether more exist.
func (m *Machine) Trades(iid uint32, start, end int64, limit int) ([]PublicTrade, bool) {
	out := []PublicTrade{}
	in := m.inst[iid]
	if in == nil {
		return out, false
	}
	g := in.grid()
	for i := len(in.Trades) - 1; i >= 0; i-- {
		t := in.Trades[i]
		if t.TS >= end {
			continue
		}
		if t.TS < start {
			break
		}
		if len(out) == limit {
			return out, true
		}
		out = append(out, PublicTrade{TradeID: t.ID, ID: iid, Side: side(t.Buy), Price: g.FormatPrice(fixedPrice(t.Ticks)),
			Quantity: g.FormatQty(fixedQty(t.Lots)), Timestamp: t.TS, Hash: "0x"})
	}
	return out, false
}

// Klines aggregates 1-minute candles into buckets of intervalMs (a multiple
// of a minute) in [start, end), oldest first, at most limit rows.
func (m *Machine) Klines(iid uint32, intervalMs, start, end int64, limit int) ([][]any, bool) {
	out := [][]any{}
	in := m.inst[iid]
	if in == nil {
		return out, false
	}
	g := in.grid()
	i := sort.Search(len(in.Candles), func(i int) bool { return in.Candles[i].Open >= start-start%intervalMs })
	var cur *Candle
	emit := func() {
		out = append(out, []any{cur.Open, g.FormatPrice(fixedPrice(cur.O)), g.FormatPrice(fixedPrice(cur.H)),
			g.FormatPrice(fixedPrice(cur.L)), g.FormatPrice(fixedPrice(cur.C)), g.FormatQty(fixedQty(cur.Volume)), cur.Count})
	}
	for ; i < len(in.Candles); i++ {
		c := in.Candles[i]
		b := c.Open - c.Open%intervalMs
		if b >= end {
			break
		}
		if b+intervalMs <= start {
			continue
		}
		if cur != nil && cur.Open != b {
			emit()
			if len(out) == limit {
				return out, true
			}
			cur = nil
		}
		if cur == nil {
			cc := c
			cc.Open = b
			cur = &cc
			continue
		}
		cur.H, cur.L, cur.C = max(cur.H, c.H), min(cur.L, c.L), c.C
		cur.Volume += c.Volume
		cur.Count += c.Count
	}
	if cur != nil {
		emit()
	}
	return out, false
}

// Registered reports whether addr has an account.
func (m *Machine) Registered(addr string) bool { return m.accts[addr] != nil }

// Proxies lists every proxy (for the server's credential mirror).
func (m *Machine) Proxies() []Proxy {
	out := make([]Proxy, 0, len(m.proxies))
	for _, p := range m.proxies {
		out = append(out, *p)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Addr < out[j].Addr })
	return out
}

// OrdersOf returns the account's orders (open then history), newest first,
// filtered by oid, coid and instrument when nonzero.
func (m *Machine) OrdersOf(addr string, oid uint64, coid string, iid uint32, start, end int64, limit int) []OrderData {
	out := []OrderData{}
	a := m.accts[addr]
	if a == nil {
		return out
	}
	ids := append(append(m.sortedOpen(a), a.History...), m.liveLegs(a)...)
	sort.Slice(ids, func(i, j int) bool { return ids[i] > ids[j] })
	for _, id := range ids {
		o := m.orders[id]
		if o == nil || (oid != 0 && id != oid) || (coid != "" && o.COID != coid) || (iid != 0 && o.IID != iid) ||
			o.Created < start || o.Created >= end {
			continue
		}
		out = append(out, m.orderData(o))
		if len(out) == limit {
			break
		}
	}
	return out
}

// OpenOrdersOf returns the account's open orders, newest first.
func (m *Machine) OpenOrdersOf(addr string, iid uint32) []OrderData {
	out := []OrderData{}
	a := m.accts[addr]
	if a == nil {
		return out
	}
	ids := append(m.sortedOpen(a), m.liveLegs(a)...) // TP/SL legs too (tpsl.go)
	sort.Slice(ids, func(i, j int) bool { return ids[i] < ids[j] })
	for i := len(ids) - 1; i >= 0; i-- {
		if o := m.orders[ids[i]]; iid == 0 || o.IID == iid {
			out = append(out, m.orderData(o))
		}
	}
	return out
}

// FillsOf returns the account's fills in [start, end), newest first.
func (m *Machine) FillsOf(addr string, iid uint32, start, end int64, limit int) ([]TradeData, bool) {
	out := []TradeData{}
	a := m.accts[addr]
	if a == nil {
		return out, false
	}
	for i := len(a.Fills) - 1; i >= 0; i-- {
		f := &a.Fills[i]
		if f.TS >= end || (iid != 0 && f.IID != iid) {
			continue
		}
		if f.TS < start {
			break
		}
		if len(out) == limit {
			return out, true
		}
		out = append(out, m.tradeData(f))
	}
	return out, false
}

// Balance is one row of GET /v1/account/balances.
type Balance struct {
	Asset   string `json:"asset"`
	Balance string `json:"balance"`
	Value   string `json:"value"`
}

// BalancesOf returns the collateral balance (pUSD is valued 1:1).
func (m *Machine) BalancesOf(addr string) []Balance {
	var v int64
	if a := m.accts[addr]; a != nil {
		v = a.Balance
	}
	s := FormatMicro(v)
	return []Balance{{Asset: Asset, Balance: s, Value: s}}
}

// LeverageConfig is one row of GET /v1/account/config.
type LeverageConfig struct {
	ID       uint32 `json:"instrument_id"`
	Leverage int64  `json:"leverage"`
	Cross    bool   `json:"cross"`
}

// ConfigOf resolves leverage and margin mode per instrument (isolated and
// instrument max unless set, perps.md §9.8).
func (m *Machine) ConfigOf(addr string, iid uint32) []LeverageConfig {
	out := []LeverageConfig{}
	a := m.accts[addr]
	for _, id := range m.instIDs {
		if iid != 0 && id != iid {
			continue
		}
		in := m.inst[id]
		lev, cross := in.MaxLeverage, false
		if a != nil {
			lev, cross = m.leverage(a, in), a.Cross[id]
		}
		out = append(out, LeverageConfig{ID: id, Leverage: lev, Cross: cross})
	}
	return out
}

// Stats is GET /v1/account/stats.
type Stats struct {
	Volume7d     string `json:"volume_7d"`
	Taker7d      string `json:"taker_volume_7d"`
	Maker7d      string `json:"maker_volume_7d"`
	MakerShare7d string `json:"account_maker_share_7d"`
}

// StatsOf sums the last seven UTC days (including today).
func (m *Machine) StatsOf(addr string, nowMs int64) Stats {
	var mk, tk int64
	if a := m.accts[addr]; a != nil {
		today := nowMs / 86400000
		for _, d := range a.Volume {
			if d.Day > today-7 {
				mk += d.Maker
				tk += d.Taker
			}
		}
	}
	share := "0"
	if mk+tk > 0 {
		share = ratio(mk, mk+tk, 0)
	}
	return Stats{Volume7d: FormatMicro(mk + tk), Taker7d: FormatMicro(tk), Maker7d: FormatMicro(mk), MakerShare7d: share}
}

// Statistic is perps.md §5 Statistic: the last 24 hours of an instrument.
type Statistic struct {
	ID        uint32  `json:"instrument_id"`
	Symbol    string  `json:"symbol"`
	Volume    string  `json:"volume"`     // contracts traded in the window
	OpenPrice string  `json:"open_price"` // first trade price in the window, else the last price before it ("0" if none)
	Klines    [][]any `json:"klines"`     // hourly klines of the window
}

// Statistics lists 24-hour statistics (all, or one instrument).
func (m *Machine) Statistics(iid uint32, nowMs int64) []Statistic {
	out := []Statistic{}
	start := nowMs - 86400000
	for _, id := range m.instIDs {
		if iid != 0 && id != iid {
			continue
		}
		in := m.inst[id]
		g := in.grid()
		var vol, open int64
		for _, c := range in.Candles {
			if c.Open+60000 <= start || c.Open > nowMs {
				if c.Open+60000 <= start {
					open = c.C
				}
				continue
			}
			if vol == 0 {
				open = c.O
			}
			vol += c.Volume
		}
		op := "0"
		if open > 0 {
			op = g.FormatPrice(fixedPrice(open))
		}
		kl, _ := m.Klines(id, 3600000, start, nowMs+1, 1000)
		out = append(out, Statistic{ID: id, Symbol: in.Symbol, Volume: g.FormatQty(fixedQty(vol)), OpenPrice: op, Klines: kl})
	}
	return out
}

// IndexTicks is an instrument's operator-pushed index price in ticks (0: none
// or no such instrument); the demo market makers resume their walk from it.
func (m *Machine) IndexTicks(iid uint32) int64 {
	if in := m.inst[iid]; in != nil {
		return in.IndexTicks
	}
	return 0
}

// OnGrid reports whether price parses on instrument iid's grid below its
// top tick, or does not parse at all (the machine's own answer then says
// why). An unknown instrument is on no grid to check: true.
func (m *Machine) OnGrid(iid uint32, price string) bool {
	in := m.inst[iid]
	if in == nil {
		return true
	}
	p, err := in.grid().ParsePrice(price)
	return err != nil || int64(p) < in.Ticks
}
