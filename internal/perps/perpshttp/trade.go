package perpshttp

import (
	"net/http"
	"time"

	"pmx/internal/perps/perpsvc"
)

// MaxBatch bounds the items of one batch request.
const MaxBatch = perpsvc.MaxBatch

func (s *Server) tradeRoutes(mux *http.ServeMux) {
	mux.HandleFunc("POST /v1/trade/orders", s.trade("createOrders"))
	mux.HandleFunc("PATCH /v1/trade/orders", s.trade("modifyOrders"))
	mux.HandleFunc("PATCH /v1/trade/orders-coid", s.trade("modifyOrdersCOID"))
	mux.HandleFunc("DELETE /v1/trade/orders", s.trade("cancelOrders"))
	mux.HandleFunc("DELETE /v1/trade/orders-coid", s.trade("cancelOrdersCOID"))
	mux.HandleFunc("DELETE /v1/trade/orders/all", s.trade("cancelAll"))
}

// trade handles one signed trading op over REST: request weight by batch size
// against the IP budget, then the service's Trade.
func (s *Server) trade(opType string) http.HandlerFunc {
	batch := opType != "cancelAll"
	return func(w http.ResponseWriter, r *http.Request) {
		// The base weight is charged before any body byte is read, so an
		// over-budget client cannot make the server read (or hold) bodies;
		// the batch's extra weight once the body is parsed.
		if !s.chargeIP(w, r, 1, batch) {
			return
		}
		req, ok, err := parseBody(w, r)
		if !ok {
			return
		}
		if err == nil && batch && !s.chargeIP(w, r, req.ArgCount()/20, batch) {
			return
		}
		if err != nil {
			s.writeError(w, err, batch)
			return
		}
		code, out := s.tradeAnswer(opType, s.svc.Trade(opType, req))
		if e := out.err; e != nil {
			s.writeError(w, e, batch)
			return
		}
		writeJSON(w, code, out.body)
	}
}

type tradeOut struct {
	body any
	err  error
}

// tradeAnswer is the status and body of a trading op's result (REST and
// WebSocket).
func (s *Server) tradeAnswer(opType string, res perpsvc.TradeResult) (int, tradeOut) {
	switch {
	case res.Err != nil:
		e := res.Err
		if e.Code == perpsvc.CodeUnavailable && e.RetryAfter == 0 {
			e.RetryAfter = time.Second
		}
		return e.Status(), tradeOut{err: e}
	case opType == "createOrders":
		return 200, tradeOut{body: res.Acks}
	case opType == "cancelAll":
		return 200, tradeOut{body: map[string]string{"status": "ok"}}
	}
	return 200, tradeOut{body: res.Items}
}

// Recovered counts the signed ops whose signer was recovered: every one,
// on every connection (docs/signing.md).
func (s *Server) Recovered() uint64 { return s.svc.Recovered() }
