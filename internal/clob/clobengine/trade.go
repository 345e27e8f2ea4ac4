package clobengine

import (
	"encoding/hex"
	"pmx/internal/crypto/keccak"
	"slices"
	"strconv"

	"pmx/internal/exchange/book"
)

// Trade is one fill between a taker and a maker order. Price and MakerPrice
// are in each order's own token (ticks of the market's grid); Size is
// micro-shares; Fee is the taker's fee in collateral units.
type Trade struct {
	ID          string `json:"id"`
	Cmd         uint64 `json:"cmd,omitempty"` // engine sequence of the command that made it (its block on the simulated chain)
	Seq         uint64 `json:"seq"`
	Mkt         uint32 `json:"mkt"`
	Time        int64  `json:"time"`  // ms
	Match       uint8  `json:"match"` // book.MatchKind: 0 normal, 1 mint, 2 merge
	Size        int64  `json:"size"`
	Fee         int64  `json:"fee"`
	TakerOrder  string `json:"taker_order"`
	TakerToken  string `json:"taker_token"`
	TakerSide   uint8  `json:"taker_side"`
	Price       int64  `json:"price"`
	TakerMaker  string `json:"taker_maker"` // the taker order's funder
	TakerSigner string `json:"taker_signer"`
	TakerKey    string `json:"taker_key"`
	TakerOut    uint8  `json:"taker_outcome"`
	MakerOrder  string `json:"maker_order"`
	MakerToken  string `json:"maker_token"`
	MakerSide   uint8  `json:"maker_side"`
	MakerPrice  int64  `json:"maker_price"`
	MakerAddr   string `json:"maker_addr"`
	MakerSigner string `json:"maker_signer"`
	MakerKey    string `json:"maker_key"`
	MakerOut    uint8  `json:"maker_outcome"`
	MakerFeeBps int64  `json:"maker_fee_bps,omitempty"`
	TakerFeeBps int64  `json:"taker_fee_bps,omitempty"`
	TakerBuild  string `json:"taker_builder,omitempty"`
	MakerBuild  string `json:"maker_builder,omitempty"`
	TakerCode   string `json:"taker_code,omitempty"` // the orders' V2 builder fields
	MakerCode   string `json:"maker_code,omitempty"`
	// Ticks is the grid Price and MakerPrice are in (the market's at the
	// fill; a tick size change rescales the retained trades with it). A
	// consumer holding a copy prices it with this, not the market's grid.
	Ticks int64 `json:"ticks,omitempty"`
}

// settle books one fill of q at the maker's resting book price and returns
// the trade id and what the taker gave and got (base units: micro-USDC or
// micro-shares).
func (m *Machine) settle(ts int64, t, mo *Order, ev book.Event, mk *Market) (string, int64, int64) {
	q := ev.Qty
	pt := ownPrice(ev.Price, mk.Ticks, t.Outcome)
	pm := ownPrice(ev.Price, mk.Ticks, mo.Outcome)
	fee := feeOn(q, pt, t.FeeBps, mk)
	m.fill(mo, q, pm, 0, mk)
	making, taking := m.fill(t, q, pt, fee, mk)
	m.fees += fee
	id := "t-" + strconv.FormatUint(m.nextTr, 10)
	tr := &Trade{ID: id, Cmd: m.cmdSeq, Seq: m.nextTr, Mkt: mk.ID, Time: ts, Match: uint8(ev.Match), Size: q, Fee: fee,
		TakerOrder: t.Hash, TakerToken: t.Token, TakerSide: t.Side, Price: pt, TakerMaker: t.Maker, TakerSigner: t.Signer,
		TakerKey: t.APIKey, TakerOut: t.Outcome, MakerOrder: mo.Hash, MakerToken: mo.Token, MakerSide: mo.Side,
		MakerPrice: pm, MakerAddr: mo.Maker, MakerSigner: mo.Signer, MakerKey: mo.APIKey, MakerOut: mo.Outcome,
		TakerFeeBps: t.FeeBps, TakerBuild: t.Builder, MakerBuild: mo.Builder,
		TakerCode: t.Code, MakerCode: mo.Code, Ticks: mk.Ticks}
	m.nextTr++
	m.trades = append(m.trades, tr)
	if len(m.trades) >= 2*m.cfg.KeepTrades {
		m.trades = slices.Clone(m.trades[len(m.trades)-m.cfg.KeepTrades:])
	}
	t.Trades = append(t.Trades, id)
	mo.Trades = append(mo.Trades, id)
	mk.Last[t.Outcome] = LastTrade{Price: pt, Side: SideName(t.Side)}
	if mo.Outcome != t.Outcome {
		mk.Last[mo.Outcome] = LastTrade{Price: pm, Side: SideName(t.Side ^ 1)}
	}
	notional := q * pt * mk.upt
	m.acct(t.Maker).addVolume(ts, notional)
	m.acct(mo.Maker).addVolume(ts, notional)
	if mo.Filled == mo.Orig {
		m.retire(mo, StatusMatched)
	}
	return id, making, taking
}

// fill moves the money of one side of a fill: q micro-shares of o's token
// at o's own price p, with fee (units) charged to o. It returns what o
// gave and got in base units.
func (m *Machine) fill(o *Order, q, p, fee int64, mk *Market) (gave, got int64) {
	a := m.acct(o.Maker)
	cost := q * p * mk.upt
	o.Filled += q
	if o.Side == 0 {
		rem := o.Orig - o.Filled
		after := resvFor(rem, o.Price, o.FeeBps, mk)
		freed := o.Resv - after
		o.Resv = after
		a.CollResv -= freed
		a.Coll += freed - cost - fee
		a.tok(o.Token).Free += q
		return (cost + fee) / Unit, q
	}
	o.Resv -= q
	a.tok(o.Token).Resv -= q
	a.Coll += cost - fee
	return q, (cost - fee) / Unit
}

// tradesSince copies the trades numbered from first on (those the current
// command made; expiries and delayed entries on a tick included).
func (m *Machine) tradesSince(first uint64) []Trade {
	if m.nextTr == first {
		return nil
	}
	i := len(m.trades)
	for i > 0 && m.trades[i-1].Seq >= first {
		i--
	}
	out := make([]Trade, 0, len(m.trades)-i)
	for _, t := range m.trades[i:] {
		out = append(out, *t)
	}
	return out
}

// TxHash is the simulated chain's transaction hash of a trade (the
// `transaction_hash` of /data/trades and the ledger's `tx_hash`).
func TxHash(tradeID string) string {
	h := keccak.String("pmx trade " + tradeID)
	return "0x" + hex.EncodeToString(h[:])
}
