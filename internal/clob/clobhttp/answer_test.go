package clobhttp

import (
	"bytes"
	"encoding/json"
	"testing"

	"pmx/internal/clob/clob"
	"pmx/internal/clob/clobengine"
)

// sendOrderResponse is the SendOrderResponse of §5.7, through encoding/json:
// the reference appendResponse must match.
type sendOrderResponse struct {
	Success      bool     `json:"success"`
	ErrorMsg     string   `json:"errorMsg"`
	OrderID      string   `json:"orderID"`
	Status       string   `json:"status"`
	MakingAmount string   `json:"makingAmount"`
	TakingAmount string   `json:"takingAmount"`
	TxHashes     []string `json:"transactionsHashes"`
	TradeIDs     []string `json:"tradeIDs"`
}

func response(p clobengine.PlaceResult) sendOrderResponse {
	s := sendOrderResponse{Success: p.Err == nil, OrderID: p.OrderID, Status: p.Status, TxHashes: []string{}, TradeIDs: []string{}}
	if p.Err != nil {
		s.ErrorMsg = p.Err.Msg
		return s
	}
	if len(p.TradeIDs) > 0 {
		s.MakingAmount, s.TakingAmount = microText(p.Making), microText(p.Taking)
		s.TradeIDs = p.TradeIDs
		for _, id := range p.TradeIDs {
			s.TxHashes = append(s.TxHashes, txHash(id))
		}
	}
	return s
}

// TestAppendResponseMatchesJSON: the hand-written answer is byte for byte
// encoding/json's, for resting, matched and refused orders and for text
// that needs escaping.
func TestAppendResponseMatchesJSON(t *testing.T) {
	id := "0x" + string(bytes.Repeat([]byte("ab"), 32))
	cases := []clobengine.PlaceResult{
		{OrderID: id, Status: "live"},
		{OrderID: id, Status: "matched", Making: 6_000_000, Taking: 10_000_001, TradeIDs: []string{"t-1"}},
		{OrderID: id, Status: "matched", Making: 1, Taking: -5, TradeIDs: []string{"t-1", "t-22", "t-333"}},
		{OrderID: id, Err: clob.E(clob.ErrNotEnoughBalance)},
		{Err: clob.E(clob.ErrTooManyOrders, 16, 15)},
		{OrderID: "<&>\"\\\x01é\u2028", Status: "x\ty", Err: &clob.Error{Msg: "a \"quoted\" <b> & \xff"}},
		{OrderID: id, Status: "delayed", Making: 3, TradeIDs: []string{}},
	}
	for i, p := range cases {
		want, _ := json.Marshal(response(p))
		if got := appendResponse(nil, p); !bytes.Equal(got, want) {
			t.Errorf("case %d:\n got %s\nwant %s", i, got, want)
		}
	}
}
