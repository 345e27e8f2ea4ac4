package clobhttp

import (
	"strconv"

	"pmx/internal/amount"
	"pmx/internal/clob/clobengine"
	"pmx/internal/jsonstr"
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
		b = jsonstr.AppendHTML(b, p.Err.Msg)
	}
	b = append(b, `,"orderID":`...)
	b = jsonstr.AppendHTML(b, p.OrderID)
	b = append(b, `,"status":`...)
	b = jsonstr.AppendHTML(b, p.Status)
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
			b = jsonstr.AppendHTML(b, txHash(id))
		}
	}
	b = append(b, `],"tradeIDs":[`...)
	if traded {
		for i, id := range p.TradeIDs {
			if i > 0 {
				b = append(b, ',')
			}
			b = jsonstr.AppendHTML(b, id)
		}
	}
	return append(b, "]}"...)
}
