package clobhttp

import (
	"encoding/json"
	"strconv"

	"pmx/internal/amount"
	"pmx/internal/clob/clobengine"
)

// appendResponse appends the SendOrderResponse of §5.7 for p, byte for
// byte what encoding/json writes for
//
//	{success, errorMsg, orderID, status, makingAmount, takingAmount, transactionsHashes, tradeIDs}
//
// (TestAppendResponseMatchesJSON), without reflection: the answer is on
// every order's path.
func appendResponse(b []byte, p clobengine.PlaceResult) []byte {
	ok := p.Err == nil
	b = append(b, `{"success":`...)
	b = strconv.AppendBool(b, ok)
	b = append(b, `,"errorMsg":`...)
	if ok {
		b = append(b, `""`...)
	} else {
		b = appendJSONString(b, p.Err.Msg)
	}
	b = append(b, `,"orderID":`...)
	b = appendJSONString(b, p.OrderID)
	b = append(b, `,"status":`...)
	b = appendJSONString(b, p.Status)
	traded := ok && len(p.TradeIDs) > 0
	b = append(b, `,"makingAmount":"`...)
	if traded {
		b = amount.Micro(p.Making).Append(b)
	}
	b = append(b, `","takingAmount":"`...)
	if traded {
		b = amount.Micro(p.Taking).Append(b)
	}
	b = append(b, `","transactionsHashes":[`...)
	if traded {
		for i, id := range p.TradeIDs {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendJSONString(b, txHash(id))
		}
	}
	b = append(b, `],"tradeIDs":[`...)
	if traded {
		for i, id := range p.TradeIDs {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendJSONString(b, id)
		}
	}
	return append(b, "]}"...)
}

// appendJSONString appends s as encoding/json quotes it: directly when no
// byte needs escaping (the ids, hashes and statuses here), else through
// encoding/json.
func appendJSONString(b []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c >= 0x7f || c == '"' || c == '\\' || c == '<' || c == '>' || c == '&' {
			q, _ := json.Marshal(s)
			return append(b, q...)
		}
	}
	b = append(b, '"')
	b = append(b, s...)
	return append(b, '"')
}
