package perpshttp

import (
	"context"
	"net"
	"net/http"
	"time"

	"pmx/internal/perps/perps"
	"pmx/internal/perps/perpsauth"
)

// MaxBatch bounds the items of one batch request.
const MaxBatch = 100

func (s *Server) tradeRoutes(mux *http.ServeMux) {
	mux.HandleFunc("POST /v1/trade/orders", s.trade("createOrders"))
	mux.HandleFunc("PATCH /v1/trade/orders", s.trade("modifyOrders"))
	mux.HandleFunc("PATCH /v1/trade/orders-coid", s.trade("modifyOrdersCOID"))
	mux.HandleFunc("DELETE /v1/trade/orders", s.trade("cancelOrders"))
	mux.HandleFunc("DELETE /v1/trade/orders-coid", s.trade("cancelOrdersCOID"))
	mux.HandleFunc("DELETE /v1/trade/orders/all", s.trade("cancelAll"))
}

// result is the answer to one trading op, for REST or the WebSocket.
type result struct {
	code  int
	body  any
	retry time.Duration // > 0: send Retry-After
}

func errResult(batch bool, code int, msg string) result {
	if batch {
		return result{code: code, body: []errBody{{Status: "err", Error: msg}}}
	}
	return result{code: code, body: errBody{Status: "err", Error: msg}}
}

// trade handles one signed trading op over REST: request weight by batch size
// against the IP budget, then execTrade.
func (s *Server) trade(opType string) http.HandlerFunc {
	batch := opType != "cancelAll"
	return func(w http.ResponseWriter, r *http.Request) {
		// The base weight is charged before any body byte is read, so an
		// over-budget client cannot make the server read (or hold) bodies;
		// the batch's extra weight once the body is parsed.
		if !s.chargeIP(w, r, 1, batch) {
			return
		}
		body, ok := readBody(w, r)
		if !ok {
			return
		}
		req, err := perpsauth.ParseRequest(body)
		if err == nil && batch && !s.chargeIP(w, r, perpsauth.ArgCount(req.Op)/20, batch) {
			return
		}
		var res result
		if err != nil {
			res = errResult(batch, 400, err.Error())
		} else {
			res = s.execTrade(opType, req, connHint(r))
		}
		if res.retry > 0 {
			retryAfter(w, res.retry)
		} else if res.code == 503 {
			w.Header().Set("Retry-After", "1")
		}
		writeJSON(w, res.code, res.body)
	}
}

// execTrade verifies (signature, age, exp, proxy, replay), charges action
// weight and submits one journaled command whose event carries the per-item
// results.
func (s *Server) execTrade(opType string, req *perpsauth.Request, hint *perpsauth.Hint) result {
	batch := opType != "cancelAll"
	v, err := s.ver.VerifyOpHint(req, opType, s.now(), s.resolve, hint)
	if err != nil {
		code, msg := verifyStatus(err)
		return errResult(batch, code, msg)
	}
	c := &perps.Command{Kind: opType, Account: v.Account.Hex()}
	rk := v.Replay.Bytes()
	c.Replay = rk[:]
	fail := func(code int, msg string) result {
		s.ver.Replay().Remove(v.Replay) // not executed: the identical request may be resent
		return errResult(batch, code, msg)
	}
	actions, n := 0, 0
	switch opType {
	case "createOrders":
		rows, err := v.Op.DecodeOrderArgs()
		if err != nil {
			return fail(400, "invalid request: "+err.Error())
		}
		if len(rows) == 0 {
			return fail(400, "no orders provided")
		}
		c.Orders = make([]perps.OrderReq, len(rows))
		for i, a := range rows {
			o := perps.OrderReq{IID: a.IID, Buy: a.Buy, P: a.P, Qty: a.Qty, TIF: a.TIF, PO: a.PO, RO: a.RO, TR: a.TR}
			if a.C != nil {
				o.C = *a.C
				if o.C == "" {
					o.C = "-" // present but empty: refused as an invalid id by the machine
				}
			}
			c.Orders[i] = o
		}
		actions, n = len(rows), len(rows)
	case "modifyOrders", "modifyOrdersCOID":
		if err := v.Op.DecodeArgs(&c.Modifies); err != nil {
			return fail(400, "invalid request: "+err.Error())
		}
		if len(c.Modifies) == 0 {
			return fail(400, "no orders provided")
		}
		actions, n = len(c.Modifies), len(c.Modifies)
	case "cancelOrders":
		if err := v.Op.DecodeArgs(&c.OIDs); err != nil || len(c.OIDs) == 0 {
			return fail(400, "invalid request: args must be a non-empty array of order ids")
		}
		n = len(c.OIDs)
	case "cancelOrdersCOID":
		if err := v.Op.DecodeArgs(&c.COIDs); err != nil || len(c.COIDs) == 0 {
			return fail(400, "invalid request: args must be a non-empty array of client order ids")
		}
		n = len(c.COIDs)
	case "cancelAll":
		var a struct {
			IID *uint32 `json:"iid"`
		}
		if err := v.Op.DecodeArgs(&a); err != nil {
			return fail(400, "invalid request: "+err.Error())
		}
		if a.IID != nil {
			c.IID = *a.IID
		}
	}
	if n > MaxBatch {
		return fail(400, "invalid request: at most 100 items per request")
	}
	if s.opt.queueWait != nil {
		s.opt.queueWait()
	}
	if s.now().UnixMilli() >= v.DeadlineMs { // deadline passed before sequencing: not executed (and not charged)
		return fail(400, perpsauth.ErrCommandExpired.Error())
	}
	if ok, wait := s.acts.take(c.Account, actions, s.now()); !ok {
		s.ver.Replay().Remove(v.Replay)
		res := errResult(batch, 429, "action_rate_limited")
		res.retry = wait
		return res
	}
	ev, err := s.submit(c)
	if err != nil {
		s.ver.Replay().Remove(v.Replay)
		s.log.Error("perps engine", "err", err)
		return errResult(batch, 503, "service_unavailable")
	}
	switch {
	case ev.Err != "":
		return refused(batch, ev)
	case opType == "createOrders":
		return result{code: 200, body: ev.Acks}
	case opType == "cancelAll":
		return result{code: 200, body: map[string]string{"status": "ok"}}
	}
	if !s.resolveHeld(ev.Items) {
		return errResult(batch, 503, "service_unavailable")
	}
	return result{code: 200, body: ev.Items}
}

type hintKey struct{}

// ConnContext gives each connection its own signer hint
// (perpsauth.Hint); install it as the perps http.Server's ConnContext.
// Without it requests are verified by recovery alone, with the same answers.
func ConnContext(ctx context.Context, _ net.Conn) context.Context {
	return context.WithValue(ctx, hintKey{}, new(perpsauth.Hint))
}

// connHint is the request's connection hint, or nil.
func connHint(r *http.Request) *perpsauth.Hint {
	h, _ := r.Context().Value(hintKey{}).(*perpsauth.Hint)
	return h
}

// SignerStats counts signed requests whose signer was found by recovery
// ([0]) and by a connection's known key ([1]).
func (s *Server) SignerStats() [2]uint64 {
	r, k := s.ver.SignerStats()
	return [2]uint64{r, k}
}
