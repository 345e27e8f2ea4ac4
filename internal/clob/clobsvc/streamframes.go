package clobsvc

import (
	"crypto/sha1"
	"encoding/hex"
	"encoding/json"
	"strconv"

	"pmx/internal/amount"
	"pmx/internal/clob/clob"
	"pmx/internal/clob/clobengine"
	"pmx/internal/exchange/engine"
)

// The CLOB WebSocket's frames in production's shapes (the user channel's
// AsyncAPI document; the market channel as the official @polymarket/client
// parses it). Each is encoded once, on the fan-out goroutine or the
// subscribing connection's, never on the engine's.

// streamDepth bounds the levels a book frame carries per side (as /book).
const streamDepth = 1000

type streamLevel struct {
	Price string `json:"price"`
	Size  string `json:"size"`
}

// bookSummary is the OrderBookSummary in the field order the clients hash
// (as GET /book): hash is SHA-1 of its compact JSON with hash "".
type bookSummary struct {
	Market         string        `json:"market"`
	AssetID        string        `json:"asset_id"`
	Timestamp      string        `json:"timestamp"`
	Hash           string        `json:"hash"`
	Bids           []streamLevel `json:"bids"`
	Asks           []streamLevel `json:"asks"`
	MinOrderSize   string        `json:"min_order_size"`
	TickSize       string        `json:"tick_size"`
	NegRisk        bool          `json:"neg_risk"`
	LastTradePrice string        `json:"last_trade_price"`
}

type bookFrame struct {
	bookSummary
	EventType string `json:"event_type"`
}

type priceChange struct {
	AssetID string `json:"asset_id"`
	Price   string `json:"price"`
	Size    string `json:"size"`
	Side    string `json:"side"`
	Hash    string `json:"hash"`
	BestBid string `json:"best_bid"`
	BestAsk string `json:"best_ask"`
}

// tickSizeChangeFrame is the market channel's tick_size_change.
type tickSizeChangeFrame struct {
	EventType   string `json:"event_type"`
	AssetID     string `json:"asset_id"`
	Market      string `json:"market"`
	OldTickSize string `json:"old_tick_size"`
	NewTickSize string `json:"new_tick_size"`
	Timestamp   string `json:"timestamp"`
}

type priceChangeFrame struct {
	Market       string        `json:"market"`
	PriceChanges []priceChange `json:"price_changes"`
	Timestamp    string        `json:"timestamp"`
	EventType    string        `json:"event_type"`
}

type lastTradeFrame struct {
	AssetID         string `json:"asset_id"`
	EventType       string `json:"event_type"`
	FeeRateBps      string `json:"fee_rate_bps"`
	Market          string `json:"market"`
	Price           string `json:"price"`
	Side            string `json:"side"`
	Size            string `json:"size"`
	Timestamp       string `json:"timestamp"`
	TransactionHash string `json:"transaction_hash"`
}

// orderFrame is the user channel's order event.
type orderFrame struct {
	EventType       string   `json:"event_type"`
	ID              string   `json:"id"`
	Owner           string   `json:"owner"`
	Market          string   `json:"market"`
	AssetID         string   `json:"asset_id"`
	Side            string   `json:"side"`
	OrderOwner      string   `json:"order_owner"`
	OriginalSize    string   `json:"original_size"`
	SizeMatched     string   `json:"size_matched"`
	Price           string   `json:"price"`
	AssociateTrades []string `json:"associate_trades"`
	Outcome         string   `json:"outcome"`
	Type            string   `json:"type"` // PLACEMENT, UPDATE, CANCELLATION
	CreatedAt       string   `json:"created_at"`
	Expiration      string   `json:"expiration"`
	OrderType       string   `json:"order_type"`
	Status          string   `json:"status"`
	MakerAddress    string   `json:"maker_address"`
	Timestamp       string   `json:"timestamp"`
}

type makerOrderFrame struct {
	OrderID       string `json:"order_id"`
	Owner         string `json:"owner"`
	MakerAddress  string `json:"maker_address"`
	MatchedAmount string `json:"matched_amount"`
	Price         string `json:"price"`
	FeeRateBps    string `json:"fee_rate_bps"`
	AssetID       string `json:"asset_id"`
	Outcome       string `json:"outcome"`
	Side          string `json:"side"`
}

// tradeFrame is the user channel's trade event.
type tradeFrame struct {
	EventType       string            `json:"event_type"`
	Type            string            `json:"type"`
	ID              string            `json:"id"`
	TakerOrderID    string            `json:"taker_order_id"`
	Market          string            `json:"market"`
	AssetID         string            `json:"asset_id"`
	Side            string            `json:"side"`
	Size            string            `json:"size"`
	Price           string            `json:"price"`
	FeeRateBps      string            `json:"fee_rate_bps"`
	Status          string            `json:"status"`
	MatchTime       string            `json:"match_time"`
	LastUpdate      string            `json:"last_update"`
	Outcome         string            `json:"outcome"`
	Owner           string            `json:"owner"`
	TradeOwner      string            `json:"trade_owner"`
	MakerAddress    string            `json:"maker_address"`
	TransactionHash string            `json:"transaction_hash"`
	BucketIndex     int               `json:"bucket_index"`
	MakerOrders     []makerOrderFrame `json:"maker_orders"`
	TraderSide      string            `json:"trader_side"`
	Timestamp       string            `json:"timestamp"`
}

// marketView is what the fan-out reads of one market: its identity and
// both tokens' books in their own terms, best first.
type marketView struct {
	id      uint32
	cond    string
	tokens  [2]string
	labels  [2]string
	ticks   int64 // the grid prices are kept in
	grid    int64 // the public tick grid
	minSize string
	negRisk bool
	last    [2]clobengine.LastTrade
	bids    [2][]clobengine.Level
	asks    [2][]clobengine.Level
	depth   bool // the books were read
}

// viewMarket reads mk; its books only with depth (a market nobody follows
// needs its identity only, for user frames).
func viewMarket(mk *clobengine.Market, depth bool) *marketView {
	v := &marketView{id: mk.ID, cond: mk.ConditionID, ticks: mk.Ticks, grid: mk.GridTicks(), minSize: mk.MinSize.String(), negRisk: mk.NegRisk,
		last: mk.Last, depth: depth}
	for o := range 2 {
		v.tokens[o], v.labels[o] = mk.Tokens[o].ID, mk.Tokens[o].Outcome
		if depth {
			v.bids[o], v.asks[o] = mk.Depth(uint8(o), streamDepth)
		}
	}
	return v
}

func (v *marketView) price(p int64) string { return clob.PriceText(p, v.ticks) }

// tradePrice prints a price of trade t in t's own grid (a tick size change
// may have refined the market's since the fill).
func (v *marketView) tradePrice(t *clobengine.Trade, p int64) string {
	if t.Ticks > 0 {
		return clob.PriceText(p, t.Ticks)
	}
	return v.price(p)
}

// summary is outcome o's book summary at ts (ms), hashed.
func (v *marketView) summary(o int, ts int64) bookSummary {
	b := bookSummary{Market: v.cond, AssetID: v.tokens[o], Timestamp: strconv.FormatInt(ts, 10),
		Bids: levels(v, v.bids[o]), Asks: levels(v, v.asks[o]), MinOrderSize: v.minSize,
		TickSize: clob.TickSize(v.grid), NegRisk: v.negRisk, LastTradePrice: "0.5"}
	if lt := v.last[o]; lt.Price > 0 {
		b.LastTradePrice = v.price(lt.Price)
	}
	raw, _ := json.Marshal(b)
	sum := sha1.Sum(raw)
	b.Hash = hex.EncodeToString(sum[:])
	return b
}

// levels is a side best-last, as /book lists it.
func levels(v *marketView, ls []clobengine.Level) []streamLevel {
	out := make([]streamLevel, len(ls))
	for i, l := range ls {
		out[len(ls)-1-i] = streamLevel{v.price(l.Price), amount.Micro(l.Size).String()}
	}
	return out
}

// best is outcome o's best bid and ask as text ("0" for an empty side, as
// GET /price answers).
func (v *marketView) best(o int) (bid, ask string) {
	bid, ask = "0", "0"
	if len(v.bids[o]) > 0 {
		bid = v.price(v.bids[o][0].Price)
	}
	if len(v.asks[o]) > 0 {
		ask = v.price(v.asks[o][0].Price)
	}
	return bid, ask
}

// viewSeq runs fn on the engine goroutine and returns the engine sequence
// the machine was at.
func (s *Service) viewSeq(fn func(m *clobengine.Machine)) (uint64, error) {
	e := s.eng.Load()
	if e == nil {
		return 0, ErrNotReady
	}
	var at uint64
	err := e.View(func(m engine.Machine[clobengine.Result], seq uint64) {
		at = seq
		fn(m.(*clobengine.Machine))
	})
	return at, err
}

// bookDump is the subscribe snapshot of ids: one JSON array of book
// frames for the ids the venue trades (nil when none), the engine sequence
// it was read at, and the markets read.
func (s *Service) bookDump(ids []string) ([]byte, uint64, map[uint32]*marketView, error) {
	type one struct {
		v *marketView
		o int
	}
	var got []one
	views := map[uint32]*marketView{}
	seq, err := s.viewSeq(func(m *clobengine.Machine) {
		for _, id := range ids {
			mk, o := m.TokenMarket(id)
			if mk == nil {
				continue
			}
			v := views[mk.ID]
			if v == nil {
				v = viewMarket(mk, true)
				views[mk.ID] = v
			}
			got = append(got, one{v, int(o)})
		}
	})
	if err != nil || len(got) == 0 {
		return nil, seq, views, err
	}
	ts := s.now()
	frames := make([]bookFrame, len(got))
	for i, g := range got {
		frames[i] = bookFrame{g.v.summary(g.o, ts), "book"}
	}
	b, err := json.Marshal(frames)
	return b, seq, views, err
}

// orderCopy is what an order frame needs of an engine order.
type orderCopy struct {
	o     clobengine.Order
	cond  string
	label string
	ticks int64
}

// frame is e's order frame: the order's fixed fields from the engine, its
// state at the event from e when the fan-out knows it, else as read.
func (oc *orderCopy) frame(e *orderEvent) []byte {
	o := &oc.o
	matched, tr, st := o.Filled, o.Trades, o.Status
	if e.known {
		matched, tr = e.matched, e.trades
	}
	if e.status != "" {
		st = e.status
	}
	if tr == nil {
		tr = []string{}
	}
	f := orderFrame{EventType: "order", ID: o.Hash, Owner: o.APIKey, Market: oc.cond, AssetID: o.Token,
		Side: clobengine.SideName(o.Side), OrderOwner: o.APIKey, OriginalSize: amount.Micro(o.Orig).String(),
		SizeMatched: amount.Micro(matched).String(), Price: clob.PriceText(o.Price, oc.ticks), AssociateTrades: tr,
		Outcome: oc.label, Type: e.kind, CreatedAt: strconv.FormatInt(o.Created/1000, 10),
		Expiration: strconv.FormatInt(o.Expiration, 10), OrderType: o.Type, Status: st, MakerAddress: o.Maker,
		Timestamp: strconv.FormatInt(e.ts/1000, 10)}
	b, _ := json.Marshal(f)
	return b
}

// tradeFrameOf is trade t as its taker (maker false) or maker sees it at
// chain status st, last updated at upd (ms).
func tradeFrameOf(t *clobengine.Trade, v *marketView, maker bool, st string, upd int64) []byte {
	f := tradeFrame{EventType: "trade", Type: "TRADE", ID: t.ID, TakerOrderID: t.TakerOrder, Market: v.cond,
		AssetID: t.TakerToken, Side: clobengine.SideName(t.TakerSide), Size: amount.Micro(t.Size).String(),
		Price: v.tradePrice(t, t.Price), FeeRateBps: strconv.FormatInt(t.TakerFeeBps, 10), Status: st,
		MatchTime: strconv.FormatInt(t.Time/1000, 10), LastUpdate: strconv.FormatInt(upd/1000, 10),
		Outcome: v.labels[t.TakerOut], Owner: t.TakerKey, TradeOwner: t.TakerKey, MakerAddress: t.TakerMaker,
		TraderSide: "TAKER", Timestamp: strconv.FormatInt(upd/1000, 10),
		MakerOrders: []makerOrderFrame{{OrderID: t.MakerOrder, Owner: t.MakerKey, MakerAddress: t.MakerAddr,
			MatchedAmount: amount.Micro(t.Size).String(), Price: v.tradePrice(t, t.MakerPrice), FeeRateBps: "0",
			AssetID: t.MakerToken, Outcome: v.labels[t.MakerOut], Side: clobengine.SideName(t.MakerSide)}}}
	if maker {
		f.Owner, f.TradeOwner, f.TraderSide = t.MakerKey, t.MakerKey, "MAKER"
	}
	if st != "MATCHED" {
		f.TransactionHash = clobengine.TxHash(t.ID)
	}
	b, _ := json.Marshal(f)
	return b
}
