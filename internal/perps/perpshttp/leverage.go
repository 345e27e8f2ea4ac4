package perpshttp

import (
	"net/http"

	"pmx/internal/perps/perps"
	"pmx/internal/perps/perpsauth"
	"pmx/internal/perps/perpsvc"
)

// Leverage and margin mode (perps.md §5, §9.8): PATCH /v1/trade/leverage
// answers one {status, instrument_id, leverage, cross} (422 {status:"err",
// error} when refused); PATCH /v1/trade/leverages (path inferred in the
// notes) an array, one item per instrument, refusals included, 200.

func (s *Server) leverageRoutes(mux *http.ServeMux) {
	mux.HandleFunc("PATCH /v1/trade/leverage", s.leverage("updateLeverage"))
	mux.HandleFunc("PATCH /v1/trade/leverages", s.leverage("updateLeverages"))
}

func (s *Server) leverage(opType string) http.HandlerFunc {
	batch := opType == "updateLeverages"
	return func(w http.ResponseWriter, r *http.Request) {
		if !s.chargeIP(w, r, 1, batch) {
			return
		}
		body, ok := readBody(w, r)
		if !ok {
			return
		}
		req, err := perpsauth.ParseRequest(body)
		if err != nil {
			s.writeError(w, err, batch)
			return
		}
		code, out := leverageAnswer(opType, s.svc.UpdateLeverage(opType, req))
		if out.err != nil {
			s.writeError(w, out.err, batch)
			return
		}
		writeJSON(w, code, out.body)
	}
}

// leverageItem is one result on the wire: a refused item carries no
// leverage and no mode.
type leverageItem struct {
	Status   string  `json:"status"`
	IID      *uint32 `json:"instrument_id,omitempty"`
	Leverage *int64  `json:"leverage,omitempty"`
	Cross    *bool   `json:"cross,omitempty"`
	Error    string  `json:"error,omitempty"`
}

func wireLeverage(r perps.LeverageResult, withIID bool) leverageItem {
	it := leverageItem{Status: r.Status, Error: r.Error}
	if withIID || r.Status == "ok" {
		it.IID = &r.IID
	}
	if r.Status == "ok" {
		it.Leverage, it.Cross = &r.Lev, &r.Cross
	}
	return it
}

// leverageAnswer is the status and body of a leverage op (REST and
// WebSocket).
func leverageAnswer(opType string, res perpsvc.LeverageResult) (int, tradeOut) {
	switch {
	case res.Err != nil:
		return res.Err.Status(), tradeOut{err: res.Err}
	case opType == "updateLeverages":
		out := make([]leverageItem, len(res.Items))
		for i, r := range res.Items {
			out[i] = wireLeverage(r, true)
		}
		return 200, tradeOut{body: out}
	case len(res.Items) != 1:
		return 500, tradeOut{err: perpsvc.E(perpsvc.CodeInternal, "")}
	case res.Items[0].Status != "ok":
		return 422, tradeOut{body: wireLeverage(res.Items[0], false)}
	}
	return 200, tradeOut{body: wireLeverage(res.Items[0], false)}
}

// leveragePost answers a WebSocket updateLeverage(s) post: data is the REST
// body (a refusal is {status:"err", error}, the batch form an array).
func (c *wsConn) leveragePost(id *int64, opType string, raw []byte) {
	batch := opType == "updateLeverages"
	req, err := perpsauth.ParseRequest(raw)
	if err != nil {
		c.replyErr(id, err, batch)
		return
	}
	_, out := leverageAnswer(opType, c.s.svc.UpdateLeverage(opType, req))
	if out.err != nil {
		out.body = errorBody(c.s.catalogued(out.err), batch)
	}
	c.reply(id, out.body)
}
