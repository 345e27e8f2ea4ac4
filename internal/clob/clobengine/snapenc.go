package clobengine

import (
	"encoding/json"
	"strconv"

	"pmx/internal/jsonstr"
)

// The snapshot's three long lists (live orders, recent terminal orders,
// recent trades: up to tens of thousands of records) are appended by hand;
// encoding/json's reflection over them stalled the apply goroutine for
// ~100 ms every 10,000 commands (docs/perf/clob.md). The bytes are exactly
// encoding/json's (TestSnapshotEncodingMatchesJSON), so snapshots and state
// hashes do not change.

// encodeState is json.Marshal(s) with s.Orders, s.Done and s.Trades
// appended by hand.
func encodeState(s *state) []byte {
	h, _ := json.Marshal(&s.stateHead)
	t, _ := json.Marshal(&s.stateTail)
	b := make([]byte, 0, len(h)+len(t)+400*(len(s.Orders)+len(s.Done))+700*len(s.Trades)+64)
	b = append(b, h[:len(h)-1]...) // without its closing brace
	b = append(b, `,"orders":`...)
	b = appendOrders(b, s.Orders)
	b = append(b, `,"done":`...)
	b = appendOrders(b, s.Done)
	b = append(b, `,"delayed":`...)
	d, _ := json.Marshal(s.Delayed)
	b = append(b, d...)
	b = append(b, `,"trades":`...)
	b = appendTrades(b, s.Trades)
	b = append(b, ',')
	return append(b, t[1:]...) // without its opening brace
}

func appendOrders(b []byte, os []*Order) []byte {
	if os == nil {
		return append(b, "null"...)
	}
	b = append(b, '[')
	for i, o := range os {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendOrderJSON(b, o)
	}
	return append(b, ']')
}

func appendOrderJSON(b []byte, o *Order) []byte {
	if o == nil {
		return append(b, "null"...)
	}
	b = strconv.AppendUint(append(b, `{"oid":`...), o.OID, 10)
	b = jsonstr.AppendHTML(append(b, `,"hash":`...), o.Hash)
	b = strconv.AppendUint(append(b, `,"mkt":`...), uint64(o.Mkt), 10)
	b = strconv.AppendUint(append(b, `,"outcome":`...), uint64(o.Outcome), 10)
	b = jsonstr.AppendHTML(append(b, `,"token":`...), o.Token)
	b = strconv.AppendUint(append(b, `,"side":`...), uint64(o.Side), 10)
	b = strconv.AppendInt(append(b, `,"price":`...), o.Price, 10)
	b = strconv.AppendInt(append(b, `,"orig":`...), o.Orig, 10)
	b = strconv.AppendInt(append(b, `,"filled":`...), o.Filled, 10)
	b = jsonstr.AppendHTML(append(b, `,"type":`...), o.Type)
	if o.PostOnly {
		b = append(b, `,"post_only":true`...)
	}
	b = jsonstr.AppendHTML(append(b, `,"maker":`...), o.Maker)
	b = jsonstr.AppendHTML(append(b, `,"signer":`...), o.Signer)
	b = jsonstr.AppendHTML(append(b, `,"key":`...), o.APIKey)
	if o.Expiration != 0 {
		b = strconv.AppendInt(append(b, `,"exp":`...), o.Expiration, 10)
	}
	b = strconv.AppendInt(append(b, `,"created":`...), o.Created, 10)
	b = strconv.AppendInt(append(b, `,"resv":`...), o.Resv, 10)
	if o.FeeBps != 0 {
		b = strconv.AppendInt(append(b, `,"fee_bps":`...), o.FeeBps, 10)
	}
	b = jsonstr.AppendHTML(append(b, `,"status":`...), o.Status)
	if len(o.Trades) > 0 {
		b = append(b, `,"trades":[`...)
		for i, t := range o.Trades {
			if i > 0 {
				b = append(b, ',')
			}
			b = jsonstr.AppendHTML(b, t)
		}
		b = append(b, ']')
	}
	if o.Due != 0 {
		b = strconv.AppendInt(append(b, `,"due":`...), o.Due, 10)
	}
	if o.Builder != "" {
		b = jsonstr.AppendHTML(append(b, `,"builder":`...), o.Builder)
	}
	if o.Code != "" {
		b = jsonstr.AppendHTML(append(b, `,"code":`...), o.Code)
	}
	return append(b, '}')
}

func appendTrades(b []byte, ts []*Trade) []byte {
	if ts == nil {
		return append(b, "null"...)
	}
	b = append(b, '[')
	for i, t := range ts {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendTradeJSON(b, t)
	}
	return append(b, ']')
}

func appendTradeJSON(b []byte, t *Trade) []byte {
	if t == nil {
		return append(b, "null"...)
	}
	b = jsonstr.AppendHTML(append(b, `{"id":`...), t.ID)
	if t.Cmd != 0 {
		b = strconv.AppendUint(append(b, `,"cmd":`...), t.Cmd, 10)
	}
	b = strconv.AppendUint(append(b, `,"seq":`...), t.Seq, 10)
	b = strconv.AppendUint(append(b, `,"mkt":`...), uint64(t.Mkt), 10)
	b = strconv.AppendInt(append(b, `,"time":`...), t.Time, 10)
	b = strconv.AppendUint(append(b, `,"match":`...), uint64(t.Match), 10)
	b = strconv.AppendInt(append(b, `,"size":`...), t.Size, 10)
	b = strconv.AppendInt(append(b, `,"fee":`...), t.Fee, 10)
	b = jsonstr.AppendHTML(append(b, `,"taker_order":`...), t.TakerOrder)
	b = jsonstr.AppendHTML(append(b, `,"taker_token":`...), t.TakerToken)
	b = strconv.AppendUint(append(b, `,"taker_side":`...), uint64(t.TakerSide), 10)
	b = strconv.AppendInt(append(b, `,"price":`...), t.Price, 10)
	b = jsonstr.AppendHTML(append(b, `,"taker_maker":`...), t.TakerMaker)
	b = jsonstr.AppendHTML(append(b, `,"taker_signer":`...), t.TakerSigner)
	b = jsonstr.AppendHTML(append(b, `,"taker_key":`...), t.TakerKey)
	b = strconv.AppendUint(append(b, `,"taker_outcome":`...), uint64(t.TakerOut), 10)
	b = jsonstr.AppendHTML(append(b, `,"maker_order":`...), t.MakerOrder)
	b = jsonstr.AppendHTML(append(b, `,"maker_token":`...), t.MakerToken)
	b = strconv.AppendUint(append(b, `,"maker_side":`...), uint64(t.MakerSide), 10)
	b = strconv.AppendInt(append(b, `,"maker_price":`...), t.MakerPrice, 10)
	b = jsonstr.AppendHTML(append(b, `,"maker_addr":`...), t.MakerAddr)
	b = jsonstr.AppendHTML(append(b, `,"maker_signer":`...), t.MakerSigner)
	b = jsonstr.AppendHTML(append(b, `,"maker_key":`...), t.MakerKey)
	b = strconv.AppendUint(append(b, `,"maker_outcome":`...), uint64(t.MakerOut), 10)
	if t.MakerFeeBps != 0 {
		b = strconv.AppendInt(append(b, `,"maker_fee_bps":`...), t.MakerFeeBps, 10)
	}
	if t.TakerFeeBps != 0 {
		b = strconv.AppendInt(append(b, `,"taker_fee_bps":`...), t.TakerFeeBps, 10)
	}
	if t.TakerBuild != "" {
		b = jsonstr.AppendHTML(append(b, `,"taker_builder":`...), t.TakerBuild)
	}
	if t.MakerBuild != "" {
		b = jsonstr.AppendHTML(append(b, `,"maker_builder":`...), t.MakerBuild)
	}
	if t.TakerCode != "" {
		b = jsonstr.AppendHTML(append(b, `,"taker_code":`...), t.TakerCode)
	}
	if t.MakerCode != "" {
		b = jsonstr.AppendHTML(append(b, `,"maker_code":`...), t.MakerCode)
	}
	if t.Ticks != 0 {
		b = strconv.AppendInt(append(b, `,"ticks":`...), t.Ticks, 10)
	}
	return append(b, '}')
}
