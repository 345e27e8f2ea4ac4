package perpshttp

import (
	"encoding/json"
	"net/http"

	"pmx/internal/perps"
	"pmx/internal/perpsauth"
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

type orderArg struct {
	IID uint32          `json:"iid"`
	Buy bool            `json:"buy"`
	P   *string         `json:"p"`
	Qty string          `json:"qty"`
	TIF *string         `json:"tif"`
	PO  bool            `json:"po"`
	RO  bool            `json:"ro"`
	C   *string         `json:"c"`
	TR  json.RawMessage `json:"tr"`
}

type modifyArg struct {
	OID  uint64 `json:"oid"`
	COID string `json:"coid"`
	P    string `json:"p"`
	Qty  string `json:"qty"`
}

// trade handles one signed trading op: parse, request weight by batch size,
// verify (signature, age, exp, proxy, replay), action weight, then one
// journaled command whose event carries the per-item results.
func (s *Server) trade(opType string) http.HandlerFunc {
	batch := opType != "cancelAll"
	return func(w http.ResponseWriter, r *http.Request) {
		body, ok := readBody(w, r)
		if !ok {
			return
		}
		req, err := perpsauth.ParseRequest(body)
		if err != nil {
			if s.chargeIP(w, r, 1, batch) {
				writeErrBatch(w, 400, err.Error())
			}
			return
		}
		n := argCount(req.Op)
		weight := 1
		if batch {
			weight += n / 20
		}
		if !s.chargeIP(w, r, weight, batch) {
			return
		}
		v, err := s.ver.VerifyOp(req, opType, s.now(), s.resolve)
		if err != nil {
			verifyErr(w, err, batch)
			return
		}
		c := &perps.Command{Kind: opType, Account: v.Account.Hex()}
		rk := v.Replay.Bytes()
		c.Replay = rk[:]
		fail := func(code int, msg string) {
			s.ver.Replay().Remove(v.Replay) // not executed: the identical request may be resent
			if batch {
				writeErrBatch(w, code, msg)
			} else {
				writeErr(w, code, msg)
			}
		}
		actions := 0
		switch opType {
		case "createOrders":
			var args []orderArg
			if err := v.Op.DecodeArgs(&args); err != nil {
				fail(400, "invalid request: "+err.Error())
				return
			}
			if len(args) == 0 {
				fail(400, "no orders provided")
				return
			}
			for _, a := range args {
				o := perps.OrderReq{IID: a.IID, Buy: a.Buy, P: a.P, Qty: a.Qty, TIF: a.TIF, PO: a.PO, RO: a.RO,
					TR: len(a.TR) > 0 && string(a.TR) != "null"}
				if a.C != nil {
					o.C = *a.C
					if o.C == "" {
						o.C = "-" // present but empty: refused as an invalid id by the machine
					}
				}
				c.Orders = append(c.Orders, o)
			}
			actions = len(args)
		case "modifyOrders", "modifyOrdersCOID":
			if err := v.Op.DecodeArgs(&c.Modifies); err != nil {
				fail(400, "invalid request: "+err.Error())
				return
			}
			if len(c.Modifies) == 0 {
				fail(400, "no orders provided")
				return
			}
			actions = len(c.Modifies)
		case "cancelOrders":
			if err := v.Op.DecodeArgs(&c.OIDs); err != nil || len(c.OIDs) == 0 {
				fail(400, "invalid request: args must be a non-empty array of order ids")
				return
			}
		case "cancelOrdersCOID":
			if err := v.Op.DecodeArgs(&c.COIDs); err != nil || len(c.COIDs) == 0 {
				fail(400, "invalid request: args must be a non-empty array of client order ids")
				return
			}
		case "cancelAll":
			var a struct {
				IID *uint32 `json:"iid"`
			}
			if err := v.Op.DecodeArgs(&a); err != nil {
				fail(400, "invalid request: "+err.Error())
				return
			}
			if a.IID != nil {
				c.IID = *a.IID
			}
		}
		if n > MaxBatch {
			fail(400, "invalid request: at most 100 items per request")
			return
		}
		if !s.chargeAction(w, c.Account, actions) {
			s.ver.Replay().Remove(v.Replay)
			return
		}
		if s.now().UnixMilli() > v.DeadlineMs { // deadline passed before sequencing: not executed
			fail(400, perpsauth.ErrCommandExpired.Error())
			return
		}
		ev, err := s.submit(c)
		if err != nil {
			s.ver.Replay().Remove(v.Replay)
			s.engineErr(w, err, batch)
			return
		}
		switch {
		case ev.Err != "":
			if batch {
				writeErrBatch(w, 400, ev.Err)
			} else {
				writeErr(w, 400, ev.Err)
			}
		case opType == "createOrders":
			writeJSON(w, 200, ev.Acks)
		case opType == "cancelAll":
			writeJSON(w, 200, map[string]string{"status": "ok"})
		default:
			writeJSON(w, 200, ev.Items)
		}
	}
}

// argCount is the number of items in a batch op's args (0 if not an array).
func argCount(op json.RawMessage) int {
	var o struct {
		Args []json.RawMessage `json:"args"`
	}
	if json.Unmarshal(op, &o) != nil {
		return 0
	}
	return len(o.Args)
}
